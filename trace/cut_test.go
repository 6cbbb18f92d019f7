package trace

import (
	"io"
	"strings"
	"testing"
)

// Issue 27 item 16: a capture cut inside its last line (copied while it
// was written) is refused, naming the line, instead of reading the cut
// number as another time; a whole last line, and in the generic CSV a cut
// comment or blank line, read as before.
func TestCaptureCutInsideItsLastLine(t *testing.T) {
	csv := "dir,seq,send_ns,recv_ns\nup,1,0,20000000\nup,2,50000000,70000000\n"
	packets := PacketsHeader + "\nup,1,tick,0.000000,delivered,0.020000,20.000,0,false\nup,2,tick,0.050000,delivered,0.070000,20.000,0,false\n"
	for _, c := range []struct {
		name, text string
		read       func(string, io.Reader) (*Trace, error)
	}{{"cut.csv", csv, ReadCSV}, {"cut.packets.csv", packets, ReadPackets}} {
		whole, err := c.read(c.name, strings.NewReader(c.text))
		if err != nil || len(whole.Up.Packets) != 2 {
			t.Fatalf("%s whole: %v", c.name, err)
		}
		cut := c.text[:len(c.text)-6]
		if _, err := c.read(c.name, strings.NewReader(cut)); err == nil || !strings.Contains(err.Error(), c.name+":3: a last line that ends with a newline") {
			t.Errorf("%s cut inside its last line: %v; want it refused naming line 3", c.name, err)
		}
	}
	for _, tail := range []string{"# a comment", "   "} {
		if tr, err := ReadCSV("tail.csv", strings.NewReader(csv+tail)); err != nil || len(tr.Up.Packets) != 2 {
			t.Errorf("a CSV ending in %q without a newline: %v", tail, err)
		}
	}
}
