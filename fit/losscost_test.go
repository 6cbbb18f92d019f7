package fit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// lossCost from the table of logs is −2 × the Gilbert–Elliott log
// likelihood written out with ln of the shares (the definition), on
// counts with and without empty rows, and a first packet lost or not.
func TestLossCostIsTheLikelihoodOfItsCounts(t *testing.T) {
	xlny := func(n, p float64) float64 {
		if n == 0 {
			return 0
		}
		return n * math.Log(p)
	}
	want := func(c transCounts, first float64) float64 {
		var ll float64
		for prev := range 2 {
			n0, n1 := c[2*prev], c[2*prev+1]
			if n := n0 + n1; n > 0 {
				ll += xlny(n0, n0/n) + xlny(n1, n1/n)
			}
		}
		n := c[0] + c[1] + c[2] + c[3] + 1
		lost := c[1] + c[3] + first
		return -2 * (ll + xlny(first, lost/n) + xlny(1-first, 1-lost/n))
	}
	r := rand.New(rand.NewPCG(4, 4))
	logs := newLogTable(4 * 1000)
	cases := []transCounts{{0, 0, 0, 0}, {5, 0, 0, 0}, {0, 3, 3, 0}, {10, 2, 2, 1}}
	for range 2000 {
		var c transCounts
		for i := range c {
			c[i] = float64(r.IntN(1000))
			if r.IntN(4) == 0 {
				c[i] = 0
			}
		}
		cases = append(cases, c)
	}
	for _, c := range cases {
		for _, first := range []float64{0, 1} {
			got, w := lossCost(c, first, logs), want(c, first)
			if math.Abs(got-w) > 1e-9*max(1, math.Abs(w)) {
				t.Fatalf("lossCost(%v, first %v) = %v, the likelihood gives %v", c, first, got, w)
			}
		}
	}
}
