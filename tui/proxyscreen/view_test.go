package proxyscreen

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/internal/golden"
	"jitterlab/lab"
	"jitterlab/tui/widget"
)

// fakeProxy is a relay in a test: links held as a lab configuration (the
// registry's keys and errors, as --set), and a game stream of 60 packets/s
// each way whose counters and delays the test moves on with tick.
type fakeProxy struct {
	cfg     lab.Config
	snap    Snapshot
	n       int
	applied [][2]string
	burst   bool    // the game sends 2 packets every other 100 ms (10/s) instead of 6 each
	added   float64 // ms added to every up delay (a link changed live)
	lossN   int     // up loses one packet in lossN (0: one in 50)
}

func newFakeProxy(t *testing.T) *fakeProxy {
	cfg := lab.DefaultConfig()
	for _, kv := range [][2]string{{"link.latency", "50ms"}, {"link.jitter", "20ms"}, {"up.loss", "2%"}} {
		if err := lab.Set(&cfg, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return &fakeProxy{cfg: cfg, snap: Snapshot{Listen: "127.0.0.1:7777", Target: "127.0.0.1:7778", Clients: 1,
		Up: Dir{LossBursts: 0}, Down: Dir{LossBursts: -1, Bytes: -1, JitterMs: math.NaN()}}}
}

// tick moves the relay on 100 ms: 6 packets each way; up loses one in 50
// and delays 40–70 ms in a saw; down's delays are not measured.
func (f *fakeProxy) tick() {
	f.snap.Wall += 100 * time.Millisecond
	u, d := &f.snap.Up, &f.snap.Down
	u.DelaysMs, d.DelaysMs = nil, nil
	count := 6
	if f.burst {
		count = 2 * (int(f.snap.Wall/(100*time.Millisecond)) % 2)
	}
	for range count {
		f.n++
		u.In++
		d.In++
		d.Delivered++
		if every := cmp.Or(f.lossN, 50); f.n%every == 0 {
			u.Lost++
			u.LossBursts++
			continue
		}
		u.Delivered++
		u.Bytes += 120
		u.DelaysMs = append(u.DelaysMs, 40+float64(f.n%31)+f.added)
	}
	if f.n%120 == 0 {
		u.Reordered++
	}
	u.JitterMs = 8.25
	u.ArrivalJitterMs = 1 + float64(f.n%7)/10
	d.ArrivalJitterMs = 2.5
}

// Snapshot hands the delays since the previous one over once, as a relay does.
func (f *fakeProxy) Snapshot() Snapshot {
	s := f.snap
	s.Changes = append([]Change(nil), s.Changes...)
	f.snap.Up.DelaysMs, f.snap.Down.DelaysMs = nil, nil
	return s
}

func (f *fakeProxy) Get(key string) string {
	p, _ := lab.Lookup(key)
	return p.Get(&f.cfg)
}

func (f *fakeProxy) Apply(sets [][2]string) error {
	next := f.cfg
	for _, kv := range sets {
		if err := lab.Set(&next, kv[0], kv[1]); err != nil {
			return err
		}
	}
	if err := next.Validate(); err != nil {
		return err
	}
	f.cfg = next
	f.applied = append(f.applied, sets...)
	for _, kv := range sets {
		f.snap.Changes = append(f.snap.Changes, Change{At: f.snap.Wall, What: kv[0] + "=" + kv[1]})
	}
	return nil
}

// proxyAt is the proxy's screen over a fake relay on a w×h terminal after
// 40 s of traffic.
func proxyAt(t *testing.T, w, h int) (*View, *fakeProxy, tcell.SimulationScreen) {
	t.Helper()
	f := newFakeProxy(t)
	v, screen := openProxy(f, Options{}, w, h, 400)
	return v, f, screen
}

// tickingSource is a fake relay a test moves on 100 ms at a time.
type tickingSource interface {
	Source
	tick()
}

// openProxy opens the proxy screen on src in a w×h simulated terminal and
// moves src on n ticks, the screen following each.
func openProxy(src tickingSource, opts Options, w, h, n int) (*View, tcell.SimulationScreen) {
	v := New(src, opts)
	screen := tcell.NewSimulationScreen("UTF-8")
	v.app.SetScreen(screen)
	screen.SetSize(w, h)
	for range n {
		src.tick()
		v.advance(0)
	}
	return v, screen
}

func drawProxy(v *View, s tcell.SimulationScreen) string {
	v.refresh()
	v.app.ForceDraw()
	return widget.ScreenText(s)
}

func proxyKey(v *View, ev *tcell.EventKey) {
	if ev = v.app.GetInputCapture()(ev); ev == nil {
		return
	}
	if p := v.app.GetFocus(); p != nil {
		if h := p.InputHandler(); h != nil {
			h(ev, func(p tview.Primitive) { v.app.SetFocus(p) })
		}
	}
}

// The screen shows per direction the link as set beside the realised one
// (a dash where the relay measures nothing), the three charts, the editor,
// the status line and the keys, at 80×24 and 120×40.
func TestProxyScreenAtBothSizes(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			v, _, screen := proxyAt(t, sz.w, sz.h)
			out := drawProxy(v, screen)
			last := v.samples[len(v.samples)-1] // the last second's copies and bits out
			for _, want := range []string{
				"jitterlab proxy ─ 127.0.0.1:7777 → 127.0.0.1:7778 ─ clients 1 ─ up 00:00:40.0",
				"added delay (ms) ─ up 55.0, dn –", "packets/s in ─ up 60, dn 60", "jitter in (ms) ─ up 1.6, dn 2.5",
				// The set row: the model's delay p50 and p99 for 50 ms ±
				// 20 ms uniform, and the RFC 3550 jitter it gives in the
				// long run, 2a/3.
				" up set        ≈50.0  ≈69.6  ≈13.3     2%     0      0%    0%",
				// Over the last 10 s: delays in a saw of 40–70 ms (p50 55, p99 70),
				// 600 datagrams of which one in 50 lost (2.0 %, runs of 1), one
				// in 120 reordered (5 of 588 delivered: 0.9 %).
				fmt.Sprintf("    real        55.0   70.0    8.2   2.0%%   1.0    0.9%%  0.0%%     %.0f    %.1f", last.outRate[0], last.kbit[0]),
				" down set      ≈50.0  ≈69.6  ≈13.3     0%     0      0%    0%",
				"    real           –      –      –   0.0%     –    0.0%  0.0%     60       –",
				"latency       50ms         50ms", "? help", "q quit"} {
				if !strings.Contains(out, want) {
					t.Errorf("the screen lacks %q:\n%s", want, out)
				}
			}
			golden.Check(t, filepath.Join("testdata", fmt.Sprintf("proxy-%dx%d.txt", sz.w, sz.h)), []byte(out))
		})
	}
}

// The editor changes the relay's links now, with the lab's keys, values
// and refusals; a preset sets both links as a whole.
func TestProxyEditorChangesTheLinksLive(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0)) // up latency, pre-filled
	for _, r := range "80ms" {
		proxyKey(v, tcell.NewEventKey(tcell.KeyRune, r, 0))
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0))
	if f.cfg.Up.Latency != 80*time.Millisecond {
		t.Fatalf("typing 80ms set the up latency to %v", f.cfg.Up.Latency)
	}
	out := drawProxy(v, screen)
	if !strings.Contains(out, "up.latency = 80ms at +00:00:40.0") || !strings.Contains(out, "up set        ≈80.0") {
		t.Fatalf("no confirmation or new value on screen:\n%s", out)
	}

	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, '+', 0))
	if f.cfg.Up.Latency != 85*time.Millisecond {
		t.Fatalf("+ stepped the up latency to %v", f.cfg.Up.Latency)
	}

	proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0))
	for _, r := range "-5ms" {
		proxyKey(v, tcell.NewEventKey(tcell.KeyRune, r, 0))
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyEnter, 0, 0))
	reason := lab.CheckAssignment("up.latency", "-5ms")
	out = drawProxy(v, screen)
	// The status keeps to its one row: the reason as far as it fits, cut
	// with "…" (the changes panel, c, has it whole).
	lines := widget.ScreenRows(screen)
	status := strings.TrimSpace(lines[len(lines)-2])
	if reason == nil || !strings.HasPrefix(reason.Error(), strings.TrimSuffix(status, "…")) || len(status) < 60 || f.cfg.Up.Latency != 85*time.Millisecond {
		t.Fatalf("the refusal %v is not on the status row, or it changed the link (%v):\n%s", reason, f.cfg.Up.Latency, out)
	}

	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, '6', 0)) // mobile-4g
	sc, err := lab.LoadScenario("mobile-4g")
	want := lab.DefaultConfig()
	if err == nil {
		err = lab.ApplyScenario(&want, sc)
	}
	if err != nil {
		t.Fatal(err)
	}
	if f.cfg.Up != want.Up || f.cfg.Down != want.Down {
		t.Fatalf("preset 6 left the links at\n%+v\n%+v\nwant mobile-4g's\n%+v\n%+v", f.cfg.Up, f.cfg.Down, want.Up, want.Down)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'c', 0))
	if out = drawProxy(v, screen); !strings.Contains(out, "up.latency=80ms") || !strings.Contains(out, "changes (") {
		t.Fatalf("c does not list the changes:\n%s", out)
	}
}

// ? shows the proxy's keys and what the charts mean; Esc closes it.
func TestProxyHelp(t *testing.T) {
	v, _, screen := proxyAt(t, 80, 24)
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, '?', 0))
	out := drawProxy(v, screen)
	if !strings.Contains(out, "select a link parameter") {
		t.Fatalf("no help:\n%s", out)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyEscape, 0, 0))
	if out = drawProxy(v, screen); strings.Contains(out, "select a link parameter") || !strings.Contains(out, "added delay") {
		t.Fatalf("Esc did not close the help:\n%s", out)
	}
}

// Any terminal size draws: the screen from the minimum up, the message
// below it.
func TestProxyEverySizeDraws(t *testing.T) {
	v, _, screen := proxyAt(t, 80, 24)
	for w := 1; w <= 221; w += 11 {
		for h := 1; h <= 71; h += 7 {
			screen.SetSize(w, h)
			out := drawProxy(v, screen)
			if w >= widget.MinWidth && h >= widget.MinHeight && !strings.Contains(out, "q quit") {
				t.Fatalf("%d×%d: no key row:\n%s", w, h, out)
			}
			if (w < widget.MinWidth || h < widget.MinHeight) && w >= 32 && h >= 2 && !strings.Contains(out, "terminal too small") {
				t.Fatalf("%d×%d: no message:\n%s", w, h, out)
			}
		}
	}
}

// When the relay stops (its --duration ended) the screen ends too.
func TestProxyScreenEndsWithTheRelay(t *testing.T) {
	v, f, _ := proxyAt(t, 80, 24)
	if v.ended {
		t.Fatal("ended while relaying")
	}
	f.snap.Stopped = true
	f.tick()
	v.advance(0)
	if !v.ended {
		t.Fatal("the screen did not end with the relay")
	}
}

// A game's packets come in bursts: the rate is over the last second, so a
// stream of 2 packets every other 100 ms reads a steady 10/s.
func TestProxyRateIsSteadyOverBursts(t *testing.T) {
	f := newFakeProxy(t)
	f.burst = true
	v := New(f, Options{})
	for range 100 {
		f.tick()
		v.advance(0)
	}
	for i, x := range v.samples[20:] {
		if x.rate != [2]float64{10, 10} {
			t.Fatalf("sample %d: %v packets/s, want a steady 10 each way", 20+i, x.rate)
		}
	}
}

// A scenario's timeline change is announced on the status line as it
// applies, and the change list marks it.
func TestProxyTimelineChangeOnTheStatusLine(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	f.snap.Changes = append(f.snap.Changes, Change{At: 40 * time.Second, What: "link.latency=200ms", Timeline: true})
	f.tick()
	v.advance(0)
	out := drawProxy(v, screen)
	if !strings.Contains(out, "timeline +00:00:40.0 link.latency=200ms") {
		t.Fatalf("no timeline change on the status line:\n%s", out)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'c', 0))
	if out = drawProxy(v, screen); !strings.Contains(out, "+00:00:40.0 timeline link.latency=200ms") {
		t.Fatalf("the change list does not mark the timeline's change:\n%s", out)
	}
}

// A new kind of socket error (the game server not answering) is said on
// the status line once; the header counts them.
func TestProxyNewErrorKindOnTheStatusLine(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	msg := "the server 127.0.0.1:7778 is not answering (ICMP port unreachable)"
	f.snap.Errors, f.snap.ErrorKinds = 3, []string{msg}
	f.tick()
	v.advance(0)
	out := drawProxy(v, screen)
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "relay: "+msg) || !strings.Contains(widget.ScreenRows(screen)[0], "errors 3") {
		t.Fatalf("no error on the status line or count in the header:\n%s", out)
	}
	v.status = "something else"
	f.tick()
	v.advance(0)
	if v.status != "something else" {
		t.Fatalf("the same error kind was announced again: %q", v.status)
	}
}

// The realised row follows a live change (issue 12.1): after the up link
// goes from 40–70 ms to 190–220 ms and from 2 % to 20 % loss, the "real"
// row and the delay chart's title read the new link within seconds, not
// the whole run's mix, and the box says over which span.
func TestProxyRealisedFollowsALiveChange(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	if err := v.set("up.latency", "200ms"); err != nil {
		t.Fatal(err)
	}
	f.added, f.lossN = 150, 5
	for range 30 { // 3 s
		f.tick()
		v.advance(0)
	}
	out := drawProxy(v, screen)
	m := regexp.MustCompile(`(?m)^│    real\s+(\S+)\s+(\S+)\s+\S+\s+(\S+)%`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no real row:\n%s", out)
	}
	p50, _ := strconv.ParseFloat(m[1], 64)
	p99, _ := strconv.ParseFloat(m[2], 64)
	loss, _ := strconv.ParseFloat(m[3], 64)
	if p50 < 190 || p50 > 220 || p99 < 190 || p99 > 221 || loss < 15 || loss > 25 {
		t.Errorf("3 s after the change: real p50 %s p99 %s loss %s%%; want 190–220 ms and about 20 %%:\n%s", m[1], m[2], m[3], out)
	}
	if !strings.Contains(out, "added delay (ms) ─ up 2") {
		t.Errorf("the delay chart's title does not give the new p50:\n%s", out)
	}
	if !strings.Contains(out, "(real: since +00:00:40.0)") {
		t.Errorf("the box does not say the realised figures start at the change:\n%s", out)
	}
}

// R on the proxy screen (issue 12.4) starts and stops a recording through
// the run's hook and says so on the status line, a refusal in red; the help
// and the key row list it.
func TestProxyRRecords(t *testing.T) {
	f := newFakeProxy(t)
	calls := 0
	v := New(f, Options{Record: func() (string, error) {
		calls++
		if calls == 2 {
			return "", fmt.Errorf("disk full")
		}
		return fmt.Sprintf("recording to r%d.jlrec (R stops)", calls), nil
	}})
	screen := tcell.NewSimulationScreen("UTF-8")
	v.app.SetScreen(screen)
	screen.SetSize(120, 40)
	f.tick()
	v.advance(0)
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'R', 0))
	if out := drawProxy(v, screen); calls != 1 || !strings.Contains(out, "recording to r1.jlrec (R stops)") || !strings.Contains(out, "R record") {
		t.Fatalf("R called the hook %d times; the screen:\n%s", calls, out)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'R', 0))
	if out := drawProxy(v, screen); !strings.Contains(out, "record: disk full") {
		t.Fatalf("a failed R is not on the status line:\n%s", out)
	}
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, '?', 0))
	if out := drawProxy(v, screen); !strings.Contains(out, "R         record the relayed traffic") {
		t.Fatalf("the help does not list R:\n%s", out)
	}
}

// Once the game stops sending, the arrival jitter is not measured any
// more: the chart's title and its newest column say so ("–"), rather than
// repeating the last figure for as long as the relay idles (issue 12.1).
func TestProxyIdleArrivalJitterIsNotMeasured(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	f.idle(v, 20) // 2 s without a datagram (the fake's source keeps its last jitter)
	out := drawProxy(v, screen)
	if !strings.Contains(out, "jitter in (ms) ─ up –, dn –") {
		t.Errorf("2 s idle: the arrival jitter still reads a figure:\n%s", out)
	}
	if x := v.samples[len(v.samples)-1]; !math.IsNaN(x.jitter[0]) || !math.IsNaN(x.jitter[1]) {
		t.Errorf("2 s idle: the newest sample's jitter %v; want not measured", x.jitter)
	}
}

// While a recording runs (R's, or --record's from the start) the header
// says so, as the lab's does, whatever the status line says meanwhile.
func TestProxyHeaderShowsTheRecording(t *testing.T) {
	v, f, screen := proxyAt(t, 80, 24)
	if out := drawProxy(v, screen); strings.Contains(out, "● REC") {
		t.Fatalf("REC with no recording:\n%s", out)
	}
	f.snap.Recording = "jitterlab-proxy-20261122-094508.jlrec"
	f.tick()
	v.advance(0)
	v.status = "timeline +00:00:40.1 link.latency=60ms" // the status line moved on
	if header := widget.ScreenRows(screen)[0]; !strings.Contains(drawProxy(v, screen), "● REC") || !strings.Contains(widget.ScreenRows(screen)[0], "● REC") {
		t.Fatalf("no REC in the header while recording: %q", header)
	}
}
