package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"jitterlab/internal/files"
	"jitterlab/recordings"
)

// CaptureFormats are the formats [Captures.Format] names: the text ones
// [Read] reads ([Formats]), pcap ([ReadPcap]) and jlrec ([ReadRecording]).
var CaptureFormats = append(append([]string(nil), Formats...), "pcap", "jlrec")

// Captures are capture files opened for reading ([OpenCaptures]): each a
// regular file (a named pipe is refused, not waited on) or standard input
// read whole, at most [MaxBytes].
type Captures struct {
	names []string
	files []*os.File
	rs    []io.ReadSeeker
	sizes []int64
}

// OpenCaptures opens every path; "-" is stdin, whose first [HeadSize]
// bytes are checked ([CheckHead]) before the rest is read, so /dev/zero or
// garbage is refused at once. On an error nothing stays open.
func OpenCaptures(paths []string, stdin io.Reader) (*Captures, error) {
	c := &Captures{names: paths}
	for _, path := range paths {
		if path == "-" {
			data, err := readStdin(stdin)
			if err != nil {
				c.Close()
				return nil, err
			}
			c.rs, c.sizes = append(c.rs, bytes.NewReader(data)), append(c.sizes, int64(len(data)))
			continue
		}
		f, st, err := files.OpenRegular(path)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.files = append(c.files, f)
		c.rs, c.sizes = append(c.rs, f), append(c.sizes, st.Size())
	}
	return c, nil
}

// readStdin reads a capture on standard input, its head checked first.
func readStdin(stdin io.Reader) ([]byte, error) {
	br := bufio.NewReaderSize(stdin, HeadSize)
	head, err := br.Peek(HeadSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("-: %w", err)
	}
	if err := CheckHead("-", head); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(br, MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("-: %w", err)
	}
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("-: larger than %d bytes: split the capture", MaxBytes)
	}
	return data, nil
}

// Close closes the files.
func (c *Captures) Close() {
	for _, f := range c.files {
		f.Close()
	}
}

// Format names the first capture's format from its first bytes: pcap,
// jlrec, or what [Detect] says of a text capture.
func (c *Captures) Format() string {
	head := make([]byte, HeadSize)
	n, _ := io.ReadFull(c.rs[0], head)
	c.rs[0].Seek(0, io.SeekStart)
	head = head[:n]
	switch {
	case IsPcap(head):
		return "pcap"
	case IsRecording(head):
		return "jlrec"
	}
	return Detect(head)
}

// Reader is capture i, from its start.
func (c *Captures) Reader(i int) io.Reader { return c.rs[i] }

// Pcap is every capture as [ReadPcap] takes them.
func (c *Captures) Pcap() []PcapFile {
	var out []PcapFile
	for i, r := range c.rs {
		out = append(out, PcapFile{Name: c.names[i], R: r})
	}
	return out
}

// Recording opens the first capture as a lab recording.
func (c *Captures) Recording() (*recordings.Reader, error) {
	ra, ok := c.rs[0].(io.ReaderAt)
	if !ok {
		return nil, fmt.Errorf("%s: a recording is read from a file, not standard input", c.names[0])
	}
	r, err := recordings.Open(ra, c.sizes[0])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.names[0], err)
	}
	return r, nil
}

// ParsePcapOptions reads how pcap captures are read as the command line
// writes it: the sequence field (OFFSET[:WIDTH[:be|le]], [ParseSeqField])
// and the game's client and server endpoints ("" for the default,
// [ParseEndpoint]).
func ParsePcapOptions(seq, client, server string) (PcapOptions, error) {
	var o PcapOptions
	var err error
	if o.Seq, err = ParseSeqField(seq); err != nil {
		return o, err
	}
	if client != "" {
		if o.Client, err = ParseEndpoint("client", client); err != nil {
			return o, err
		}
	}
	if server != "" {
		if o.Server, err = ParseEndpoint("server", server); err != nil {
			return o, err
		}
	}
	return o, nil
}
