package check

import (
	"math"
	"testing"
)

// Values 1..5: mean 3, s = √2.5 = 1.5811, t(0.975, 4) = 2.7764, half-width
// 2.7764·1.5811/√5 = 1.9632, so the interval is [1.0368, 4.9632].
var oneToFive = []float64{1, 2, 3, 4, 5}

func TestVerdictsOnConstructedValues(t *testing.T) {
	for _, c := range []struct {
		name   string
		values []float64
		upper  bool
		bound  float64
		want   Status
	}{
		{"max above the interval: pass", oneToFive, true, 5, Pass},
		{"max just above the interval's top 4.963: pass", oneToFive, true, 4.97, Pass},
		{"max inside the interval: inconclusive", oneToFive, true, 4.9, Inconclusive},
		{"max on the mean: inconclusive", oneToFive, true, 3, Inconclusive},
		{"max below the interval's bottom 1.037: fail", oneToFive, true, 1, Fail},
		{"min below the interval: pass", oneToFive, false, 1, Pass},
		{"min inside the interval: inconclusive", oneToFive, false, 2, Inconclusive},
		{"min above the interval's top: fail", oneToFive, false, 5, Fail},
		{"the same value on every seed, max on it: pass", []float64{2, 2, 2}, true, 2, Pass},
		{"the same value on every seed, max below it: fail", []float64{2, 2, 2}, true, 1.999, Fail},
		{"the same value on every seed, min above it: fail", []float64{2, 2, 2}, false, 2.001, Fail},
		{"a seed without data: inconclusive", []float64{1, math.NaN(), 1}, true, 100, Inconclusive},
	} {
		v := Judge(c.values, c.upper, c.bound)
		if v.Status != c.want {
			t.Errorf("%s: %v on %v (interval %.4f ± %.4f); want %v", c.name, v.Status, c.values, v.Interval.Mean, v.Interval.Half, c.want)
		}
	}
}

// The seeds that would decide max = 4 on 1..5 (gap 1 from the mean 3,
// s = 1.5811): 12 seeds give 2.2010·1.5811/√12 = 1.0046 ≥ 1, 13 seeds
// 2.1788·1.5811/√13 = 0.9555 < 1.
func TestSeedsNeededIsTheFirstCountWhoseIntervalClearsTheBound(t *testing.T) {
	v := Judge(oneToFive, true, 4)
	if v.Status != Inconclusive || v.SeedsNeeded != 13 {
		t.Fatalf("max 4 on 1..5: %v, %d seeds; want inconclusive, 13 seeds", v.Status, v.SeedsNeeded)
	}
	if v := Judge(oneToFive, false, 2); v.SeedsNeeded != 13 {
		t.Errorf("min 2 on 1..5 (the same gap): %d seeds; want 13", v.SeedsNeeded)
	}
	if v := Judge([]float64{1, 3}, true, 2); v.Status != Inconclusive || v.SeedsNeeded != 0 {
		t.Errorf("the mean on the bound: %v, %d seeds; want inconclusive and 0 (no count decides it)", v.Status, v.SeedsNeeded)
	}
	if v := Judge(oneToFive, true, 3.0001); v.SeedsNeeded != MaxSeeds+1 {
		t.Errorf("a bound 0.0001 from the mean: %d seeds; want more than %d", v.SeedsNeeded, MaxSeeds)
	}
	if v := Judge([]float64{1, math.NaN(), 1}, true, 100); v.NoData != 1 || v.SeedsNeeded != 0 {
		t.Errorf("a seed without data: %d without data, %d seeds; want 1 and 0", v.NoData, v.SeedsNeeded)
	}
}
