package trace

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Status is what became of one packet.
type Status uint8

const (
	Delivered  Status = iota // arrived; Delay is its one-way delay
	Lost                     // never arrived
	Unmeasured               // arrived, but its arrival time is unknown
)

var statusNames = [...]string{"delivered", "lost", "unmeasured"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(?)"
}

// Packet is one packet of one direction.
type Packet struct {
	Seq    uint64 // the sender's sequence number
	Send   int64  // send time, nanoseconds on the sender's clock
	Delay  int64  // receiver's clock at arrival minus Send, in ns (Delivered only)
	Status Status
}

// Direction is one direction's packets in sequence order.
type Direction struct {
	Name       string // "up" (client to server) or "down"
	Packets    []Packet
	Duplicates int // extra copies that arrived (known for the lab's log only)
}

// Trace is a capture converted to per-packet form.
type Trace struct {
	File   string // where it was read from, for messages
	Format string // "packets", "irtt" or "csv"
	// SyncedClocks: send and arrival times are on one clock (the lab's
	// own log), so delays are absolute and there is no drift to remove.
	SyncedClocks bool
	// Origin is the session's start on the send clock, where one clock
	// gives it: 0 on the lab's own log (its session starts at 0), the
	// first packet either way on a single capture or a proxy recording.
	// With two clocks it is 0 and means nothing.
	Origin   int64
	Up, Down Direction
}

// Limits of every reader: input bytes, bytes per line, packets per trace.
const (
	MaxBytes   = 1 << 30
	MaxLine    = 4096
	MaxPackets = 1 << 24
)

// maxQuoted bounds the bytes of a bad value an [Error] quotes.
const maxQuoted = 64

// Error is bad input: the file, the 1-based line and column or the
// capture's packet number (0 when not known), the field, the value and what is allowed.
type Error struct {
	File         string
	Line, Column int
	Packet       int // a capture's 1-based packet number (0 when not known)
	Field, Value string
	Want         string
}

func (e *Error) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos += ":" + strconv.Itoa(e.Line)
		if e.Column > 0 {
			pos += ":" + strconv.Itoa(e.Column)
		}
	}
	if e.Packet > 0 {
		pos += ": packet " + strconv.Itoa(e.Packet)
	}
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", pos, e.Want)
	}
	v := e.Value
	if len(v) > maxQuoted {
		// At most maxQuoted bytes of a value, cut at a rune's start.
		n := maxQuoted
		for n > 0 && !utf8.RuneStart(v[n]) {
			n--
		}
		v = v[:n] + "…"
	}
	return fmt.Sprintf("%s: %s %q: want %s", pos, e.Field, v, e.Want)
}

// Formats lists the names [Read] accepts besides "auto".
var Formats = []string{"packets", "irtt", "csv"}

// PacketsHeader is the header line of `lab run --packets`.
const PacketsHeader = "dir,seq,kind,sent_s,status,delivered_s,delay_ms,duplicate,reordered"

// HeadSize is how many first bytes name a capture's format and refuse
// what is none: [Read] and [CheckHead] look at no more before deciding.
const HeadSize = 512

// Read reads a capture in format (auto, packets, irtt or csv); auto looks
// at the first bytes: '{' is irtt, the lab's packet header is packets,
// anything else the generic CSV. It streams: binary data is refused from
// its first HeadSize bytes (of a gzipped capture, the first bytes they
// unzip to), and the reading stops at MaxBytes, so neither a huge file nor
// a gzip bomb is read far.
func Read(file string, r io.Reader, format string) (*Trace, error) {
	if format != "auto" && !slices.Contains(Formats, format) {
		return nil, fmt.Errorf("--format %q: want auto or one of %s", format, strings.Join(Formats, ", "))
	}
	br := bufio.NewReaderSize(r, HeadSize)
	head, err := br.Peek(HeadSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	in := &capped{r: br, what: "larger than %d bytes: split the capture"}
	var src io.Reader = in
	if isGzip(head) {
		// irtt gzips its JSON unless the name ends in .json.
		zr, err := gzip.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("%s: gzip: %w (cut short?)", file, err)
		}
		zbr := bufio.NewReaderSize(zr, HeadSize)
		if head, err = zbr.Peek(HeadSize); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: gzip: %w (cut short?)", file, err)
		}
		src = &capped{r: zbr, what: "larger than %d bytes once gunzipped: split the capture"}
	}
	if format == "auto" {
		format = Detect(head)
	}
	switch {
	case len(head) < HeadSize && len(bytes.TrimSpace(head)) == 0:
		return nil, &Error{File: file, Want: "the file is empty"}
	case isBinary(head):
		return nil, &Error{File: file, Want: notCapture}
	}
	switch format {
	case "packets":
		return ReadPackets(file, src)
	case "irtt":
		data, err := io.ReadAll(src)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return readIRTT(file, data)
	}
	return ReadCSV(file, src)
}

// notCapture is what [Read] and [CheckHead] say of binary data.
const notCapture = "binary data, not a capture lab fit reads: irtt's JSON, a CSV (" + csvDirHeader + "), the lab's --packets log, pcap, pcapng or a proxy recording"

// isBinary says whether a text capture's first bytes are binary data: a NUL
// byte, or bytes that are not UTF-8 (a rune cut at the end excepted).
func isBinary(head []byte) bool {
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head[:len(head)-min(len(head), 3)])
}

// CheckHead refuses, from its first HeadSize bytes, a file that is no
// capture of any format lab fit or trace mode reads: not pcap or pcapng,
// not a recording, not gzip, and binary. It reads nothing further, so
// /dev/zero or a huge file of garbage costs HeadSize bytes.
func CheckHead(file string, head []byte) error {
	head = head[:min(len(head), HeadSize)]
	if IsPcap(head) || IsRecording(head) || isGzip(head) || !isBinary(head) {
		return nil
	}
	return &Error{File: file, Want: notCapture}
}

// capped reads r up to MaxBytes and then fails with what (a format with
// the limit), so a reader streaming a capture stops there.
type capped struct {
	r    io.Reader
	n    int64
	what string
}

func (c *capped) Read(p []byte) (int, error) {
	if c.n > MaxBytes {
		return 0, fmt.Errorf(c.what, MaxBytes)
	}
	p = p[:min(int64(len(p)), MaxBytes+1-c.n)]
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > MaxBytes {
		return 0, fmt.Errorf(c.what, MaxBytes)
	}
	return n, err
}

// isGzip says whether data starts with gzip's magic number.
func isGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

// Detect names the format of a capture from its first bytes (of a gzipped
// one, from the first bytes they unzip to).
func Detect(data []byte) string {
	if isGzip(data) {
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			head := make([]byte, 512)
			n, _ := io.ReadFull(zr, head)
			data = head[:n]
		}
	}
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case len(t) > 0 && t[0] == '{':
		return "irtt"
	case bytes.HasPrefix(t, []byte(PacketsHeader)):
		return "packets"
	}
	return "csv"
}

// lines reads a text input line by line, each at most MaxLine bytes.
type lines struct {
	file string
	r    *bufio.Reader
	n    int
	cut  bool // the line next returned ended the input without a newline
}

func newLines(file string, r io.Reader) *lines {
	return &lines{file: file, r: bufio.NewReaderSize(r, MaxLine+2)}
}

// next returns the next line without its end of line, or io.EOF.
func (l *lines) next() (string, error) {
	line, err := l.r.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return "", &Error{File: l.file, Line: l.n + 1, Want: fmt.Sprintf("a line longer than %d bytes", MaxLine)}
	case errors.Is(err, io.EOF) && len(line) == 0:
		return "", io.EOF
	case err != nil && !errors.Is(err, io.EOF):
		return "", fmt.Errorf("%s: %w", l.file, err)
	}
	l.n++
	l.cut = !bytes.HasSuffix(line, []byte("\n"))
	s := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
	if len(s) > MaxLine {
		return "", &Error{File: l.file, Line: l.n, Want: fmt.Sprintf("a line longer than %d bytes", MaxLine)}
	}
	return s, nil
}

// row is next for a data row: a last row without its newline is refused,
// since a capture copied or read while it was written ends inside a line,
// and a number cut short reads as another time (a delay of −26 s). A
// blank or comment line so cut is no row and passes.
func (l *lines) row() (string, error) {
	line, err := l.next()
	if err == nil && l.cut {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return "", &Error{File: l.file, Line: l.n, Want: "a last line that ends with a newline; this one does not, so the capture may have been cut while it was written: end the file with a newline if the line is whole, or delete the line"}
		}
	}
	return line, err
}

// builder collects packets per direction, refusing a repeated sequence
// number and more than MaxPackets.
type builder struct {
	file  string
	total int
	seen  [2]map[uint64]int // seq → index in pk
	pk    [2][]Packet
	dups  [2]int
}

func newBuilder(file string) *builder {
	return &builder{file: file, seen: [2]map[uint64]int{{}, {}}}
}

// add records p in direction d (0 up, 1 down), refusing a sequence number
// seen before.
func (b *builder) add(d int, p Packet, line int) error {
	if _, ok := b.seen[d][p.Seq]; ok {
		return &Error{File: b.file, Line: line, Field: "seq", Value: strconv.FormatUint(p.Seq, 10), Want: "a sequence number not seen before in this direction"}
	}
	if b.total >= MaxPackets {
		return &Error{File: b.file, Line: line, Want: fmt.Sprintf("more than %d packets: split the capture", MaxPackets)}
	}
	b.total++
	b.seen[d][p.Seq] = len(b.pk[d])
	b.pk[d] = append(b.pk[d], p)
	return nil
}

// clocks is what a capture's times are on, which says where its session
// starts ([Trace.Origin]).
type clocks int

const (
	twoClocks  clocks = iota // the sender's and the receiver's: no common start
	labClock                 // the lab's true time: the session starts at 0
	oneMachine               // one machine's wall clock: from the first packet
)

func (b *builder) trace(format string, c clocks) (*Trace, error) {
	t := &Trace{File: b.file, Format: format, SyncedClocks: c != twoClocks,
		Up: Direction{Name: "up", Duplicates: b.dups[0]}, Down: Direction{Name: "down", Duplicates: b.dups[1]}}
	for d, dir := range []*Direction{&t.Up, &t.Down} {
		dir.Packets = b.pk[d]
		slices.SortFunc(dir.Packets, func(a, b Packet) int { return cmp.Compare(a.Seq, b.Seq) })
	}
	if len(t.Up.Packets)+len(t.Down.Packets) == 0 {
		return nil, &Error{File: b.file, Want: "no packets in the capture"}
	}
	if c == oneMachine {
		first := true
		for _, dir := range []*Direction{&t.Up, &t.Down} {
			for _, p := range dir.Packets {
				if first || p.Send < t.Origin {
					t.Origin, first = p.Send, false
				}
			}
		}
	}
	return t, nil
}

// dirIndex maps "up"/"down" to 0/1.
func dirIndex(s string) (int, bool) {
	switch s {
	case "up":
		return 0, true
	case "down":
		return 1, true
	}
	return 0, false
}
