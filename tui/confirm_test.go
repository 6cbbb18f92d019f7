package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// The status line confirms a typed value as the editor then shows it,
// not as typed: a loss of 0.5 is 50 %, and a user who meant 0.5 % must
// read "50%" there, not an echo of "0.5" (qa: the status said
// "up.loss = 0.5" while the editor said 50%).
func TestStatusConfirmsTheValueAsTheEditorShowsIt(t *testing.T) {
	for _, c := range []struct{ key, typed, shown string }{
		{"up.loss", "0.5", "50%"},
		{"up.latency", "0.08s", "80ms"},
		{"down.jitter", " 1500us ", "1.5ms"},
	} {
		a, screen := labAt(t, 80, 24)
		a.advance(time.Second)
		if !a.editor.Select(c.key) {
			t.Fatalf("no editor row for %s", c.key)
		}
		pressKey(a, tcell.KeyEnter)
		typeText(a, c.typed)
		pressKey(a, tcell.KeyEnter)
		out := draw(a, screen)
		if want := c.key + " = " + c.shown + " at "; !strings.Contains(out, want) {
			t.Errorf("typing %q over %s: the status lacks %q:\n%s", c.typed, c.key, want, out)
		}
	}
}
