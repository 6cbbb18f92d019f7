package report

import (
	"math"
	"regexp"
	"strconv"
	"testing"

	"jitterlab/stats"
)

// The per-seed dot plots' axis is labelled at round values (qa2): the
// latency-spike page's judder axis read 0.051, 0.294, 0.537, 0.781, 1.024
// and its speed deficit axis -0.031, 0.108, 0.247, …: the range split in
// quarters. Ticks are at multiples of a 1-2-5 step, at least three, inside
// the drawn range, as the timeline charts' are.
func TestDotAxisTicksAreRound(t *testing.T) {
	rows := []dotRow{
		{label: "reference", values: []float64{0.1, 0.55, 0.98}, mean: stats.Interval{N: 3, Mean: 0.54, Half: 0.3}, colour: refColour},
		{label: "perfect link", values: []float64{0.265}, mean: stats.Interval{N: 1, Mean: 0.265}, colour: perfColour},
	}
	svg := string(dots(rows, 3))
	ticks := regexp.MustCompile(`<text x="[^"]+" y="[^"]+" text-anchor="middle" font-size="11">([^<]+)</text>`).FindAllStringSubmatch(svg, -1)
	if len(ticks) < 3 {
		t.Fatalf("want at least 3 ticks; got %q", ticks)
	}
	var vals []float64
	for _, m := range ticks {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatalf("tick %q: %v", m[1], err)
		}
		vals = append(vals, v)
	}
	step := vals[1] - vals[0]
	mant := step / math.Pow(10, math.Floor(math.Log10(step)))
	if math.Abs(mant-1) > 1e-6 && math.Abs(mant-2) > 1e-6 && math.Abs(mant-5) > 1e-6 {
		t.Errorf("ticks %v: step %g is not 1, 2 or 5 × 10^k", vals, step)
	}
	for _, v := range vals {
		if k := v / step; math.Abs(k-math.Round(k)) > 1e-6 {
			t.Errorf("ticks %v: %g is not a multiple of the step %g", vals, v, step)
		}
	}
}
