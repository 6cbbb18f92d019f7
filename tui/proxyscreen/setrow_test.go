package proxyscreen

import (
	"strings"
	"testing"
)

// The set row's delay p50 and p99 are the model's (qa2): they held the
// latency and "±jitter" knobs under "delay p50" and "p99", so exponential
// jitter of mean 8 ms on 100 ms read "100ms ±8ms" beside a real p50 of
// 106 and p99 of 137 ms, as if both were off. Now, like the jitter
// column, the set row gives what the model gives (≈): 50 ms ± 20 ms
// uniform is ≈50.0 and ≈69.6, the exponential link ≈106 and ≈137; where
// another stage moves delays (a rate) the model gives no such figure and
// the row shows the knobs, the jitter's kind marked: ± uniform, + the
// exponential's mean, σ the others.
func TestProxySetRowGivesTheModelsPercentiles(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	row := func() string {
		for _, l := range strings.Split(drawProxy(v, screen), "\n") {
			if strings.Contains(l, " up set ") {
				return l
			}
		}
		return ""
	}
	for _, c := range []struct {
		sets [][2]string
		want string
	}{
		{nil, " up set        ≈50.0  ≈69.6  ≈13.3     2%"},
		{[][2]string{{"up.latency", "100ms"}, {"up.jitter", "8ms"}, {"up.jitter_dist", "exponential"}}, " up set         ≈106   ≈137   ≈8.0     2%"},
		{[][2]string{{"up.rate", "1mbit"}}, " up set        100ms   +8ms            2%"},
		{[][2]string{{"up.jitter_dist", "normal"}}, " up set        100ms   σ8ms            2%"},
	} {
		if err := f.Apply(c.sets); err != nil {
			t.Fatal(err)
		}
		if got := row(); !strings.Contains(got, c.want) {
			t.Errorf("after %v: the set row %q; want %q", c.sets, got, c.want)
		}
	}
}
