package check

import (
	"fmt"
	"math"

	"jitterlab/stats"
)

// Status is an assertion's verdict.
type Status int

const (
	Pass         Status = iota // the interval lies wholly inside the bound
	Inconclusive               // the interval straddles the bound
	Fail                       // the interval lies wholly past the bound
)

func (s Status) String() string { return [...]string{"pass", "inconclusive", "fail"}[s] }

// MarshalText writes the status as String does.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a status as MarshalText writes it.
func (s *Status) UnmarshalText(b []byte) error {
	for _, x := range []Status{Pass, Inconclusive, Fail} {
		if x.String() == string(b) {
			*s = x
			return nil
		}
	}
	return fmt.Errorf("status %q: allowed pass, inconclusive, fail", b)
}

// Verdict is a bound judged on values over seeds: their mean with its
// 95 % interval ([stats.Mean]), the status, and for an inconclusive one
// SeedsNeeded ([SeedsNeeded]; 0: no number of seeds decides it) and
// NoData, the seeds without a value (a figure without data, NaN).
type Verdict struct {
	Status      Status
	Interval    stats.Interval
	SeedsNeeded int
	NoData      int
}

// Judge judges values (one per seed) against the bound x: an upper bound
// when upper (max, max_worse), a lower one otherwise (min). Any seed
// without data leaves the verdict inconclusive: a figure that some seeds
// do not measure is not judged on the others.
func Judge(values []float64, upper bool, x float64) Verdict {
	v := Verdict{Interval: stats.Mean(values)}
	for _, y := range values {
		if math.IsNaN(y) {
			v.NoData++
		}
	}
	if v.NoData > 0 {
		v.Status = Inconclusive
		return v
	}
	lo, hi, bound := v.Interval.Lo(), v.Interval.Hi(), x
	if !upper {
		lo, hi, bound = -hi, -lo, -x // a lower bound is an upper one of −values
	}
	switch {
	case hi <= bound:
		v.Status = Pass
	case lo > bound:
		v.Status = Fail
	default:
		v.Status = Inconclusive
		v.SeedsNeeded = SeedsNeeded(v.Interval, math.Abs(v.Interval.Mean-x))
	}
	return v
}

// SeedsNeeded estimates the seeds that would decide a bound at distance
// gap from the mean of iv: the least n above iv.N whose half-width
// t(0.975, n−1)·s/√n is below gap, taking the mean and the standard
// deviation s as measured. It is an estimate: more seeds move both. It
// returns 0 when none would (the mean on the bound, or s unknown) and
// MaxSeeds+1 when more than MaxSeeds would.
func SeedsNeeded(iv stats.Interval, gap float64) int {
	if gap <= 0 || iv.N < 2 || math.IsNaN(iv.SD) {
		return 0
	}
	for n := max(iv.N+1, 2); n <= MaxSeeds; n++ {
		if stats.T975(n-1)*iv.SD/math.Sqrt(float64(n)) < gap {
			return n
		}
	}
	return MaxSeeds + 1
}
