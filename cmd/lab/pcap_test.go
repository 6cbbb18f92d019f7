package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"

	"jitterlab/lab"
)

// pcapArgs is a run whose links lose, duplicate, reorder and queue-drop.
var pcapArgs = []string{"run", "--duration", "20s", "--json", "--set", "link.latency=40ms", "--set", "link.jitter=15ms",
	"--set", "link.loss=5%", "--set", "link.duplicate=3%", "--set", "link.reorder=5%", "--set", "down.rate=7kbit", "--set", "down.queue=8"}

// pcapCount is what a capture says of one direction.
type pcapCount struct{ sent, arrived, lost, queueDropped, duplicates, reordered int }

// openPcapNg opens the pcapng capture at path until the test ends.
func openPcapNg(t *testing.T, path string) *pcapgo.NgReader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := pcapgo.NewNgReader(f, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// countPcap reads a capture back with pcapgo: per direction (by the UDP
// source port of the simulated addresses), the packets on the sender's
// side, those on the receiver's side, and the fates their comments say.
// Timestamps must not go back.
func countPcap(t *testing.T, path string) map[string]*pcapCount {
	t.Helper()
	r := openPcapNg(t, path)
	out := map[string]*pcapCount{"up": {}, "down": {}}
	var last int64
	for n := 1; ; n++ {
		data, ci, opts, err := r.ReadPacketDataWithOptions()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if ts := ci.Timestamp.UnixNano(); ts < last {
			t.Fatalf("packet %d at %d ns after one at %d ns", n, ts, last)
		} else {
			last = ts
		}
		if len(opts.Comments) != 1 {
			t.Fatalf("packet %d has %d comments; want its fate", n, len(opts.Comments))
		}
		dir := "down"
		if data[20] == 40000>>8 && data[21] == 40000&0xFF { // the client's UDP source port
			dir = "up"
		}
		c, note := out[dir], opts.Comments[0]
		if !strings.HasPrefix(note, dir+" #") {
			t.Fatalf("packet %d from the %s side says %q", n, dir, note)
		}
		sender := (dir == "up") == (ci.InterfaceIndex == 0)
		if sender {
			c.sent++
			c.lost += strings.Count(note, "lost")
			c.queueDropped += strings.Count(note, "queue-dropped")
			c.duplicates += strings.Count(note, "duplicated:")
		} else {
			c.arrived++
			c.reordered += strings.Count(note, "reordered")
		}
	}
}

// lab run --pcap: every datagram the links carried is in the capture,
// once on the sender's side and once per copy that arrived on the
// receiver's side, in time order, each with its fate; the counts are the
// summary's.
func TestRunPcapMatchesTheCounters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.pcapng")
	code, out, errOut := runLab(t, append(pcapArgs, "--pcap", path)...)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var sum lab.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	got := countPcap(t, path)
	for _, d := range []struct {
		name string
		l    lab.LinkSummary
	}{{"up", sum.Up}, {"down", sum.Down}} {
		want := pcapCount{int(d.l.Sent), int(d.l.Delivered), int(d.l.Lost), int(d.l.QueueDropped), int(d.l.Duplicated), int(d.l.Reordered)}
		if *got[d.name] != want {
			t.Errorf("%s: the capture has %+v; the summary %+v", d.name, *got[d.name], want)
		}
		if want.lost == 0 || want.duplicates == 0 || want.reordered == 0 {
			t.Errorf("%s: %+v: the run should lose, duplicate and reorder", d.name, want)
		}
	}
	if sum.Down.QueueDropped == 0 {
		t.Error("the run should queue-drop downlink packets")
	}
	// The same seed writes the same bytes.
	again := filepath.Join(dir, "again.pcapng")
	if code, _, errOut := runLab(t, append(pcapArgs, "--pcap", again)...); code != 0 {
		t.Fatal(errOut)
	}
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Fatal("the same run wrote different captures")
	}
}
