package record

import (
	"testing"

	"jitterlab/lab"
	"jitterlab/recordings"
)

// StartLink says the links a header holds as ab and sweep say a run's,
// and nothing for a header that is not the lab's settings.
func TestStartLinkSaysTheHeadersLinks(t *testing.T) {
	cfg := lab.DefaultConfig()
	if err := lab.Set(&cfg, "up.latency", "40ms"); err != nil {
		t.Fatal(err)
	}
	h := lab.HeaderOf(cfg, "relay", 0)
	if got, want := StartLink(h), "latency 40ms/0, jitter 0, jitter_dist uniform, loss 0%, loss_burst 0, duplicate 0%, reorder 0%, rate 0, queue 0 (up/down where they differ) at the start"; got != want {
		t.Errorf("StartLink = %q, want %q", got, want)
	}
	h.Params = append(h.Params, [2]string{"up.latency", "fast"})
	if got := StartLink(h); got != "" {
		t.Errorf("a header with a bad value: %q, want nothing", got)
	}
	if got := StartLink(recordings.Header{Params: [][2]string{{"no.such", "1"}}}); got != "" {
		t.Errorf("a header of unknown keys: %q, want nothing", got)
	}
}
