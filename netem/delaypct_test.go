package netem

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"testing"
	"time"
)

// DelayPercentiles are the p50 and p99 of the delay the model gives a
// packet, for every jitter distribution, with correlation and with the
// clamp at 0 (qa2: the proxy screen's set row put the jitter knob "±8ms"
// under "p99", where exponential jitter of mean 8 ms on 100 ms gives a
// p50 of 105.5 ms and a p99 of 136.8 ms): they match the quantiles of the
// model's own packets (fixed seeds: the share of them below each), and are
// declined, as ExpectedJitter, when another stage moves delays.
func TestDelayPercentilesMatchTheModel(t *testing.T) {
	ms := time.Millisecond
	for _, p := range []Params{
		{Latency: 20 * ms, Jitter: 5 * ms},
		{Latency: 100 * ms, Jitter: 8 * ms, JitterDist: Exponential},
		{Latency: 50 * ms, Jitter: 10 * ms, JitterDist: Normal, JitterCorr: 0.5},
		{Latency: 60 * ms, Jitter: 5 * ms, JitterDist: Pareto},
		{Latency: 60 * ms, Jitter: 5 * ms, JitterDist: ParetoNormal, JitterCorr: 0.25},
		{Latency: 2 * ms, Jitter: 5 * ms}, // the clamp at 0
		{Latency: 30 * ms},
	} {
		t.Run(fmt.Sprintf("%v±%v %v ρ%.2f", p.Latency, p.Jitter, p.JitterDist, p.JitterCorr), func(t *testing.T) {
			p50, p99, ok := DelayPercentiles(p)
			if !ok {
				t.Fatal("declined")
			}
			tr, _ := rawStream(t, 3, p, 200_000, time.Second)
			slices.Sort(tr)
			for _, c := range []struct {
				name string
				got  time.Duration
				q    float64
			}{{"p50", p50, 0.5}, {"p99", p99, 0.99}} {
				// A q-quantile x has P(d < x) ≤ q ≤ P(d ≤ x): within 5
				// standard errors of a share, doubled for correlation.
				x := float64(c.got) / 1e6
				below := float64(sort.SearchFloat64s(tr, x-1e-6)) / float64(len(tr))
				upTo := float64(sort.SearchFloat64s(tr, x+1e-6)) / float64(len(tr))
				tol := 10 * math.Sqrt(c.q*(1-c.q)/float64(len(tr)))
				if below > c.q+tol || upTo < c.q-tol {
					t.Errorf("%s %v: %.4f of the model's packets below it, %.4f up to it; want %.2f between", c.name, c.got, below, upTo, c.q)
				}
			}
		})
	}
	if _, _, ok := DelayPercentiles(Params{Latency: 20 * ms, Jitter: 5 * ms, Rate: 1_000_000}); ok {
		t.Error("a rate moves delays: want DelayPercentiles declined")
	}
}
