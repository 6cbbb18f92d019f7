package proxyscreen

import (
	"strings"
	"testing"
	"time"

	"jitterlab/tui/widget"

	"github.com/gdamore/tcell/v2"
)

// QA: on the proxy's screen a status wider than the screen (an API
// change of many keys) keeps to its one row, cut with "…", so the charts
// keep their rows; the changes panel (c) still has its full text.
func TestProxyStatusKeepsToOneRow(t *testing.T) {
	f := newFakeProxy(t)
	v, screen := openProxy(f, Options{}, 80, 24, 10)
	before := widget.ScreenRows(screenOf(v, screen))
	what := "PUT /params: up.loss=20% down.latency=80ms up.latency=30ms up.jitter=5ms down.jitter=7ms down.loss=1%"
	f.snap.Changes = append(f.snap.Changes, Change{At: 1500 * time.Millisecond, What: what, By: "API"})
	f.tick()
	v.advance(0)
	after := widget.ScreenRows(screenOf(v, screen))
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
	if log := untagged(v.log.Text()); !strings.Contains(log, "+00:00:01.5 API "+what) {
		t.Errorf("the changes panel lacks the whole change %q:\n%s", what, log)
	}
}

func screenOf(v *View, s tcell.SimulationScreen) tcell.SimulationScreen {
	drawProxy(v, s)
	return s
}

// A change of 500 KB (a value sent to the API, refused with an error that
// quotes it) reaches the screen bounded (issue 27.3): the status keeps to
// its row, the changes panel shows each change's first maxChangeText
// bytes and how many it left out, and drawing takes one pass.
func TestProxyScreenBoundsAHugeChange(t *testing.T) {
	f := newFakeProxy(t)
	v, screen := openProxy(f, Options{}, 80, 24, 10)
	huge := strings.Repeat("9", 500_000)
	f.snap.Changes = append(f.snap.Changes, Change{At: time.Second, What: "PUT /params: up.latency=" + huge, By: "API",
		Refused: `up.latency: bad value "` + huge + `"`})
	f.tick()
	v.advance(0)
	if n := len(v.statusText); n > 2*maxChangeText+200 {
		t.Fatalf("status text of %d bytes; want at most about %d", n, 2*maxChangeText)
	}
	status := strings.TrimSpace(widget.ScreenRows(screenOf(v, screen))[22])
	if !strings.HasPrefix(status, "API refused +00:00:01.0 PUT /params: up.latency=999") || !strings.HasSuffix(status, "…") {
		t.Errorf("status row %q", status)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'c', 0))
	drawProxy(v, screen)
	log := untagged(v.log.Text())
	if len(log) > 4*maxChangeText || !strings.Contains(log, "bytes more)") {
		t.Errorf("changes panel of %d bytes; want each change cut to %d bytes saying how much more:\n%.300s", len(log), maxChangeText, log)
	}
}
