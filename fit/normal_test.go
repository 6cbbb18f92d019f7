package fit

import (
	"math"
	"testing"
)

func TestNormInvInvertsTheNormalCDF(t *testing.T) {
	// Table values of Φ⁻¹ and the round trip Φ(Φ⁻¹(p)) = p across the range,
	// tails included.
	for _, c := range []struct{ p, z float64 }{{0.5, 0}, {0.975, 1.959963984540054}, {0.84134474606854293, 1}, {1e-10, -6.361340902404056}} {
		if got := normInv(c.p); math.Abs(got-c.z) > 1e-12 {
			t.Errorf("normInv(%v) = %v, want %v", c.p, got, c.z)
		}
	}
	for _, p := range []float64{1e-300, 1e-20, 1e-5, 0.01, 0.3, 0.6, 0.99, 1 - 1e-9} {
		if got := normCDF(normInv(p)); math.Abs(got-p) > 1e-12*max(p, 1e-3) {
			t.Errorf("Φ(Φ⁻¹(%v)) = %v", p, got)
		}
	}
}
