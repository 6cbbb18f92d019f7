package batch

import (
	"math"
	"strings"
	"testing"
)

// judder is the judder metric and its row in the tables.
func judder() (int, Metric) {
	for i, m := range Metrics {
		if m.Name == "judder_mps" {
			return i, m
		}
	}
	panic("no judder_mps")
}

// abResult builds an A/B over len(a) seeds whose judder is a[i] and b[i]
// on seed i and every other metric 0.
func abResult(t *testing.T, a, b []float64) *Result {
	t.Helper()
	def := Definition{Kind: "ab", B: []string{"server.inputs=queue"}, DurationS: 60}
	for i := range a {
		def.Seeds = append(def.Seeds, uint64(i+1))
	}
	var runs []Run
	for arm, vs := range [][]float64{a, b} {
		for i, v := range vs {
			m := map[string]Value{}
			for _, mt := range Metrics {
				m[mt.Name] = 0
			}
			m["judder_mps"] = Value(v)
			runs = append(runs, Run{Index: arm*len(a) + i, Arm: arm, Seed: uint64(i + 1), Metrics: m})
		}
	}
	r, err := NewResult(def, runs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestABIsThePairedDifferencePerSeed (issue 9 item 2): the seeds differ
// far more than the variants; B is 0.020 m/s better on every seed. The
// means' intervals overlap, the paired difference's interval does not
// contain 0: significant, −0.020 ± 0.000.
func TestABIsThePairedDifferencePerSeed(t *testing.T) {
	var a, b []float64
	for i := range 20 {
		v := 0.3 + 0.05*float64(i%7)
		a, b = append(a, v), append(b, v-0.02)
	}
	r := abResult(t, a, b)
	_, m := judder()
	ma, mb := r.Mean(0, m), r.Mean(1, m)
	if ma.Lo() > mb.Hi() {
		t.Fatalf("the test needs overlapping means: %v %v", ma, mb)
	}
	d := r.Paired(0, 1, m)
	if !d.Significant || FormatDiff(d, m.Prec) != "-0.020 ± 0.000 *" {
		t.Errorf("paired difference %+v, shown %q; want significant -0.020 ± 0.000 *", d, FormatDiff(d, m.Prec))
	}
	// Unpaired, the same values would not tell the variants apart.
	if ma.Half < 0.02 {
		t.Errorf("the seeds' spread %v should hide a difference of 0.02", ma.Half)
	}
}

// TestSignificantOnlyWhenTheIntervalExcludesZero (issue 9 item 2): B
// alternates ±0.05 around A: the mean difference is 0 within an interval
// that contains 0, not significant and shown without *.
func TestSignificantOnlyWhenTheIntervalExcludesZero(t *testing.T) {
	var a, b []float64
	for i := range 20 {
		a = append(a, 0.5)
		b = append(b, 0.5+0.05*float64(1-2*(i%2)))
	}
	r := abResult(t, a, b)
	_, m := judder()
	d := r.Paired(0, 1, m)
	if d.Significant || !d.Contains(0) || strings.Contains(FormatDiff(d, 3), "*") {
		t.Errorf("%+v %q: want not significant", d, FormatDiff(d, 3))
	}
	// A consistent difference below half the last digit shown is no effect.
	for i := range b {
		b[i] = a[i] + 0.0004
	}
	if d := abResult(t, a, b).Paired(0, 1, m); d.Significant {
		t.Errorf("a difference of 0.0004 m/s shown with 3 decimals is significant: %+v", d)
	}
}

// TestNoPercentageOnABaseNearZero (issue 9 item 2): a change from 0 or
// from 0.001 has no percentage, in the text table or the JSON; from 0.5 it
// has one.
func TestNoPercentageOnABaseNearZero(t *testing.T) {
	for _, c := range []struct {
		base float64
		pct  bool
	}{{0, false}, {0.001, false}, {0.009, false}, {0.5, true}} {
		var a, b []float64
		for i := range 20 {
			a = append(a, c.base+0.0001*float64(i%3))
			b = append(b, c.base+0.0001*float64(i%3)+0.2)
		}
		r := abResult(t, a, b)
		i, m := judder()
		_, ok := r.Percent(0, 1, m)
		_, rows := r.Table()
		j := r.JSON()
		if ok != c.pct || (rows[i][4] != "") == !c.pct || (j.Diffs[i].ChangePct != nil) != c.pct {
			t.Errorf("base %v: percent %v, cell %q, JSON %v; want a percentage %v", c.base, ok, rows[i][4], j.Diffs[i].ChangePct, c.pct)
		}
	}
}

// A metric a run could not measure (NaN) is "-" in the table and null in
// JSON, never an encoding error.
func TestMetricWithoutData(t *testing.T) {
	nan := math.NaN()
	r := abResult(t, []float64{nan, nan}, []float64{0.1, 0.2})
	_, rows := r.Table()
	if i, _ := judder(); rows[i][1] != "-" || rows[i][3] != "-" {
		t.Errorf("row %q", rows[i])
	}
	var b strings.Builder
	if err := r.WriteJSON(&b); err != nil || !strings.Contains(b.String(), `"mean": null`) {
		t.Errorf("%v %s", err, b.String()[:200])
	}
}

func TestShards(t *testing.T) {
	for _, bad := range []string{"0/4", "5/4", "1/0", "a/b", "1", "1/10001", "-1/2"} {
		if _, err := ParseShard(bad); err == nil || !strings.Contains(err.Error(), "--shard") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	// Every run in exactly one of n shards.
	for n := 1; n <= 5; n++ {
		for k := range 23 {
			in := 0
			for i := 1; i <= n; i++ {
				if (Shard{i, n}).Has(k) {
					in++
				}
			}
			if in != 1 {
				t.Fatalf("run %d is in %d of %d shards", k, in, n)
			}
		}
	}
}
