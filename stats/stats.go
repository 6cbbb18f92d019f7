package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Level is the confidence level of every interval.
const Level = 0.95

// Rounding is the relative difference Paired treats as equal values.
const Rounding = 1e-9

// Interval is a mean over n values with the half-width of its 95 %
// confidence interval: [Mean − Half, Mean + Half]. With fewer than two
// values Half is +Inf (nothing is known about the spread).
type Interval struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	Half float64 `json:"half"`
	SD   float64 `json:"sd"`
}

// Lo is the interval's lower bound.
func (iv Interval) Lo() float64 { return iv.Mean - iv.Half }

// Hi is the interval's upper bound.
func (iv Interval) Hi() float64 { return iv.Mean + iv.Half }

// ExcludesZero reports whether 0 lies outside the interval.
func (iv Interval) ExcludesZero() bool { return iv.Lo() > 0 || iv.Hi() < 0 }

// Contains reports whether x lies in the interval.
func (iv Interval) Contains(x float64) bool { return iv.Lo() <= x && x <= iv.Hi() }

// Fixed writes v with prec decimals, and without a sign when it rounds
// to zero: never "-0.000" (a deficit that rounds to nothing is not ahead of
// its command).
func Fixed(v float64, prec int) string {
	s := fmt.Sprintf("%.*f", prec, v)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// Format writes "mean ± half" with prec decimals; a mean that rounds to
// zero has no sign (Fixed).
func (iv Interval) Format(prec int) string {
	mean := Fixed(iv.Mean, prec)
	if math.IsInf(iv.Half, 1) {
		return mean + " ± ?"
	}
	return fmt.Sprintf("%s ± %.*f", mean, prec, iv.Half)
}

// Mean is the mean of xs with its 95 % interval: half-width
// t(0.975, n−1)·s/√n, s the sample standard deviation.
func Mean(xs []float64) Interval {
	n := len(xs)
	iv := Interval{N: n, Half: math.Inf(1)}
	if n == 0 {
		iv.Mean = math.NaN()
		return iv
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	iv.Mean = sum / float64(n)
	if n < 2 {
		return iv
	}
	var ss float64
	for _, x := range xs {
		d := x - iv.Mean
		ss += float64(d * d)
	}
	iv.SD = math.Sqrt(ss / float64(n-1))
	iv.Half = T975(n-1) * iv.SD / math.Sqrt(float64(n))
	return iv
}

// Diff is variant B against variant A on the same seeds: the interval of
// the per-seed differences b[i] − a[i].
type Diff struct {
	Interval
	// Significant: the interval excludes 0.
	Significant bool `json:"significant"`
}

// Paired compares b with a seed by seed; a[i] and b[i] come from the same
// seed. A difference at the level of floating-point rounding (within
// Rounding of the values' magnitude) counts as 0, so two runs that differ
// only in the order of additions are not "significantly" different. It
// panics if the lengths differ (a programming error).
func Paired(a, b []float64) Diff {
	if len(a) != len(b) {
		panic(fmt.Sprintf("stats.Paired: %d values against %d", len(a), len(b)))
	}
	iv := Mean(Differences(a, b))
	return Diff{Interval: iv, Significant: iv.ExcludesZero()}
}

// Differences are b[i] − a[i] seed by seed, as Paired takes them: a
// difference within Rounding of the values' magnitude is 0. a and b have
// the same length.
func Differences(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
		if math.Abs(d[i]) <= Rounding*max(math.Abs(a[i]), math.Abs(b[i])) {
			d[i] = 0
		}
	}
	return d
}

// PairedMin is Paired where a difference smaller than smallest in
// magnitude is never significant: an effect below what the metric resolves
// (or what anyone could see) is not reported as one, however consistent.
func PairedMin(a, b []float64, smallest float64) Diff {
	d := Paired(a, b)
	d.Significant = d.Significant && math.Abs(d.Mean) >= smallest
	return d
}

// Percent is the difference as a percentage of the base, and whether it is
// meaningful: only when the base's interval excludes 0 and its mean is at
// least floor in magnitude. A percentage of a base near zero (0 overwritten
// inputs, a lag of 0.0001 m) says nothing, so callers print the absolute
// difference instead.
func Percent(d Diff, base Interval, floor float64) (float64, bool) {
	if !base.ExcludesZero() || math.Abs(base.Mean) < floor || math.IsInf(base.Half, 1) {
		return 0, false
	}
	return 100 * d.Mean / base.Mean, true
}

// LastDigit is 10^-prec, the last digit a figure shown with prec decimals
// has (0 ≤ prec ≤ 6), from exact constants: math.Pow may round
// differently on other machines.
func LastDigit(prec int) float64 {
	return [...]float64{1, 0.1, 0.01, 0.001, 1e-4, 1e-5, 1e-6}[prec]
}

// SmallestEffect is the smallest difference a report calls an effect in a
// figure shown with prec decimals: half its last digit. A smaller one is
// never significant, however consistent.
func SmallestEffect(prec int) float64 { return 0.5 * LastDigit(prec) }

// PercentFloor is the smallest base a percentage is given on, for a figure
// shown with prec decimals: ten of its last digit. A percentage of a base
// near zero (0.0 snaps, a lag of 0.001 m) says nothing; the absolute
// difference stands alone.
func PercentFloor(prec int) float64 { return 10 * LastDigit(prec) }

// ChangePercent is the rule every report gives a change in % by: the
// paired difference d = b − a as a percentage of a's mean, only where d is
// significant, Percent allows it on a's interval (floor) and b's mean is
// not clearly of the other sign (by smallest or more: a change of −106 %
// is a sign flip, not a reduction; a b that rounds to 0 is −100 %).
func ChangePercent(d Diff, base, other Interval, smallest, floor float64) (float64, bool) {
	if !d.Significant || math.Copysign(1, base.Mean)*other.Mean <= -smallest {
		return 0, false
	}
	return Percent(d, base, floor)
}

// intervalJSON is an Interval as JSON: an unknown half-width (+Inf, one
// value) is null, and so is a figure without data (NaN: a metric a run
// could not measure).
type intervalJSON struct {
	N    int      `json:"n"`
	Mean *float64 `json:"mean"`
	Half *float64 `json:"half"`
	SD   *float64 `json:"sd"`
	Lo   *float64 `json:"lo"`
	Hi   *float64 `json:"hi"`
}

// number is x, or nil (null) when x is NaN or infinite.
func number(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func (iv Interval) toJSON() intervalJSON {
	return intervalJSON{N: iv.N, Mean: number(iv.Mean), SD: number(iv.SD), Half: number(iv.Half), Lo: number(iv.Lo()), Hi: number(iv.Hi())}
}

// MarshalJSON writes n, mean, half, sd, lo and hi (half, lo, hi null when
// unknown).
func (iv Interval) MarshalJSON() ([]byte, error) { return json.Marshal(iv.toJSON()) }

// MarshalJSON writes the interval and whether it is significant.
func (d Diff) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		intervalJSON
		Significant bool `json:"significant"`
	}{d.toJSON(), d.Significant})
}
