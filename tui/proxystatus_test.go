package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// QA: on the proxy's screen a status wider than the screen (an API
// change of many keys) keeps to its one row, cut with "…", so the charts
// keep their rows; the changes panel (c) still has its full text.
func TestProxyStatusKeepsToOneRow(t *testing.T) {
	f := newFakeProxy(t)
	v, screen := openProxy(f, ProxyOptions{}, 80, 24, 10)
	before := rows(screenOf(v, screen))
	what := "PUT /params: up.loss=20% down.latency=80ms up.latency=30ms up.jitter=5ms down.jitter=7ms down.loss=1%"
	f.snap.Changes = append(f.snap.Changes, ProxyChange{At: 1500 * time.Millisecond, What: what, By: "API"})
	f.tick()
	v.advance(0)
	after := rows(screenOf(v, screen))
	if len(after) != 24 {
		t.Fatalf("%d rows", len(after))
	}
	status := strings.TrimSpace(after[22])
	if !strings.HasPrefix(status, "API +00:00:01.5 PUT /params: up.loss=20%") || !strings.HasSuffix(status, "…") {
		t.Errorf("status row %q; want the change cut with …", status)
	}
	for y := range 22 { // the header, the charts and the box stay where they were
		if before[y][:2] != after[y][:2] {
			t.Errorf("row %d moved: %q, was %q", y, after[y], before[y])
		}
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'c', 0))
	drawProxy(v, screen)
	if log := untagged(v.log.text); !strings.Contains(log, "+00:00:01.5 API "+what) {
		t.Errorf("the changes panel lacks the whole change %q:\n%s", what, log)
	}
}

func screenOf(v *ProxyView, s tcell.SimulationScreen) tcell.SimulationScreen {
	drawProxy(v, s)
	return s
}

// cutToWidth keeps colour tags whole: a cut never leaves half a tag on
// screen as text.
func TestCutToWidthKeepsTagsWhole(t *testing.T) {
	for _, c := range []struct {
		text string
		w    int
		want string
	}{
		{"[red]abc[-]def", 6, "[red]abc[-]def"},
		{"[red]abc[-]def", 4, "[red]abc[-]…"},
		{"ab[yellow]cdef[-]", 4, "ab[yellow]c…"},
		{"abc", 0, "…"},
	} {
		if got := cutToWidth(c.text, c.w); got != c.want {
			t.Errorf("cutToWidth(%q, %d) = %q; want %q", c.text, c.w, got, c.want)
		}
	}
}
