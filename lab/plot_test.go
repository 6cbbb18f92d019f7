package lab

import (
	"bytes"
	"image/png"
	"testing"
	"time"

	"jitterlab/sim"
)

// A plot of a run keeps the samples of its window, ends included, and
// draws them as a PNG of its width.
func TestPlotOfARunKeepsItsWindow(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Duration = 2 * time.Second
	s, err := Setup{Config: cfg, Every: 50 * time.Millisecond}.Start()
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlot(&cfg, 600)
	if err := p.Run(s, sim.Time(500*time.Millisecond), sim.Time(time.Second)); err != nil {
		t.Fatal(err)
	}
	got := p.Samples()
	// 0.50 s, 0.55 s, … 1.00 s: 11 samples, fewer than the 2×columns the
	// decimator keeps whole.
	if p.Len() != 11 || len(got) != 11 || got[0].TS != 0.5 || got[10].TS != 1 {
		t.Fatalf("%d samples added, %d kept, from %v", p.Len(), len(got), got)
	}
	var b bytes.Buffer
	if err := p.WritePNG(&b, "test"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil || img.Bounds().Dx() != 600 {
		t.Fatalf("the image: %v, %v", err, img.Bounds())
	}
}
