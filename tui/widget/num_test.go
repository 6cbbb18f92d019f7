package widget

import (
	"math"
	"testing"
)

// A figure not measured (NaN) shows as a dash; any other, as formatted.
func TestNumDashesWhatIsNotMeasured(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{math.NaN(), "–"}, {0, "0.0 ms"}, {12.34, "12.3 ms"}, {math.Inf(1), "+Inf ms"}} {
		if got := Num("%.1f ms", c.v); got != c.want {
			t.Errorf("Num(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}
