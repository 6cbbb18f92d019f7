package tui

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/batch"
	"jitterlab/internal/golden"
	"jitterlab/lab"
	"jitterlab/scenarios"
	"jitterlab/tui/widget"
)

// sizes are the terminal sizes the lab promises to work at: the terminal
// default, a common laptop window and a large one.
var sizes = []struct{ w, h int }{{80, 24}, {120, 40}, {200, 60}}

// scenarioConfig is the default configuration with the built-in scenario
// name applied, and the scenario.
func scenarioConfig(t testing.TB, name string) (lab.Config, *scenarios.Scenario) {
	t.Helper()
	sc, err := lab.LoadScenario(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg := lab.DefaultConfig()
	if err := lab.ApplyScenario(&cfg, sc); err != nil {
		t.Fatal(err)
	}
	return cfg, sc
}

// labAt is the lab as 'go run ./cmd/lab' starts it (the jitter-fix
// scenario, seed 1) on a simulated w×h terminal.
func labAt(t testing.TB, w, h int) (*App, tcell.SimulationScreen) {
	t.Helper()
	cfg, sc := scenarioConfig(t, "jitter-fix")
	cfg.Duration = 24 * time.Hour
	a, err := New(Options{Config: cfg, Scenario: sc, Name: sc.Name, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	screen := tcell.NewSimulationScreen("UTF-8")
	a.app.SetScreen(screen) // initialises the screen (no Init of our own)
	screen.SetSize(w, h)    // after SetScreen, which resets the size
	return a, screen
}

// sendKey delivers a key as tview's event loop does: the lab's key handler
// first, then the focused widget (the editor, a prompt or the help).
func sendKey(a *App, ev *tcell.EventKey) {
	if ev = a.app.GetInputCapture()(ev); ev == nil {
		return
	}
	if p := a.app.GetFocus(); p != nil {
		if h := p.InputHandler(); h != nil {
			h(ev, func(p tview.Primitive) { a.app.SetFocus(p) })
		}
	}
}

func press(a *App, r rune)         { sendKey(a, tcell.NewEventKey(tcell.KeyRune, r, 0)) }
func pressKey(a *App, k tcell.Key) { sendKey(a, tcell.NewEventKey(k, 0, 0)) }
func typeText(a *App, s string) {
	for _, r := range s {
		press(a, r)
	}
}

func TestScreenAtEverySize(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz.w, sz.h), func(t *testing.T) {
			t.Run("a refused value's reason is on screen", func(t *testing.T) {
				a, screen := labAt(t, sz.w, sz.h)
				a.advance(time.Second)
				pressKey(a, tcell.KeyEnter) // latency, up
				typeText(a, "-5ms")
				pressKey(a, tcell.KeyEnter)
				out := draw(a, screen)
				reason := lab.CheckAssignment("up.latency", "-5ms")
				if reason == nil {
					t.Fatal("-5ms accepted")
				}
				lines := widget.ScreenRows(screen)
				status := strings.Join(strings.Fields(lines[len(lines)-3]+" "+lines[len(lines)-2]), " ")
				if !strings.Contains(status, reason.Error()) {
					t.Fatalf("the whole refusal %q is not on the status rows:\n%s", reason, out)
				}
				if a.s.Config().Up.Latency != 50*time.Millisecond {
					t.Fatalf("a refused value changed the latency to %v", a.s.Config().Up.Latency)
				}
				if sz.w == 80 {
					golden.Check(t, filepath.Join("testdata", "refusal-80x24.txt"), []byte(out))
				}
			})
			t.Run("typing replaces the pre-filled value", func(t *testing.T) {
				a, screen := labAt(t, sz.w, sz.h)
				a.advance(time.Second)
				pressKey(a, tcell.KeyEnter) // pre-filled with 50ms
				typeText(a, "80ms")
				pressKey(a, tcell.KeyEnter)
				if got := a.s.Config().Up.Latency; got != 80*time.Millisecond {
					t.Fatalf("typing 80ms over 50ms set the session's up latency to %v", got)
				}
				out := draw(a, screen)
				if !strings.Contains(out, "up.latency = 80ms") {
					t.Fatalf("no confirmation on screen:\n%s", out)
				}
			})
			t.Run("preset 8 then 9 sets the whole link", func(t *testing.T) {
				a, screen := labAt(t, sz.w, sz.h)
				a.advance(time.Second)
				press(a, '8') // unreal-bad: 5 % loss
				if a.s.Config().Up.Loss != 0.05 {
					t.Fatalf("unreal-bad: up loss %v", a.s.Config().Up.Loss)
				}
				a.advance(time.Second)
				press(a, '9') // jitter-fix names no loss: the perfect link's 0
				if c := a.s.Config(); c.Up.Loss != 0 || c.Down.Loss != 0 {
					t.Fatalf("after jitter-fix the session's loss is up %v down %v, want 0", c.Up.Loss, c.Down.Loss)
				}
				out := draw(a, screen)
				if header := widget.ScreenRows(screen)[0]; !strings.Contains(header, "jitter-fix") || strings.Contains(header, "unreal-bad") {
					t.Fatalf("the header does not name the preset in force:\n%s", out)
				}
			})
			t.Run("the status line and the keys stay on screen", func(t *testing.T) {
				a, screen := labAt(t, sz.w, sz.h)
				a.advance(time.Second)
				a.status = "[red]a message"
				draw(a, screen)
				lines := widget.ScreenRows(screen)
				if status := lines[len(lines)-2]; !strings.Contains(status, "a message") || strings.Contains(lines[len(lines)-3], "message") {
					t.Fatalf("status row %q", status)
				}
				if keys := lines[len(lines)-1]; !strings.Contains(keys, "? help") || !strings.Contains(keys, "q quit") {
					t.Fatalf("keys row %q", keys)
				}
			})
			t.Run("golden", func(t *testing.T) {
				a, screen := labAt(t, sz.w, sz.h)
				for range 12 * 30 { // 12 s at 30 fps
					a.advance(time.Second / 30)
				}
				a.set("up.latency", "80ms")
				for range 3 * 30 {
					a.advance(time.Second / 30)
				}
				golden.Check(t, filepath.Join("testdata", fmt.Sprintf("lab-%dx%d.txt", sz.w, sz.h)), []byte(draw(a, screen)))
			})
		})
	}
}

func TestBelowTheMinimumSizeSaysSo(t *testing.T) {
	a, screen := labAt(t, 40, 12)
	a.advance(time.Second)
	out := draw(a, screen)
	want := fmt.Sprintf("terminal too small: need %d×%d", widget.MinWidth, widget.MinHeight)
	if !strings.Contains(out, want) {
		t.Fatalf("at 40×12 no %q:\n%s", want, out)
	}
	golden.Check(t, filepath.Join("testdata", "lab-40x12.txt"), []byte(out))
}

func TestEveryScreenRowFitsAtTheMinimum(t *testing.T) {
	a, screen := labAt(t, widget.MinWidth, widget.MinHeight)
	a.advance(2 * time.Second)
	out := draw(a, screen)
	// The charts' short names: the whole titles with their values do not fit.
	for _, want := range []string{"offset ─", "interval s ─", "vis error m ─", "rtt ms ─", "latency", "err p99", "? help", "q quit"} {
		if !strings.Contains(out, want) {
			t.Errorf("at %d×%d the screen lacks %q:\n%s", widget.MinWidth, widget.MinHeight, want, out)
		}
	}
}

func TestHelpScrollsToItsEnd(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	press(a, '?')
	out := draw(a, screen)
	if !strings.Contains(out, "help") || strings.Contains(out, widget.HelpLastLine) {
		t.Fatalf("help at 80×24 should show its start and scroll for the rest:\n%s", out)
	}
	for range 10 {
		pressKey(a, tcell.KeyPgDn)
	}
	if out = draw(a, screen); !strings.Contains(out, widget.HelpLastLine) {
		t.Fatalf("help's last line not reachable by PgDn:\n%s", out)
	}
	pressKey(a, tcell.KeyEscape)
	if out = draw(a, screen); strings.Contains(out, widget.HelpLastLine) || !strings.Contains(out, "tick offset") {
		t.Fatalf("Esc did not close help:\n%s", out)
	}
}

// Every prompt selects its pre-filled text: the A/B prompt too.
func TestPromptsReplaceTheirPrefilledText(t *testing.T) {
	a, _ := labAt(t, 80, 24)
	press(a, 'b') // pre-filled with server.inputs=queue
	typeText(a, "client.sender=accumulator")
	pressKey(a, tcell.KeyEnter)
	if a.ab == nil || strings.Join(a.ab.sets, " ") != "client.sender=accumulator" {
		t.Fatalf("A/B started with %v (status %q)", a.ab, a.status)
	}
	// Backspace on the selection clears it; an arrow keeps it to edit.
	pressKey(a, tcell.KeyEnter) // latency 50ms
	pressKey(a, tcell.KeyBackspace2)
	typeText(a, "70ms")
	pressKey(a, tcell.KeyEnter)
	pressKey(a, tcell.KeyEnter) // 70ms
	pressKey(a, tcell.KeyEnd)
	pressKey(a, tcell.KeyBackspace2)
	pressKey(a, tcell.KeyBackspace2)
	typeText(a, "5ms")
	pressKey(a, tcell.KeyEnter)
	if got := a.s.Config().Up.Latency; got != 705*time.Millisecond {
		t.Fatalf("up latency %v, want 705ms (70ms cleared and typed, then edited to 705ms)", got)
	}
}

func TestHelpGolden(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	press(a, '?')
	golden.Check(t, filepath.Join("testdata", "help-80x24.txt"), []byte(draw(a, screen)))
}

// c shows the scenario's description and source and the change log; the
// change is marked on the charts' time axis.
func TestChangeLogAndMarks(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	a.advance(5 * time.Second)
	a.set("up.loss", "2%")
	a.advance(5 * time.Second)
	press(a, 'c')
	out := draw(a, screen)
	for _, want := range []string{"jitter-fix (builtin/jitter-fix.toml)", "The reference client", "source:", "00:00:05.000 up.loss=2%", "changes (1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the change log lacks %q:\n%s", want, out)
		}
	}
	marks := 0
	for _, line := range widget.ScreenRows(screen) {
		if strings.HasPrefix(line, "└") {
			marks += strings.Count(line, "┴")
		}
	}
	if marks != 4 {
		t.Errorf("%d change marks on the charts' time axes, want one per chart:\n%s", marks, out)
	}
	golden.Check(t, filepath.Join("testdata", "changes-80x24.txt"), []byte(out))
	press(a, 'c')
	if out = draw(a, screen); !strings.Contains(out, "parameters") {
		t.Fatalf("c did not bring the editor back:\n%s", out)
	}
}

// Any terminal size draws without a panic: the lab, its help and a prompt,
// from 1×1 up; below the minimum the message (or as much of it as fits).
func TestEverySizeDraws(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	a.opts.Diagnose = DiagnoseOptions{Seeds: []uint64{1, 2}, Duration: 5 * time.Second}
	a.advance(3 * time.Second)
	press(a, 'p') // the report card in the side box throughout
	for _, overlay := range []rune{0, '?', 'b', 'd'} {
		if overlay != 0 {
			press(a, overlay)
		}
		for w := 1; w <= 221; w += 11 {
			for h := 1; h <= 71; h += 7 {
				screen.SetSize(w, h)
				out := draw(a, screen)
				if w >= widget.MinWidth && h >= widget.MinHeight && overlay == 0 && !strings.Contains(out, "q quit") {
					t.Fatalf("%d×%d: no key row:\n%s", w, h, out)
				}
				if (w < widget.MinWidth || h < widget.MinHeight) && w >= 32 && h >= 2 && !strings.Contains(out, "terminal too small") {
					t.Fatalf("%d×%d: no message:\n%s", w, h, out)
				}
			}
		}
		pressKey(a, tcell.KeyEscape) // closes the overlay (and cancels a running diagnosis)
	}
}

// unitAfterNumber is a break between a number ending one status row and a
// unit starting the next: "for 2" / "s at 20 s".
var (
	endsInNumber   = regexp.MustCompile(`(^|\s)[-+−]?[0-9][0-9.,]*$`)
	startsWithUnit = regexp.MustCompile(`^(ms|s|m|m/s|min|h|%|/min|/s|Hz|fps|bit/s|kbit/s|Mbit/s|Gbit/s|B|kB|KB|MB|x)([\s,.;:)]|$)`)
)

// TestStatusWrapsAtWordBoundaries: at 80 columns the status row wraps at
// word boundaries, never between a number and its unit, for the
// description of every built-in scenario (the status the lab opens with).
func TestStatusWrapsAtWordBoundaries(t *testing.T) {
	for _, name := range scenarios.BuiltinNames() {
		cfg, sc := scenarioConfig(t, name)
		cfg.Duration = 24 * time.Hour
		a, err := New(Options{Config: cfg, Scenario: sc, Name: sc.Name, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		screen := tcell.NewSimulationScreen("UTF-8")
		a.app.SetScreen(screen)
		screen.SetSize(80, 24)
		draw(a, screen)
		lines := widget.ScreenRows(screen)
		first, second := strings.TrimSpace(lines[len(lines)-3]), strings.TrimSpace(lines[len(lines)-2])
		if endsInNumber.MatchString(first) && startsWithUnit.MatchString(second) {
			t.Errorf("%s: the status row breaks between a number and its unit:\n%s\n%s", name, first, second)
		}
	}
}

// At 64×20 every chart's title still shows its value.
func TestChartTitlesKeepTheirValuesWhenNarrow(t *testing.T) {
	a, screen := labAt(t, 64, 20)
	a.advance(15 * time.Second)
	out := draw(a, screen)
	last := a.latest(1)[0]
	rtt := math.NaN()
	for _, x := range a.samples() {
		if !math.IsNaN(x.RTTMs) {
			rtt = x.RTTMs
		}
	}
	for _, want := range []string{
		fmt.Sprintf("─ %+d ", last.TickOffset),
		fmt.Sprintf("─ %.3f ", last.SendIntervalS),
		fmt.Sprintf("─ %.2f ", last.VisibleErrorM),
		fmt.Sprintf("─ %.0f ", rtt),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no title shows %q at 64×20:\n%s", want, out)
		}
	}
}

// A status longer than its two rows ends its second row with "…", cut at
// a word, never mid-sentence without a mark; one that fits is whole.
func TestLongStatusEndsWithAnEllipsis(t *testing.T) {
	for _, w := range []int{64, 80} {
		a, screen := labAt(t, w, 24)
		a.advance(time.Second)
		press(a, 'b')
		typeText(a, "sim.seed=3")
		pressKey(a, tcell.KeyEnter)
		draw(a, screen)
		lines := widget.ScreenRows(screen)
		first, second := lines[len(lines)-3], strings.TrimRight(lines[len(lines)-2], " ")
		if !strings.Contains(first, "A/B: sim.seed cannot differ") {
			t.Fatalf("%d columns: the refusal is not on the status rows:\n%s", w, widget.ScreenText(screen))
		}
		whole := strings.Join(strings.Fields(a.status[len("[red]"):]), " ")
		shown := strings.Join(strings.Fields(first+" "+second), " ")
		if shown != whole && !strings.HasSuffix(second, "…") {
			t.Errorf("%d columns: the status is cut without …:\n%s\n%s", w, first, second)
		}
		if strings.HasSuffix(second, "…") && !strings.HasPrefix(whole, strings.TrimSuffix(shown, "…")) {
			t.Errorf("%d columns: the shown part %q is not the start of %q", w, shown, whole)
		}
	}
}

// A refused value keeps the field open with what was typed, to correct:
// the reason is on the status line; the corrected value then applies.
// A refused A/B setting does the same.
func TestRefusedValueStaysToCorrect(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	a.advance(time.Second)
	pressKey(a, tcell.KeyEnter) // latency, up
	typeText(a, "-5ms")
	pressKey(a, tcell.KeyEnter)
	field, ok := a.app.GetFocus().(*tview.InputField)
	if !a.pages.HasPage("prompt") || !ok || field.GetText() != "-5ms" {
		t.Fatalf("the refused value's field closed or lost the text (focus %T)", a.app.GetFocus())
	}
	if out := draw(a, screen); !strings.Contains(out, "bad value \"-5ms\"") {
		t.Fatalf("no reason on screen:\n%s", out)
	}
	for range 4 {
		pressKey(a, tcell.KeyBackspace2)
	}
	typeText(a, "5ms")
	pressKey(a, tcell.KeyEnter)
	if a.pages.HasPage("prompt") || a.s.Config().Up.Latency != 5*time.Millisecond {
		t.Fatalf("the corrected 5ms: prompt open %v, up latency %v", a.pages.HasPage("prompt"), a.s.Config().Up.Latency)
	}
	press(a, 'b')
	typeText(a, "server.inputs=sometimes")
	pressKey(a, tcell.KeyEnter)
	if field, ok := a.app.GetFocus().(*tview.InputField); !ok || field.GetText() != "server.inputs=sometimes" || a.ab != nil {
		t.Fatalf("the refused B setting's field closed or lost the text")
	}
	pressKey(a, tcell.KeyEscape)
	if a.pages.HasPage("prompt") || a.editing {
		t.Fatal("Esc did not close the field")
	}
}

// wrapTagged counts no columns for tags, breaks at spaces, and fills a
// line with a word wider than it before going on.
func TestWrapTagged(t *testing.T) {
	cases := []struct {
		text string
		w    int
		want []string
	}{
		{" [red]ab cd[-] ef", 6, []string{" [red]ab cd[-]", "ef"}},
		{" ab abcdefgh", 5, []string{" ab a", "bcdef", "gh"}},
		{"abc", 5, []string{"abc"}},
	}
	for _, c := range cases {
		if got := wrapTagged(c.text, c.w); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrapTagged(%q, %d) = %q, want %q", c.text, c.w, got, c.want)
		}
	}
	if got := cutAtWord("one two three four", 12); got != "one two …" {
		t.Errorf("cutAtWord: %q", got)
	}
}

// The A/B box shows every figure it compares, at 80×24 and 120×40: its
// six lines held the column header and five of six figures, the last
// (visible lag p50 ms) cut off by the box's border.
func TestABBoxShowsEveryFigure(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		a, screen := labAt(t, sz.w, sz.h)
		press(a, 'b')
		pressKey(a, tcell.KeyEnter) // server.inputs=queue
		a.advance(2 * time.Second)
		out := draw(a, screen)
		for _, m := range abMetrics {
			if !regexp.MustCompile(`│ ` + regexp.QuoteMeta(m) + ` +[-0-9.]+ +[-0-9.]+ +│`).MatchString(out) {
				t.Errorf("%d×%d: the A/B box does not show %q:\n%s", sz.w, sz.h, m, out)
			}
		}
	}
}

// Issue 22: the A/B box names its figures as lab ab names them (it said
// "judder m/s" where lab ab says judder_mps).
func TestABBoxNamesFiguresAsLabAB(t *testing.T) {
	for _, name := range abMetrics {
		if !slices.ContainsFunc(batch.Metrics, func(m batch.Metric) bool { return m.Name == name }) {
			t.Errorf("the A/B box's %q is not a metric lab ab shows", name)
		}
	}
}
