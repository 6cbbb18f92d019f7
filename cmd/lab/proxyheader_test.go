package main

import (
	"testing"

	"jitterlab/lab"
)

// The proxy's first line says the jitter's distribution and correlation
// when they are not the default (qa2): --set link.jitter=10ms --set
// link.jitter_dist=pareto --set link.jitter_corr=0.5 read "jitter 10ms",
// as uniform independent jitter would.
func TestProxyHeaderSaysTheJittersKind(t *testing.T) {
	cfg := lab.DefaultConfig()
	for _, kv := range [][2]string{{"link.latency", "40ms"}, {"link.jitter", "10ms"}, {"up.jitter_dist", "pareto"}, {"up.jitter_corr", "0.5"}} {
		if err := lab.Set(&cfg, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	for dir, want := range map[string]string{
		"up":   "latency 40ms jitter 10ms pareto correlation 0.5 loss 0% duplicate 0% reorder 0% rate 0",
		"down": "latency 40ms jitter 10ms loss 0% duplicate 0% reorder 0% rate 0",
	} {
		if got := linkText(&cfg, dir); got != want {
			t.Errorf("%s: %q; want %q", dir, got, want)
		}
	}
}
