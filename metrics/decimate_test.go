package metrics

import (
	"bytes"
	"testing"
)

func rttPanel() []Panel {
	return []Panel{{Title: "rtt", Value: func(s *Sample) float64 { return s.RTTMs }}}
}

// Up to 2×cols samples the decimator keeps every one, so a short plot is
// the plot of every sample, byte for byte.
func TestDecimatorKeepsEverySampleOfAShortStream(t *testing.T) {
	var all []Sample
	d := NewDecimator(rttPanel(), 10)
	for i := range 20 {
		x := Sample{TS: float64(i), RTTMs: float64(i % 7)}
		all = append(all, x)
		d.Add(&x)
	}
	got := d.Samples()
	if len(got) != len(all) {
		t.Fatalf("%d samples kept of 20", len(got))
	}
	for i := range got {
		if got[i] != all[i] {
			t.Fatalf("sample %d: %+v, want %+v", i, got[i], all[i])
		}
	}
	var a, b bytes.Buffer
	if err := WritePNG(&a, all, rttPanel(), 300, "t"); err != nil {
		t.Fatal(err)
	}
	if err := WritePNG(&b, got, rttPanel(), 300, "t"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the plot of what was kept differs from the plot of every sample")
	}
}

// 100,000 samples, flat at 1 ms but for a spike of 50 ms at 70 % of the
// stream and a dip of 0 at 20 %, for 100 columns: both extremes are kept,
// at their share of the width within two columns, and what is kept is
// bounded by the columns, not the stream.
func TestDecimatorKeepsExtremesInPlace(t *testing.T) {
	const n, cols = 100_000, 100
	d := NewDecimator(rttPanel(), cols)
	for i := range n {
		x := Sample{TS: float64(i), RTTMs: 1}
		switch i {
		case 70_000:
			x.RTTMs = 50
		case 20_000:
			x.RTTMs = 0
		}
		d.Add(&x)
	}
	got := d.Samples()
	if len(got) > 2*cols*3+3 || d.Len() != n {
		t.Fatalf("%d samples kept of %d (Len %d); want at most %d", len(got), n, d.Len(), 2*cols*3+3)
	}
	at := func(v float64) float64 {
		for i, x := range got {
			if x.RTTMs == v {
				return float64(i) / float64(len(got))
			}
		}
		return -1
	}
	for _, c := range []struct{ v, share float64 }{{50, 0.7}, {0, 0.2}} {
		if s := at(c.v); s < c.share-2.0/cols || s > c.share+2.0/cols {
			t.Errorf("the sample of %v ms at %.3f of the width; want %.2f ± %.2f", c.v, s, c.share, 2.0/cols)
		}
	}
	for i := 1; i < len(got); i++ {
		if got[i].TS < got[i-1].TS {
			t.Fatalf("kept samples out of order at %d", i)
		}
	}
}
