package trace

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// zeros is an endless stream of zero bytes that counts what was read
// (/dev/zero on standard input).
type zeros struct{ n int }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += len(p)
	return len(p), nil
}

// Standard input is checked by its first bytes before the rest is read:
// binary data is refused having read one head, not until memory runs out.
func TestOpenCapturesRefusesBinaryStdinByItsHead(t *testing.T) {
	z := &zeros{}
	c, err := OpenCaptures([]string{"-"}, z)
	if err == nil {
		c.Close()
		t.Fatal("OpenCaptures(-) of zeros: no error")
	}
	if !strings.HasPrefix(err.Error(), "-: ") || z.n > HeadSize {
		t.Errorf("%q after reading %d bytes; want an error naming - after at most %d bytes", err, z.n, HeadSize)
	}
}

// A text capture on standard input is read whole and its format named.
func TestOpenCapturesReadsStdinWhole(t *testing.T) {
	text, err := os.ReadFile("testdata/packets.csv")
	if err != nil {
		t.Fatal(err)
	}
	c, err := OpenCaptures([]string{"-"}, strings.NewReader(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if f := c.Format(); f != "packets" {
		t.Errorf("Format = %q, want packets", f)
	}
	got, err := io.ReadAll(c.Reader(0))
	if err != nil || string(got) != string(text) {
		t.Errorf("Reader(0) after Format gave %d of %d bytes, %v: want the whole capture from its start", len(got), len(text), err)
	}
	if _, err := c.Recording(); err == nil || !strings.HasPrefix(err.Error(), "-: not a jitterlab recording") {
		t.Errorf("Recording() of a text capture: %v; want an error naming -", err)
	}
}

// Format tells pcap, recordings and the text captures apart by their first
// bytes, and leaves every reader at its start.
func TestCapturesFormat(t *testing.T) {
	dir := t.TempDir()
	pcap := filepath.Join(dir, "a.pcap")
	if err := os.WriteFile(pcap, append([]byte{0xd4, 0xc3, 0xb2, 0xa1}, make([]byte, 40)...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{
		{pcap, "pcap"},
		{"testdata/relay.jlrec", "jlrec"},
		{"testdata/irtt.json", "irtt"},
		{"testdata/packets.csv", "packets"},
	} {
		in, err := OpenCaptures([]string{c.file}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := in.Format(); got != c.want {
			t.Errorf("%s: Format = %q, want %q", c.file, got, c.want)
		}
		if got := in.Format(); got != c.want {
			t.Errorf("%s: Format a second time = %q, want %q (the reader rewound)", c.file, got, c.want)
		}
		in.Close()
	}
	in, err := OpenCaptures([]string{"testdata/relay.jlrec"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if _, err := in.Recording(); err != nil {
		t.Errorf("Recording() of a recording: %v", err)
	}
	if p := in.Pcap(); len(p) != 1 || p[0].Name != "testdata/relay.jlrec" {
		t.Errorf("Pcap() = %v, want the one file by its name", p)
	}
}

// A file that is missing or not regular (a named pipe would block) is
// refused naming it.
func TestOpenCapturesRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for _, path := range []string{filepath.Join(dir, "missing.csv"), fifo} {
		c, err := OpenCaptures([]string{"testdata/packets.csv", path}, nil)
		if err == nil {
			c.Close()
			t.Errorf("%s: no error", path)
		} else if !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %q does not name it", path, err)
		}
	}
}

func TestParsePcapOptions(t *testing.T) {
	o, err := ParsePcapOptions("2:2:le", "10.0.0.2:5000", ":27015")
	if err != nil {
		t.Fatal(err)
	}
	if o.Seq.String() != "2:2:le" || o.Client.String() != "10.0.0.2:5000" || o.Server.Port != 27015 || o.Server.Addr.IsValid() {
		t.Errorf("ParsePcapOptions = %+v", o)
	}
	if o, err := ParsePcapOptions(DefaultSeq.String(), "", ""); err != nil || o.Client.Addr.IsValid() || o.Client.Port != 0 || o.Server.Port != 0 {
		t.Errorf("no endpoints: %+v, %v; want the zero endpoints (the defaults)", o, err)
	}
	for _, c := range []struct{ seq, client, server, want string }{
		{"9:9", "", "", `--seq "9:9"`},
		{"0:4", "nowhere", "", `--client "nowhere"`},
		{"0:4", "", "10.0.0.1:99999", `--server "10.0.0.1:99999"`},
	} {
		if _, err := ParsePcapOptions(c.seq, c.client, c.server); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("ParsePcapOptions(%q, %q, %q) = %v; want an error starting %s", c.seq, c.client, c.server, err, c.want)
		}
	}
}
