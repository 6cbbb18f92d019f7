package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"jitterlab/lab"
)

// Every key that can change during a run is in the editor, once, under
// its group: link (up and down), client, server, remote view.
func TestEditorCoversEveryLiveKey(t *testing.T) {
	var have []string
	group := ""
	for _, r := range editorRows {
		if r.Heading {
			group = r.Label
			continue
		}
		for _, k := range r.Keys {
			want := map[string]string{"up": "link", "down": "link", "client": "client", "input": "client", "server": "server", "view": "remote view"}[k[:strings.Index(k, ".")]]
			if group != want {
				t.Errorf("%s is under %q, want %q", k, group, want)
			}
			have = append(have, k)
		}
	}
	for _, p := range lab.Params() {
		if !p.Live || strings.HasPrefix(p.Key, "link.") {
			continue
		}
		if n := countOf(have, p.Key); n != 1 {
			t.Errorf("live key %s is in the editor %d times", p.Key, n)
		}
	}
	for _, k := range []string{"up.overhead", "client.send_interval", "client.band", "client.alpha", "server.tick", "client.drift_ppm", "server.drift_ppm"} {
		if !slices.Contains(have, k) {
			t.Errorf("the editor lacks %s", k)
		}
	}
}

func countOf(keys []string, k string) int {
	n := 0
	for _, x := range keys {
		if x == k {
			n++
		}
	}
	return n
}

// The cursor moves over the data rows only; every row is reachable.
func TestEditorCursorReachesEveryRowAndSkipsHeadings(t *testing.T) {
	e := NewEditor()
	seen := map[string]bool{}
	for range len(editorRows) + 3 {
		if e.Row().Heading {
			t.Fatalf("cursor on heading %q", e.Row().Label)
		}
		seen[e.Row().Label] = true
		e.Move(1, 0)
	}
	for _, r := range editorRows {
		if !r.Heading && !seen[r.Label] {
			t.Errorf("row %q not reachable", r.Label)
		}
	}
}

// Long values (paretonormal, proportional, 33.333333ms) are shown whole.
func TestEditorShowsLongValuesWhole(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	a.set("up.jitter_dist", "paretonormal")
	a.set("down.jitter_dist", "exponential")
	out := draw(a, screen)
	for _, want := range []string{"paretonormal", "exponential"} {
		if !strings.Contains(out, want) {
			t.Errorf("editor cuts %q:\n%s", want, out)
		}
	}
}

// At 80×24 the editor scrolls: the last group is reachable and its title
// says which rows show.
func TestEditorScrollsToTheLastRowAt80x24(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	for range len(editorRows) {
		pressKey(a, tcell.KeyDown)
	}
	out := draw(a, screen)
	last := editorRows[len(editorRows)-1]
	if !strings.Contains(out, "── remote view") || !strings.Contains(out, " "+last.Label+" ") || !strings.Contains(out, fmt.Sprintf("of %d", len(editorRows))) {
		t.Fatalf("the last rows are not on screen:\n%s", out)
	}
	for range len(editorRows) {
		pressKey(a, tcell.KeyUp)
	}
	if out = draw(a, screen); !strings.Contains(out, "── link") {
		t.Fatalf("back at the top the link heading is hidden:\n%s", out)
	}
}

// Stepping below 0 (or typing the value in force) changes nothing and
// logs nothing.
func TestNoOpChangeIsNotLogged(t *testing.T) {
	a, _ := labAt(t, 80, 24)
	pressKey(a, tcell.KeyDown) // jitter
	pressKey(a, tcell.KeyDown) // distribution
	pressKey(a, tcell.KeyDown) // correlation 0
	press(a, '-')
	a.set("up.latency", "50ms")
	if n := len(a.s.Changes()); n != 0 {
		t.Fatalf("no-op changes logged: %+v", a.s.Changes())
	}
	if !strings.Contains(a.status, "already 50ms") {
		t.Fatalf("status %q", a.status)
	}
}
