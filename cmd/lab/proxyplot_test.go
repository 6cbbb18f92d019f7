package main

import (
	"bytes"
	"cmp"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// newProxyRecording opens a proxy recording named scenario in a
// temporary file; the test writes it and closes the writer, the file is
// closed when the test ends.
func newProxyRecording(t *testing.T, scenario string) (w *recordings.Writer, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), scenario+".jlrec")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	w, err = recordings.NewWriter(f, proxyrec.Header(lab.HeaderOf(lab.DefaultConfig(), scenario, 0)))
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}

// writeTwoClientRecording writes a proxy recording of two clients, the
// first given 20 ms up and down, the second 80 ms, named by their
// addresses as the proxy records them.
func writeTwoClientRecording(t *testing.T) string {
	t.Helper()
	w, path := newProxyRecording(t, "two-clients")
	for _, c := range []recordings.Change{{At: 0, Key: "flow 1", Value: "127.0.0.1:5001"}, {At: 0, Key: "flow 2", Value: "127.0.0.1:5002"}} {
		if err := w.Change(c); err != nil {
			t.Fatal(err)
		}
	}
	var ps []recordings.Packet
	for i := range 200 {
		in := sim.Time(i) * sim.Time(10*time.Millisecond)
		for flow, delay := range []time.Duration{20 * time.Millisecond, 80 * time.Millisecond} {
			for dir := range uint8(2) {
				ps = append(ps, recordings.Packet{At: in + sim.Time(delay), In: in, Out: in + sim.Time(delay), Scheduled: delay, Dir: dir,
					Fate: recordings.PacketDelivered, Flow: uint64(flow + 1), Size: 40})
			}
		}
	}
	slices.SortStableFunc(ps, func(a, b recordings.Packet) int { return cmp.Compare(a.At, b.At) })
	for i := range ps {
		if err := w.Packet(&ps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recordings.End{At: sim.Time(3 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	return path
}

// lab plot of a proxy recording draws one line per client in each
// direction's panel, in colours of their own, and says which colour is
// which client (issue 12.2).
func TestProxyPlotDrawsOneLinePerClient(t *testing.T) {
	rec := writeTwoClientRecording(t)
	code, out, errOut := runLab(t, "plot", rec, "--out", "-", "--width", "600")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"flow 1 127.0.0.1:5001", "flow 2 127.0.0.1:5002"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("plot does not name %q: %q", want, errOut)
		}
	}
	img, err := png.Decode(bytes.NewReader([]byte(out)))
	if err != nil {
		t.Fatal(err)
	}
	// The up panel: the plot's colours other than the background's,
	// the grid's and the labels' greys.
	up := image.Rect(80, 40, img.Bounds().Dx()-30, 180)
	colours := map[color.RGBA]int{}
	for y := up.Min.Y; y < up.Max.Y; y++ {
		for x := up.Min.X; x < up.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c.R != c.G || c.G != c.B { // not a grey
				colours[c]++
			}
		}
	}
	lines := 0
	for _, n := range colours {
		if n > 50 {
			lines++
		}
	}
	if lines != 2 {
		t.Errorf("the up panel has %d line colours, want 2 (one per client): %v", lines, colours)
	}
}
