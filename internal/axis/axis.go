package axis

import (
	"math"
	"strconv"
)

// Step is the 1, 2 or 5 × 10^k at or above x (x > 0).
func Step(x float64) float64 {
	p := 1.0
	for p > x && p > 1e-12 {
		p /= 10
	}
	for p*10 <= x {
		p *= 10
	}
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// Decimals is how many decimals a tick step needs (0 for steps of 1 and up).
func Decimals(step float64) int {
	dec := 0
	for s := step; s < 1-1e-9 && dec < 12; s *= 10 {
		dec++
	}
	return dec
}

// Label formats a tick value with as many decimals as its step needs; a
// value within rounding of 0 is 0 (not -0.0).
func Label(v, step float64) string {
	if math.Abs(v) < step/1e6 {
		v = 0
	}
	return strconv.FormatFloat(v, 'f', Decimals(step), 64)
}
