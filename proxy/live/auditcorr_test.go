package live

import (
	"strings"
	"testing"
	"time"

	"jitterlab/netem"
)

// The audit's configured link says the jitter's correlation (qa2): a link
// of ±5 ms uniform jitter at correlation 0.75 read "5ms uniform, J ≈
// 1.609ms", which the README's 2a/3 for uniform ± a (3.333 ms) seems to
// contradict, and the periods' "set 40ms ± 5ms uniform" hid it too.
func TestAuditSaysTheJitterCorrelation(t *testing.T) {
	ms := time.Millisecond
	p := netem.Params{Latency: 40 * ms, Jitter: 5 * ms, JitterCorr: 0.75}
	for _, c := range []struct {
		what, got, want string
	}{
		{"delay added", auditConfigured(p, 0), "40ms ± 5ms uniform, correlation 0.75"},
		{"jitter", auditConfigured(p, 1), "5ms uniform, correlation 0.75, J ≈ 1.609ms"},
		{"a period's set", configText(p), "40ms ± 5ms uniform, correlation 0.75, loss 0%"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q; want %q", c.what, c.got, c.want)
		}
	}
	// Without correlation, nothing more.
	p.JitterCorr = 0
	if got := auditConfigured(p, 1); strings.Contains(got, "correlation") || got != "5ms uniform, J ≈ 3.333ms" {
		t.Errorf("uncorrelated jitter: %q; want %q", got, "5ms uniform, J ≈ 3.333ms")
	}
}
