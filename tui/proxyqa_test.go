package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"jitterlab/lab"
)

// idle moves the fake relay on n×100 ms with no traffic at all.
func (f *fakeProxy) idle(v *ProxyView, n int) {
	for range n {
		f.snap.Wall += 100 * time.Millisecond
		f.snap.Up.DelaysMs, f.snap.Down.DelaysMs = nil, nil
		v.advance(0)
	}
}

// realRow is a direction's "real" row of the configured-and-realised box:
// its pkt/s and kbit/s cells.
func realRow(t *testing.T, out string, dir int) (pkts, kbit string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^│    real .*\s(\S+)\s+(\S+)\s+│$`).FindAllStringSubmatch(out, -1)
	if len(m) != 2 {
		t.Fatalf("no real rows:\n%s", out)
	}
	return m[dir][1], m[dir][2]
}

// pkt/s and kbit/s are the same window, the last second (issue 12.4):
// while the game sends they agree (120 payload bytes a packet), and once
// it stops both read 0, not a rate of 0 beside the whole run's bit rate.
func TestProxyPacketAndBitRatesShareOneWindow(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	pkts, kbit := realRow(t, drawProxy(v, screen), 0)
	// 6 packets a 100 ms, one in 50 lost: 58 to 60 delivered in the last
	// second, each of 120 bytes.
	if n, _ := strconv.Atoi(pkts); n < 58 || n > 60 || kbit != fmt.Sprintf("%.1f", float64(n)*120*8/1000) {
		t.Errorf("while relaying: up pkt/s %s, kbit/s %s; want 58 to 60 (one in 50 lost) and 120 B × 8 × that", pkts, kbit)
	}
	f.idle(v, 20)
	out := drawProxy(v, screen)
	if pkts, kbit := realRow(t, out, 0); pkts != "0" || kbit != "0.0" {
		t.Errorf("2 s after the traffic stopped: up pkt/s %s, kbit/s %s; want 0 and 0.0:\n%s", pkts, kbit, out)
	}
	if pkts, kbit := realRow(t, out, 1); pkts != "0" || kbit != "–" {
		t.Errorf("down (bytes not measured): pkt/s %s, kbit/s %s; want 0 and –", pkts, kbit)
	}
}

// A chart of nothing but zeros (no traffic for its whole window) is drawn
// from 0 up: no axis label below zero (issue 12.4).
func TestProxyIdleChartHasNoNegativeAxis(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	f.idle(v, 400)
	out := drawProxy(v, screen)
	if regexp.MustCompile(`│\s+-\d`).MatchString(out) || !strings.Contains(out, "packets/s in ─ up 0, dn 0") {
		t.Errorf("an idle relay's charts have a negative axis label:\n%s", out)
	}
}

// The help's paragraph about the charts wraps at the box's edge, not in
// the middle of a line (issue 12.4): at 80×24 every line of it but its
// last is full as far as the next word allows.
func TestProxyHelpWrapsAtTheBoxEdge(t *testing.T) {
	v, _, screen := proxyAt(t, 80, 24)
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, '?', 0))
	for range 40 { // to the end of the help: the paragraph shows whole
		proxyKey(v, tcell.NewEventKey(tcell.KeyDown, 0, 0))
	}
	drawProxy(v, screen)
	var para []string
	for _, l := range rows(screen) {
		inner := strings.TrimRight(strings.Trim(l, "║"), " ")
		if strings.HasPrefix(inner, "Charts,") || len(para) > 0 && inner != "" && !strings.HasPrefix(inner, "═") {
			para = append(para, inner)
		} else if len(para) > 0 {
			break
		}
	}
	width := len([]rune(strings.Trim(rows(screen)[1], "║")))
	if len(para) < 3 {
		t.Fatalf("no chart paragraph in the help: %q", para)
	}
	for i := 0; i+1 < len(para); i++ {
		next := strings.Fields(para[i+1])[0]
		if len([]rune(para[i]))+1+len([]rune(next)) < width { // tview keeps the last column free

			t.Errorf("the help breaks the line %q before %q, which fits in %d columns", para[i], next, width)
		}
	}
}

// untagged is a TextView text without its colour tags.
func untagged(s string) string {
	return strings.ReplaceAll(regexp.MustCompile(`\[[a-z:\-]+\]`).ReplaceAllString(s, ""), "[]", "]")
}

// c shows what the lab's c shows — the scenario (name, file, description,
// source, timeline) and then every change, oldest first — and also what
// was refused, with the reason: a value typed in the editor, a timeline
// change refused when it applied, a control API request (issue 12.4).
func TestProxyChangesPanelShowsRefusedWithReason(t *testing.T) {
	_, sc := scenarioConfig(t, "handover")
	f := newFakeProxy(t)
	v, screen := openProxy(f, ProxyOptions{Scenario: sc}, 80, 24, 10)
	proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0)) // up latency
	for _, r := range "-5ms" {
		proxyKey(v, tcell.NewEventKey(tcell.KeyRune, r, 0))
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0))
	typed := lab.CheckAssignment("up.latency", "-5ms")
	f.snap.Changes = append(f.snap.Changes,
		ProxyChange{At: 1500 * time.Millisecond, What: "up.loss=2%", By: "API"},
		ProxyChange{At: 1600 * time.Millisecond, What: "PUT /params: up.loss=250%", By: "API", Refused: "up.loss 250%: allowed 0% to 100%"},
		ProxyChange{At: 1700 * time.Millisecond, What: "down.rate=10kbit", Timeline: true, Refused: "down.rate: too low for the queue"})
	f.tick()
	v.advance(0)
	if want := "timeline refused +00:00:01.7 down.rate=10kbit: down.rate: too low for the queue"; untagged(v.status) != want {
		t.Errorf("status %q; want the newest refusal %q", untagged(v.status), want)
	}
	f.snap.Changes = append(f.snap.Changes, ProxyChange{At: 1800 * time.Millisecond, What: "PUT /params: up.loss=3%", By: "API"})
	f.tick()
	v.advance(0)
	if want := "API +00:00:01.8 PUT /params: up.loss=3%"; untagged(v.status) != want {
		t.Errorf("status %q; want the API's change %q", untagged(v.status), want)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'c', 0))
	drawProxy(v, screen)
	log := untagged(v.log.text)
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
	if !strings.Contains(strings.Join(strings.Fields(screenText(screen)), " "), "refused") {
		t.Errorf("no refusal on screen:\n%s", screenText(screen))
	}
}
