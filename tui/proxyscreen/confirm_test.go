package proxyscreen

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// The status line confirms a typed value as the editor then shows it,
// not as typed (qa: "up.loss = 0.5" while the editor said 50%).
func TestProxyStatusConfirmsTheValueAsTheEditorShowsIt(t *testing.T) {
	for _, c := range []struct{ key, typed, shown string }{
		{"up.loss", "0.5", "50%"},
		{"down.latency", "0.08s", "80ms"},
	} {
		v, _, screen := proxyAt(t, 80, 24)
		if !v.editor.Select(c.key) {
			t.Fatalf("no editor row for %s", c.key)
		}
		proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0))
		for _, r := range c.typed {
			proxyKey(v, tcell.NewEventKey(tcell.KeyRune, r, 0))
		}
		proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0))
		out := drawProxy(v, screen)
		if want := c.key + " = " + c.shown + " at "; !strings.Contains(out, want) {
			t.Errorf("typing %q over %s: the status lacks %q:\n%s", c.typed, c.key, want, out)
		}
	}
}

// A typed value that is the one in force, written another way (0.05s
// for 50ms), changes nothing, as in the lab: no change in the list, and
// the realised figures keep their window (qa: it was applied as a change,
// which started the realised window afresh).
func TestProxyTypedValueInForceChangesNothing(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	if !v.editor.Select("up.latency") {
		t.Fatal("no editor row for up.latency")
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0))
	for _, r := range "0.05s" {
		proxyKey(v, tcell.NewEventKey(tcell.KeyRune, r, 0))
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0))
	out := drawProxy(v, screen)
	if len(f.applied) != 0 || !strings.Contains(out, "up.latency is already 50ms") || !strings.Contains(out, "real: the last 10s") {
		t.Errorf("typing 0.05s over 50ms applied %v:\n%s", f.applied, out)
	}
}
