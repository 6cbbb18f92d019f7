package axis

import (
	"math"
	"testing"
)

func TestStepIsTheRoundValueAtOrAbove(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{{0.3, 0.5}, {1.2, 2}, {0.0009, 0.001}, {4, 5}, {7, 10}, {5, 5}, {0.2, 0.2}, {130, 200}} {
		if got := Step(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Step(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

func TestLabelHasTheDecimalsOfItsStep(t *testing.T) {
	for _, c := range []struct {
		v, step float64
		want    string
	}{{-0.0000000001, 0.5, "0.0"}, {0.048, 0.001, "0.048"}, {20, 10, "20"}, {0.6000000000000001, 0.2, "0.6"}, {1, 1, "1"}} {
		if got := Label(c.v, c.step); got != c.want {
			t.Errorf("Label(%v, %v) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}
