package lab

import (
	"strings"
	"testing"
	"time"
)

// OffPace on summaries whose answer is known by hand: the server's ticks
// since login are the inputs sent plus the final offset; the warning needs
// an offset over 10 ticks and over 5 % of those ticks.
func TestOffPaceSaysTheClientDidNotKeepPace(t *testing.T) {
	for _, c := range []struct {
		sent uint64
		off  int
		want string
	}{
		{1190, 1786, "the client fell 1786 ticks behind the server (the final tick offset): it sent 1190 inputs while the server stepped 2976 ticks; 'lab diagnose' looks for why"},
		{1786, -594, "the client ran 594 ticks ahead of the server (the final tick offset): it sent 1786 inputs while the server stepped 1192 ticks; 'lab diagnose' looks for why"},
		{100, 11, "the client fell 11 ticks behind the server (the final tick offset): it sent 100 inputs while the server stepped 111 ticks; 'lab diagnose' looks for why"},
		{1190, 3, ""},   // within the corrector's reach
		{100, 10, ""},   // not over 10 ticks
		{1000, 40, ""},  // 40 ≤ 5 % of 1040
		{1000, -40, ""}, // likewise ahead
		{0, 0, ""},      // never logged in
		{5, -50, ""},    // no tick since login: nothing to compare
	} {
		sum := Summary{InputsSent: c.sent, FinalOffset: c.off}
		if got := sum.OffPace(); got != c.want {
			t.Errorf("sent %d, offset %d: %q, want %q", c.sent, c.off, got, c.want)
		}
	}
}

// A client whose sends cannot keep pace with a 20 ms server tick (the
// 50 ms send interval) is warned about in the run's text; the reference
// game is not.
func TestRunTextWarnsWhenTheClientFallsBehind(t *testing.T) {
	for _, c := range []struct {
		sets []string
		want bool
	}{{nil, false}, {[]string{"server.tick=20ms"}, true}} {
		_, _, sum := run(t, config(t, 20*time.Second, c.sets...))
		var b strings.Builder
		if err := sum.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "warning: the client fell"); got != c.want {
			t.Errorf("%v: warned %v, want %v (final offset %d, %d inputs sent):\n%s", c.sets, got, c.want, sum.FinalOffset, sum.InputsSent, b.String())
		}
	}
}
