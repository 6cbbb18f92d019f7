package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func approx(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.10f, want %.10f", name, got, want)
	}
}

// Student t table values (two-sided 95 %: the 0.975 quantile).
func TestTQuantileMatchesTables(t *testing.T) {
	for _, c := range []struct {
		df   int
		want float64
	}{{1, 12.706204736}, {2, 4.302652730}, {4, 2.776445105}, {9, 2.262157163}, {19, 2.093024054}, {30, 2.042272456}, {1000, 1.962339081}} {
		approx(t, fmt.Sprintf("t(0.975, %d)", c.df), TQuantile(0.975, c.df), c.want, 1e-8)
	}
	approx(t, "t(0.025, 4)", TQuantile(0.025, 4), -2.776445105, 1e-8)
	approx(t, "t(0.5, 7)", TQuantile(0.5, 7), 0, 0)
}

func TestMeanIntervalByHand(t *testing.T) {
	// 1..5: mean 3, s = √2.5, half = t(0.975,4)·s/√5 = 2.776445105·0.707106781.
	iv := Mean([]float64{1, 2, 3, 4, 5})
	approx(t, "mean", iv.Mean, 3, 1e-15)
	approx(t, "sd", iv.SD, math.Sqrt(2.5), 1e-15)
	approx(t, "half", iv.Half, 1.963243166, 1e-8)
	if iv.N != 5 || iv.Format(2) != "3.00 ± 1.96" {
		t.Errorf("%+v formats as %q", iv, iv.Format(2))
	}
	one := Mean([]float64{7})
	if one.Mean != 7 || !math.IsInf(one.Half, 1) || one.ExcludesZero() || one.Format(1) != "7.0 ± ?" {
		t.Errorf("one value: %+v", one)
	}
}

func TestPairedDifferenceByHand(t *testing.T) {
	// Differences 1, 2, 2: mean 5/3, s = √(1/3), half = t(0.975,2)·s/√3 = 4.302652730/3.
	d := Paired([]float64{1, 2, 3}, []float64{2, 4, 5})
	approx(t, "mean", d.Mean, 5.0/3, 1e-15)
	approx(t, "half", d.Half, 4.302652730/3, 1e-8)
	if !d.Significant {
		t.Errorf("[%.3f, %.3f] excludes 0 but is not significant", d.Lo(), d.Hi())
	}
	// Differences 1, −1, 2, −2: mean 0, not significant.
	if d := Paired([]float64{0, 0, 0, 0}, []float64{1, -1, 2, -2}); d.Significant || d.Mean != 0 {
		t.Errorf("a zero-mean difference is significant: %+v", d)
	}
	// The same difference on every seed: no spread, significant.
	if d := Paired([]float64{1, 5, 9}, []float64{1.5, 5.5, 9.5}); !d.Significant || d.Half != 0 {
		t.Errorf("a constant difference: %+v", d)
	}
	// Rounding is no difference.
	if d := Paired([]float64{0.1 + 0.2, 1e6}, []float64{0.3, 1e6 + 1e-7}); d.Significant || d.Mean != 0 {
		t.Errorf("rounding differences: %+v", d)
	}
	// A consistent but negligible effect is not significant.
	a, b := []float64{1, 2, 3}, []float64{1.0001, 2.0001, 3.0001}
	if !Paired(a, b).Significant || PairedMin(a, b, 0.0005).Significant || !PairedMin(a, b, 0.0001).Significant {
		t.Errorf("negligible effect: %+v", PairedMin(a, b, 0.0005))
	}
	// Pairing matters: unpaired, these overlap widely.
	a, b = []float64{1, 10, 100}, []float64{1.1, 10.1, 100.1}
	if ia, ib := Mean(a), Mean(b); ia.Hi() < ib.Lo() || !Paired(a, b).Significant {
		t.Errorf("paired %+v, unpaired %+v %+v", Paired(a, b), ia, ib)
	}
}

func TestNoPercentageOnABaseNearZero(t *testing.T) {
	d := Paired([]float64{2, 2.2, 1.8}, []float64{1, 1.2, 0.8})
	if p, ok := Percent(d, Mean([]float64{2, 2.2, 1.8}), 0.01); !ok || math.Abs(p+50) > 1e-12 {
		t.Errorf("percent of base 2: %v %v", p, ok)
	}
	for name, base := range map[string][]float64{
		"zero base":        {0, 0, 0},
		"base straddles 0": {-1, 1, 0.5},
		"below the floor":  {0.001, 0.001, 0.001},
		"one seed":         {5},
	} {
		if p, ok := Percent(d, Mean(base), 0.01); ok {
			t.Errorf("%s: percentage %v given", name, p)
		}
	}
}

// TestIntervalCoverage: over many samples of 5 normal values the 95 %
// interval holds the true mean 95 % of the time (the z interval, 1.96,
// would only hold it ~88 %).
func TestIntervalCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const trials, n, mu = 4000, 5, 10.0
	var covered, zCovered int
	xs := make([]float64, n)
	for range trials {
		for i := range xs {
			xs[i] = mu + 3*r.NormFloat64()
		}
		iv := Mean(xs)
		if iv.Contains(mu) {
			covered++
		}
		if math.Abs(iv.Mean-mu) <= 1.96*iv.SD/math.Sqrt(n) {
			zCovered++
		}
	}
	cov := float64(covered) / trials
	se := math.Sqrt(0.95 * 0.05 / trials)
	if math.Abs(cov-0.95) > 4*se {
		t.Errorf("coverage %.4f, want 0.95 ± %.4f", cov, 4*se)
	}
	if z := float64(zCovered) / trials; z > 0.92 {
		t.Errorf("the z interval covers %.4f: the test cannot tell t from z", z)
	}
	t.Logf("t coverage %.4f, z coverage %.4f over %d trials of %d", cov, float64(zCovered)/trials, trials, n)
}

func TestJSON(t *testing.T) {
	b, err := json.Marshal(Paired([]float64{1, 2, 3}, []float64{2, 4, 5}))
	if err != nil || !strings.Contains(string(b), `"significant":true`) || !strings.Contains(string(b), `"lo":0.23`) {
		t.Errorf("%s %v", b, err)
	}
	b, err = json.Marshal(Mean([]float64{4}))
	if err != nil || string(b) != `{"n":1,"mean":4,"half":null,"sd":0,"lo":null,"hi":null}` {
		t.Errorf("one value: %s %v", b, err)
	}
}

// An interval without data (a metric no run could measure) is null in
// JSON, not an encoding error; one value has a null half-width.
func TestIntervalJSONWithoutData(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want string
	}{
		{[]float64{math.NaN(), 1}, `{"n":2,"mean":null,"half":null,"sd":null,"lo":null,"hi":null}`},
		{[]float64{2}, `{"n":1,"mean":2,"half":null,"sd":0,"lo":null,"hi":null}`},
	} {
		b, err := json.Marshal(Mean(c.xs))
		if err != nil || string(b) != c.want {
			t.Errorf("%v: %s %v; want %s", c.xs, b, err, c.want)
		}
	}
}

// Issue 9 QA 7: no "-0.000" anywhere: a mean that rounds to zero is shown
// without a sign.
func TestNegativeZeroInIntervals(t *testing.T) {
	for _, c := range []struct {
		iv   Interval
		prec int
		want string
	}{
		{Interval{Mean: -0.0004, Half: 0.002}, 3, "0.000 ± 0.002"},
		{Interval{Mean: -0.04, Half: 0.2}, 1, "0.0 ± 0.2"},
		{Interval{Mean: -0.0006, Half: 0.002}, 3, "-0.001 ± 0.002"},
		{Interval{Mean: -0.0004, Half: math.Inf(1)}, 3, "0.000 ± ?"},
	} {
		if got := c.iv.Format(c.prec); got != c.want {
			t.Errorf("%+v with %d decimals: %q, want %q", c.iv, c.prec, got, c.want)
		}
	}
}

// Fixed never writes a negative zero: the A/B box showed a recommended
// B's deficit as "-0.00".
func TestFixedHasNoNegativeZero(t *testing.T) {
	for _, c := range []struct {
		v    float64
		prec int
		want string
	}{{-0.0004, 2, "0.00"}, {-0.004, 2, "0.00"}, {-0.006, 2, "-0.01"}, {0.0004, 2, "0.00"}, {-0.4, 0, "0"}, {-0.6, 0, "-1"}, {math.Copysign(0, -1), 3, "0.000"}} {
		if got := Fixed(c.v, c.prec); got != c.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", c.v, c.prec, got, c.want)
		}
	}
}

// TestShownDigits: a figure shown with 3 decimals has its last digit at
// 0.001; half of it (0.0005) is the smallest effect, ten of it (0.01) the
// smallest base a percentage is given on.
func TestShownDigits(t *testing.T) {
	for _, c := range []struct {
		prec                   int
		last, smallest, bottom float64
	}{
		{0, 1, 0.5, 10},
		{1, 0.1, 0.05, 1},
		{3, 0.001, 0.0005, 0.01},
		{6, 1e-6, 5e-7, 1e-5},
	} {
		if got := LastDigit(c.prec); got != c.last {
			t.Errorf("LastDigit(%d) = %v, want %v", c.prec, got, c.last)
		}
		if got := SmallestEffect(c.prec); got != c.smallest {
			t.Errorf("SmallestEffect(%d) = %v, want %v", c.prec, got, c.smallest)
		}
		if got := PercentFloor(c.prec); math.Abs(got-c.bottom) > 1e-12*c.bottom {
			t.Errorf("PercentFloor(%d) = %v, want %v", c.prec, got, c.bottom)
		}
	}
}
