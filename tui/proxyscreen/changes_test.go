package proxyscreen

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"jitterlab/lab"
	"jitterlab/tui/widget"
)

// TestProxyChangesPanelScrolls (QA defect 1, the proxy's screen): the
// proxy's c panel scrolls the same way: it opens on the newest change, says
// which lines show, and Home reaches the first change.
func TestProxyChangesPanelScrolls(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	for i := range 40 {
		f.snap.Changes = append(f.snap.Changes, Change{At: time.Duration(i) * time.Second, What: fmt.Sprintf("up.latency=%dms", 100+i)})
	}
	f.tick()
	v.advance(0)
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'c', 0))
	out := drawProxy(v, screen)
	if !strings.Contains(out, "up.latency=139ms") || !strings.Contains(out, "of 40") {
		t.Fatalf("the panel does not open on the newest change with the lines it shows:\n%s", out)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyHome, 0, 0))
	if out = drawProxy(v, screen); !strings.Contains(out, "up.latency=100ms") || !strings.Contains(out, "lines 1–") {
		t.Fatalf("Home does not reach the first change:\n%s", out)
	}
	if v.editor.Key() != "up.latency" {
		t.Fatalf("the keys moved the hidden editor's cursor to %s", v.editor.Key())
	}
}

// c shows what the lab's c shows — the scenario (name, file, description,
// source, timeline) and then every change, oldest first — and also what
// was refused, with the reason: a value typed in the editor, a timeline
// change refused when it applied, a control API request (issue 12.4).
func TestProxyChangesPanelShowsRefusedWithReason(t *testing.T) {
	sc, err := lab.LoadScenario("handover")
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeProxy(t)
	v, screen := openProxy(f, Options{Scenario: sc}, 80, 24, 10)
	proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0)) // up latency
	for _, r := range "-5ms" {
		proxyKey(v, tcell.NewEventKey(tcell.KeyRune, r, 0))
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0))
	typed := lab.CheckAssignment("up.latency", "-5ms")
	f.snap.Changes = append(f.snap.Changes,
		Change{At: 1500 * time.Millisecond, What: "up.loss=2%", By: "API"},
		Change{At: 1600 * time.Millisecond, What: "PUT /params: up.loss=250%", By: "API", Refused: "up.loss 250%: allowed 0% to 100%"},
		Change{At: 1700 * time.Millisecond, What: "down.rate=10kbit", Timeline: true, Refused: "down.rate: too low for the queue"})
	f.tick()
	v.advance(0)
	if want := "timeline refused +00:00:01.7 down.rate=10kbit: down.rate: too low for the queue"; untagged(v.status) != want {
		t.Errorf("status %q; want the newest refusal %q", untagged(v.status), want)
	}
	f.snap.Changes = append(f.snap.Changes, Change{At: 1800 * time.Millisecond, What: "PUT /params: up.loss=3%", By: "API"})
	f.tick()
	v.advance(0)
	if want := "API +00:00:01.8 PUT /params: up.loss=3%"; untagged(v.status) != want {
		t.Errorf("status %q; want the API's change %q", untagged(v.status), want)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'c', 0))
	drawProxy(v, screen)
	log := untagged(v.log.Text())
	var wants []string
	wants = append(wants, sc.Name+" ("+sc.File+")", sc.Description, "source: "+sc.Source)
	for _, c := range sc.Timeline {
		for _, s := range c.Set {
			wants = append(wants, fmt.Sprintf("timeline %v %s=%s", c.At, s.Key, s.Value))
		}
	}
	wants = append(wants,
		"+00:00:01.0 refused up.latency=-5ms: "+typed.Error(),
		"+00:00:01.5 API up.loss=2%",
		"+00:00:01.6 refused API PUT /params: up.loss=250%: up.loss 250%: allowed 0% to 100%",
		"+00:00:01.7 refused timeline down.rate=10kbit: down.rate: too low for the queue")
	at := 0
	for _, w := range wants {
		i := strings.Index(log[at:], w)
		if i < 0 {
			t.Fatalf("the changes panel lacks %q (in this order):\n%s", w, log)
		}
		at += i + len(w)
	}
	if !strings.Contains(strings.Join(strings.Fields(widget.ScreenText(screen)), " "), "refused") {
		t.Errorf("no refusal on screen:\n%s", widget.ScreenText(screen))
	}
}

// untagged is a TextView text without its colour tags.
func untagged(s string) string {
	return strings.ReplaceAll(regexp.MustCompile(`\[[a-z:\-]+\]`).ReplaceAllString(s, ""), "[]", "]")
}
