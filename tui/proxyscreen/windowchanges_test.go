package proxyscreen

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// A change of one client's own link restarts only that link's realised
// figures (qa2): giving 127.0.0.1:15002 settings of its own turned the
// box of 127.0.0.1:15001's own link, untouched, to "since +00:00:16.9",
// dropping its last 10 s for a change that was not its. Here the client
// on its own link gets up.loss=10% at 15 s: everybody's link still shows
// the last 10 s, the client's own link since the change.
func TestAnotherLinksChangeKeepsThisLinksWindow(t *testing.T) {
	p := newTwoLinkProxy(t)
	v, screen := openProxy(p, Options{}, 80, 24, 150)
	p.groups[1].Set["up.loss"], p.groups[1].Own = "10%", "up.loss=10% up.latency=80ms"
	p.snap.Changes = append(p.snap.Changes, Change{At: p.snap.Wall, What: "PUT /params?flow=127.0.0.1:5001: up.loss=10%", By: "API"})
	for range 20 {
		p.tick()
		v.advance(0)
	}
	if out := drawProxy(v, screen); !strings.Contains(out, " everybody's link, 1 client: set and real (real: the last 10s) ") {
		t.Errorf("everybody's link, untouched by the change: want the last 10 s:\n%s", out)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'f', 0))
	if out := drawProxy(v, screen); !strings.Contains(out, " 127.0.0.1:5001's own link: set and real (real: since +00:00:15.0) ") {
		t.Errorf("the changed link: want its figures since the change:\n%s", out)
	}
}

// A link's settings that changed before the change reached the log (the
// source applies, then logs) start its figures at the snapshot that first
// shows them, not at an older change.
func TestAChangeNotYetLoggedStartsTheWindow(t *testing.T) {
	p := newTwoLinkProxy(t)
	v, screen := openProxy(p, Options{}, 80, 24, 150)
	p.groups[1].Set["up.loss"] = "10%" // applied at 15.0 s; no change logged
	for range 20 {
		p.tick()
		v.advance(0)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'f', 0))
	if out := drawProxy(v, screen); !strings.Contains(out, " 127.0.0.1:5001's own link: set and real (real: since +00:00:15.1) ") {
		t.Errorf("want the client's own link's figures since the snapshot that showed the change:\n%s", out)
	}
}
