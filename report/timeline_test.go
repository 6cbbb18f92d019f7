package report

import (
	"strconv"
	"strings"
	"testing"

	"jitterlab/batch"
)

// Where the recommendation's timeline coincides with the reference's,
// both stay visible: the reference is drawn first as a wide band, the
// recommendation after it (on top) as a line narrower than the band and
// opaque, so it lies inside the band with the band showing on both sides.
// Constructed: two identical series, the case where one hid the other.
func TestRecommendationDrawnInsideTheReferenceBand(t *testing.T) {
	s := batch.Series{TS: []float64{0, 1, 2, 3}, TickOffset: []float64{0, 1, 1, 2},
		SendIntervalS: []float64{0.05, 0.048, 0.048, 0.048}, VisibleErrorM: []float64{0, 0.1, 0.2, 0.1}, VisibleSpeedMPS: []float64{0, 2, 2, 2}}
	for _, c := range timelineCharts([]batch.Series{s, s}, []string{refColour, bestColour}, 2, 0.5) {
		svg := parse(t, []byte(string(c.SVG)))
		lines := svg.all("polyline")
		if len(lines) != 2 {
			t.Fatalf("%s: %d lines, want the reference's and the recommendation's", c.Title, len(lines))
		}
		ref, best := lines[0], lines[1]
		if ref.attrs["stroke"] != refColour || best.attrs["stroke"] != bestColour {
			t.Fatalf("%s: drawn %s then %s, want the reference %s under the recommendation %s",
				c.Title, ref.attrs["stroke"], best.attrs["stroke"], refColour, bestColour)
		}
		wRef, wBest := number(t, ref.attrs["stroke-width"]), number(t, best.attrs["stroke-width"])
		if wRef < 2*wBest {
			t.Errorf("%s: the reference is %g wide, the recommendation %g: on top of it the recommendation hides it (want the band at least twice as wide)", c.Title, wRef, wBest)
		}
		if op := best.attrs["stroke-opacity"]; op != "" && number(t, op) < 1 {
			t.Errorf("%s: the recommendation's line is %s opaque: over the band it shows a colour the legend does not name", c.Title, op)
		}
	}
}

// A reference alone is a plain line: no band under nothing.
func TestReferenceAloneIsALine(t *testing.T) {
	s := batch.Series{TS: []float64{0, 1}, TickOffset: []float64{0, 1}, SendIntervalS: []float64{0.05, 0.048},
		VisibleErrorM: []float64{0, 0.1}, VisibleSpeedMPS: []float64{0, 2}}
	for _, c := range timelineCharts([]batch.Series{s}, []string{refColour}, 2, 0.5) {
		for _, l := range parse(t, []byte(string(c.SVG))).all("polyline") {
			if w := number(t, l.attrs["stroke-width"]); w > 1.5 {
				t.Errorf("%s: the reference alone is %g wide", c.Title, w)
			}
		}
	}
}

func number(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return v
}
