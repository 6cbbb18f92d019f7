package trace

import (
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

// parseFixed reads a decimal number of a unit with scale decimal digits
// below it down to nanoseconds (9 for seconds, 6 for milliseconds) as an
// exact integer of nanoseconds: "0.468187" s is 468187000 ns.
func parseFixed(s string, scale int) (int64, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || len(frac) > scale || (dot && frac == "") {
		return 0, false
	}
	var v int64
	digits := whole + frac + strings.Repeat("0", scale-len(frac))
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' || v > (math.MaxInt64-9)/10 {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// ReadPackets reads the lab's per-packet log (`lab run --packets`). Both
// times are the lab's true time, so the trace's clocks are synchronised.
// Of a duplicated packet the earliest arriving copy counts; the other
// arrival is counted in Direction.Duplicates.
func ReadPackets(file string, r io.Reader) (*Trace, error) {
	ls := newLines(file, r)
	head, err := ls.next()
	if err != nil || head != PacketsHeader {
		if errors.Is(err, io.EOF) {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		return nil, &Error{File: file, Line: 1, Field: "header", Value: head, Want: "the header of `lab run --packets`: " + PacketsHeader}
	}
	b := newBuilder(file)
	for {
		line, err := ls.row()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		f := strings.Split(line, ",")
		bad := func(col int, want string) error {
			name := strings.Split(PacketsHeader, ",")
			v := ""
			if col <= len(f) {
				v = f[col-1]
			}
			return &Error{File: file, Line: ls.n, Column: col, Field: name[col-1], Value: v, Want: want}
		}
		if len(f) != 9 {
			return nil, &Error{File: file, Line: ls.n, Field: "row", Value: line, Want: "9 comma-separated fields: " + PacketsHeader}
		}
		d, ok := dirIndex(f[0])
		if !ok {
			return nil, bad(1, "up or down")
		}
		seq, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return nil, bad(2, "a sequence number")
		}
		sent, ok := parseFixed(f[3], 9)
		if !ok || sent < 0 {
			return nil, bad(4, "a time in seconds ≥ 0 with at most 9 decimals")
		}
		// The copy: 0/1 (the lab's first logs) or false/true.
		if f[7] != "0" && f[7] != "1" && f[7] != "false" && f[7] != "true" {
			return nil, bad(8, "false (the original) or true (the duplicate); 0 or 1")
		}
		if f[8] != "true" && f[8] != "false" {
			return nil, bad(9, "true or false")
		}
		p := Packet{Seq: seq, Send: sent}
		switch f[4] {
		case "delivered":
			at, ok := parseFixed(f[5], 9)
			if !ok || at < sent {
				return nil, bad(6, "a time in seconds ≥ sent_s with at most 9 decimals")
			}
			if _, ok := parseFixed(f[6], 6); !ok {
				return nil, bad(7, "a delay in milliseconds with at most 6 decimals")
			}
			p.Delay = at - sent
		case "lost", "queue_dropped":
			if f[5] != "" || f[6] != "" {
				return nil, bad(6, "empty for a packet not delivered")
			}
			p.Status = Lost
		default:
			return nil, bad(5, "delivered, lost or queue_dropped")
		}
		if i, seen := b.seen[d][seq]; seen {
			// The other copy of a duplicated packet.
			q := &b.pk[d][i]
			if q.Send != p.Send {
				return nil, bad(4, "the send time of the packet's other copy, "+strconv.FormatFloat(float64(q.Send)/1e9, 'f', -1, 64))
			}
			switch {
			case p.Status == Lost:
			case q.Status == Lost:
				*q = p
			default:
				b.dups[d]++
				q.Delay = min(q.Delay, p.Delay)
			}
			continue
		}
		if err := b.add(d, p, ls.n); err != nil {
			return nil, err
		}
	}
	return b.trace("packets", labClock)
}

// The generic CSV's columns.
const (
	csvHeader    = "seq,send_ns,recv_ns"
	csvDirHeader = "dir,seq,send_ns,recv_ns"
)

// ReadCSV reads the generic per-packet CSV a game can log itself:
//
//	# lines starting with # are comments
//	dir,seq,send_ns,recv_ns
//	up,1,1700000000000000000,1700000000021500000
//	up,2,1700000000016666667,
//	down,1,1700000000005000000,1700000000030100000
//
// send_ns is the send time on the sender's clock, recv_ns the arrival on
// the receiver's clock, both integers of nanoseconds from any epoch each;
// recv_ns is empty (or "lost") for a lost packet and "unknown" for one that
// arrived at an unknown time. Without the dir column every row is up.
// Sequence numbers are per direction and unique; rows may be in any order.
func ReadCSV(file string, r io.Reader) (*Trace, error) {
	ls := newLines(file, r)
	var head string
	for {
		line, err := ls.next()
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Want: "no header: the first line must be " + csvDirHeader + " (or " + csvHeader + ")"}
		}
		if err != nil {
			return nil, err
		}
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			head = line
			break
		}
	}
	withDir := head == csvDirHeader
	if !withDir && head != csvHeader {
		return nil, &Error{File: file, Line: ls.n, Field: "header", Value: head, Want: csvDirHeader + " or " + csvHeader}
	}
	names := strings.Split(head, ",")
	b := newBuilder(file)
	for {
		line, err := ls.row()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != len(names) {
			return nil, &Error{File: file, Line: ls.n, Field: "row", Value: line, Want: strconv.Itoa(len(names)) + " comma-separated fields: " + head}
		}
		bad := func(col int, want string) error {
			return &Error{File: file, Line: ls.n, Column: col, Field: names[col-1], Value: f[col-1], Want: want}
		}
		d, c := 0, 0
		if withDir {
			var ok bool
			if d, ok = dirIndex(f[0]); !ok {
				return nil, bad(1, "up or down")
			}
			c = 1
		}
		seq, err := strconv.ParseUint(f[c], 10, 64)
		if err != nil {
			return nil, bad(c+1, "a sequence number (an integer ≥ 0)")
		}
		send, err := strconv.ParseInt(f[c+1], 10, 64)
		if err != nil {
			return nil, bad(c+2, "an integer number of nanoseconds")
		}
		p := Packet{Seq: seq, Send: send}
		switch recv := f[c+2]; recv {
		case "", "lost":
			p.Status = Lost
		case "unknown":
			p.Status = Unmeasured
		default:
			at, err := strconv.ParseInt(recv, 10, 64)
			if err != nil {
				return nil, bad(c+3, "an integer number of nanoseconds, empty or lost for a lost packet, or unknown")
			}
			delay := at - send
			if (at > send) != (delay > 0) || delay > maxDelay || delay < -maxDelay {
				return nil, bad(c+3, "within 1000 h of send_ns (the two clocks' offset included)")
			}
			p.Delay = delay
		}
		if err := b.add(d, p, ls.n); err != nil {
			return nil, err
		}
	}
	return b.trace("csv", twoClocks)
}

// maxDelay bounds |arrival − send|, clock offset included, so that every
// difference the fit takes stays exact in int64 and float64.
const maxDelay = 1000 * 3600 * 1e9

// WriteCSV writes t in the generic CSV format that [ReadCSV] reads.
func WriteCSV(w io.Writer, t *Trace) error {
	b := []byte(csvDirHeader + "\n")
	for _, dir := range []*Direction{&t.Up, &t.Down} {
		for _, p := range dir.Packets {
			b = append(b, dir.Name...)
			b = append(b, ',')
			b = strconv.AppendUint(b, p.Seq, 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, p.Send, 10)
			b = append(b, ',')
			switch p.Status {
			case Delivered:
				b = strconv.AppendInt(b, p.Send+p.Delay, 10)
			case Unmeasured:
				b = append(b, "unknown"...)
			}
			b = append(b, '\n')
			if len(b) > 64<<10 {
				if _, err := w.Write(b); err != nil {
					return err
				}
				b = b[:0]
			}
		}
	}
	_, err := w.Write(b)
	return err
}
