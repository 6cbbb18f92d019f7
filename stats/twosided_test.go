package stats

import (
	"math"
	"testing"
)

// TTwoSided by hand where the distribution has a closed form: with one
// degree of freedom t is Cauchy, P(|T| ≤ x) = (2/π)·atan x, so x =
// tan(π/2·level); with two, P(|T| ≤ x) = x/√(2+x²), so x = level·√(2/(1 −
// level²)). Elsewhere it agrees with the exact quantile (bisection on the
// incomplete beta function) at 95 % (the table T975 reads), at 99 %, and
// at 1 − 5 %/14 (lab compare's level for each of 14 figures).
func TestTTwoSided(t *testing.T) {
	for _, level := range []float64{0.5, 0.9, 0.95, 0.99, 1 - 0.05/14} {
		if got, want := TTwoSided(level, 1), math.Tan(math.Pi/2*level); math.Abs(got-want) > 1e-10*want {
			t.Errorf("df 1, level %v: %.12f, want tan(π/2·level) = %.12f", level, got, want)
		}
		if got, want := TTwoSided(level, 2), level*math.Sqrt(2/(1-level*level)); math.Abs(got-want) > 1e-10*want {
			t.Errorf("df 2, level %v: %.12f, want level·√(2/(1−level²)) = %.12f", level, got, want)
		}
	}
	for df := 1; df <= 1000; df += 1 + df/20 {
		if got, want := TTwoSided(0.95, df), T975(df); math.Abs(got-want) > 1e-10*want {
			t.Errorf("TTwoSided(0.95, %d) = %.15f, T975 %.15f", df, got, want)
		}
		for _, level := range []float64{0.99, 1 - 0.05/14} {
			if got, want := TTwoSided(level, df), TQuantile(1-(1-level)/2, df); math.Abs(got-want) > 1e-9*want {
				t.Errorf("TTwoSided(%v, %d) = %.15f, want %.15f", level, df, got, want)
			}
		}
	}
	for _, c := range []struct {
		level float64
		df    int
	}{{0, 5}, {1, 5}, {math.NaN(), 5}, {0.95, 0}, {-0.1, 3}} {
		if got := TTwoSided(c.level, c.df); !math.IsNaN(got) {
			t.Errorf("TTwoSided(%v, %d) = %v, want NaN", c.level, c.df, got)
		}
	}
}

// atanPos against math.Atan over six decades.
func TestAtanPos(t *testing.T) {
	for y := 1e-4; y < 1e4; y *= 1.07 {
		if got, want := atanPos(y), math.Atan(y); math.Abs(got-want) > 2e-15*want {
			t.Errorf("atanPos(%v) = %.17g, math.Atan %.17g", y, got, want)
		}
	}
	if atanPos(0) != 0 {
		t.Error("atanPos(0) != 0")
	}
}
