package tui

import (
	"strings"
	"testing"
	"time"
)

// Before the game gets going (its first second, and after r) the now box
// says "–" where lab run says "no data": no "NaN", and no 0.00 m/s for a
// judder and a speed nobody measured (qa: "err p99 NaN m", "speed
// 0.00m/s of 0.00m/s" for the first second of every session).
func TestNowBoxSaysNoDataBeforeTheGameGetsGoing(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	a.advance(500 * time.Millisecond)
	if a.lastSum.NoGame() == "" {
		t.Fatal("the game counts a driving frame at 0.5 s: the test's premise is gone")
	}
	out := draw(a, screen)
	for _, bad := range []string{"NaN", "0.00m/s"} {
		if strings.Contains(out, bad) {
			t.Errorf("the now box shows %q before the game got going:\n%s", bad, out)
		}
	}
	for _, want := range []string{"err p99          –", "judder           –", "speed            –"} {
		if !strings.Contains(out, want) {
			t.Errorf("the now box lacks %q:\n%s", want, out)
		}
	}
	a.advance(10 * time.Second) // the game has gone: figures again
	out = draw(a, screen)
	if strings.Contains(out, "judder           –") || strings.Contains(out, "NaN") {
		t.Errorf("after 10 s the now box still has no judder:\n%s", out)
	}
}
