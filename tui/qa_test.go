package tui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"jitterlab/internal/golden"
	"jitterlab/lab"
	"jitterlab/tui/widget"
)

// TestRestartNamesTheClosedRecording (QA defect 4): r during a recording
// closes it and says so on the status line as R does: "recording closed:
// FILE (N s)".
func TestRestartNamesTheClosedRecording(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	a.advance(time.Second)
	press(a, 'R')
	for range 3 {
		a.advance(time.Second)
	}
	if a.rec == nil {
		t.Fatalf("R did not record: %s", a.status)
	}
	path := a.rec.path
	press(a, 'r')
	if a.rec != nil {
		t.Fatal("r left the recording open")
	}
	draw(a, screen)
	lines := widget.ScreenRows(screen)
	status := strings.Join(strings.Fields(lines[len(lines)-3]+" "+lines[len(lines)-2]), " ")
	// The status row may cut a long path: the file's name and its length
	// are what the user needs; the whole text is in a.status.
	want := "recording closed: " + path + " (4 s)"
	if !strings.Contains(a.status, want) || !strings.Contains(status, "recording closed:") || !strings.Contains(status, "(4 s)") {
		t.Fatalf("status %q (on screen %q), want %q", a.status, status, want)
	}
	if files, _ := filepath.Glob(filepath.Join(a.opts.Dir, "*.jlrec")); len(files) != 1 {
		t.Fatalf("recordings %v", files)
	}
}

// TestStopRecordingNamesFileAndLength (QA defect 4): R stopping says the
// same words as r, so the user reads one message for one event.
func TestStopRecordingNamesFileAndLength(t *testing.T) {
	a, _ := labAt(t, 80, 24)
	press(a, 'R')
	a.advance(2 * time.Second)
	path := a.rec.path
	press(a, 'R')
	if want := "recording closed: " + path + " (2 s)"; !strings.Contains(a.status, want) {
		t.Fatalf("status %q, want %q", a.status, want)
	}
}

// TestABRefusesSeedAndDuration (QA defect 7): B runs on A's seed and
// beside A for A's time, so the A/B prompt refuses sim.seed and
// sim.duration with the reason, and starts no A/B.
func TestABRefusesSeedAndDuration(t *testing.T) {
	for _, set := range []string{"sim.seed=5", "server.inputs=queue sim.duration=10s"} {
		a, screen := labAt(t, 120, 40)
		a.advance(time.Second)
		press(a, 'b')
		typeText(a, set)
		pressKey(a, tcell.KeyEnter)
		out := draw(a, screen)
		if a.ab != nil {
			t.Fatalf("b %s started an A/B", set)
		}
		key := strings.Fields(set)[len(strings.Fields(set))-1]
		key = key[:strings.Index(key, "=")]
		if !strings.Contains(a.status, "A/B: "+key+" cannot differ") || !strings.Contains(out, key+" cannot differ") {
			t.Fatalf("b %s: status %q, screen:\n%s", set, a.status, out)
		}
	}
}

// sessionValue is key's value in the lab's session.
func sessionValue(a *App, key string) string {
	p, _ := lab.Lookup(key)
	cfg := a.s.Config()
	return p.Get(&cfg)
}

// selectKey puts the editor's cursor on key.
func selectKey(t *testing.T, e *widget.Editor, key string) {
	t.Helper()
	if !e.Select(key) {
		t.Fatalf("%s is not in the editor", key)
	}
}

// TestEveryEditorRowSteps (QA defect 6): on every editor row, + and then -
// change the session's value, or refuse with a reason naming the key on
// the status line; none answers "has no step".
func TestEveryEditorRowSteps(t *testing.T) {
	a, _ := labAt(t, 120, 40)
	a.advance(time.Second)
	for _, r := range a.editor.Rows() {
		for _, key := range r.Keys {
			selectKey(t, a.editor, key)
			for _, k := range []rune{'+', '-'} {
				before := sessionValue(a, key)
				a.status = ""
				press(a, k)
				after := sessionValue(a, key)
				if strings.Contains(a.status, "no step") {
					t.Errorf("%s %c: %s", key, k, a.status)
				}
				if after == before && !(strings.HasPrefix(a.status, "[red]") && strings.Contains(a.status, key)) {
					t.Errorf("%s %c: %q stayed %q without a reason (status %q)", key, k, before, after, a.status)
				}
			}
		}
	}
}

// TestEnumeratedKeysCycle (QA defect 6): every enumerated key in the
// editor (client.redundancy, client.max_catchup, view.interp,
// server.inputs, …) cycles through all its choices with + and back with -.
func TestEnumeratedKeysCycle(t *testing.T) {
	a, _ := labAt(t, 120, 40)
	for _, v := range lab.Variants() {
		if p, _ := lab.Lookup(v.Key); !p.Live {
			continue
		}
		selectKey(t, a.editor, v.Key)
		for _, dir := range []rune{'+', '-'} {
			start := sessionValue(a, v.Key)
			seen := map[string]bool{start: true}
			for range v.Choices {
				press(a, dir)
				seen[sessionValue(a, v.Key)] = true
			}
			if len(seen) != len(v.Choices) || sessionValue(a, v.Key) != start {
				t.Errorf("%s %c from %s visited %v, want every one of %v and back (status %q)", v.Key, dir, start, seen, v.Choices, a.status)
			}
		}
	}
}

// TestChangesPanelScrolls (QA defect 1): the c panel (scenario and
// changes) scrolls like the help at every size: it opens on the scenario's
// name, says which lines it shows ("lines 1–10 of 23") when they do not all
// fit, and ↑ ↓ PgUp PgDn Home End move through it, End reaching the newest
// change.
func TestChangesPanelScrolls(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			a, screen := labAt(t, sz.w, sz.h)
			for i := range 80 {
				a.advance(time.Second)
				a.set("up.latency", fmt.Sprintf("%dms", 60+i))
			}
			press(a, 'c')
			top := draw(a, screen)
			title := regexp.MustCompile(`lines (\d+)–(\d+) of (\d+)`)
			m := title.FindStringSubmatch(top)
			if m == nil {
				t.Fatalf("no \"lines A–B of N\" on the panel:\n%s", top)
			}
			if m[1] != "1" || !strings.Contains(top, "jitter-fix (builtin/jitter-fix.toml)") {
				t.Fatalf("the panel does not open on the scenario (lines %s–%s):\n%s", m[1], m[2], top)
			}
			if sz.w == 80 {
				golden.Check(t, filepath.Join("testdata", "changes-scroll-80x24.txt"), []byte(top))
			}
			if strings.Contains(top, "up.latency=139ms") {
				t.Fatalf("all 80 changes fit: the test shows nothing:\n%s", top)
			}
			pressKey(a, tcell.KeyEnd)
			end := draw(a, screen)
			if e := title.FindStringSubmatch(end); e == nil || e[2] != e[3] || !strings.Contains(end, "up.latency=139ms") {
				t.Fatalf("End does not reach the newest change:\n%s", end)
			}
			pressKey(a, tcell.KeyUp)
			up := draw(a, screen)
			if u := title.FindStringSubmatch(up); u == nil || u[2] == u[3] {
				t.Fatalf("↑ does not scroll up:\n%s", up)
			}
			pressKey(a, tcell.KeyPgDn)
			pressKey(a, tcell.KeyPgUp)
			pressKey(a, tcell.KeyPgUp)
			pressKey(a, tcell.KeyDown)
			pressKey(a, tcell.KeyHome)
			if home := draw(a, screen); home != top {
				t.Fatalf("Home does not come back to the top:\n%s\nwant\n%s", home, top)
			}
			if a.editor.Key() != "up.latency" {
				t.Fatalf("the keys moved the hidden editor's cursor to %s", a.editor.Key())
			}
		})
	}
}
