package tui

import (
	"encoding/csv"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/tui/widget"
)

func newApp(t *testing.T) (*App, tcell.SimulationScreen) {
	t.Helper()
	cfg := lab.DefaultConfig()
	cfg.Duration = time.Hour
	for _, kv := range [][2]string{{"link.latency", "50ms"}, {"link.jitter", "20ms"}} {
		if err := lab.Set(&cfg, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	a, err := New(Options{Config: cfg, Name: "test", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	screen := tcell.NewSimulationScreen("UTF-8")
	a.app.SetScreen(screen) // initialises the screen (no Init of our own)
	screen.SetSize(130, 40) // after SetScreen, which resets the size
	return a, screen
}

func draw(a *App, s tcell.SimulationScreen) string {
	a.refresh()
	a.app.ForceDraw()
	return widget.ScreenText(s)
}

func TestLiveViewShowsChartsEditorAndSummary(t *testing.T) {
	a, screen := newApp(t)
	a.advance(2 * time.Second)
	a.advance(0) // lay out the charts with their real widths
	out := draw(a, screen)
	for _, want := range []string{"jitterlab ─ test ─ seed 1 ─ t 00:00:02.000 ─ 1×", "▶ running",
		"tick offset", "+2 ┈", "-2 ┈", "send interval (s)", ".048 ┈", ".052 ┈",
		"visible error (m)", "0.5 ┈", "rtt (ms)",
		"latency       50ms         50ms", "trace         none         none", "err p99", "space pause", "R rec"} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %q:\n%s", want, out)
		}
	}
	braille := 0
	for _, r := range out {
		if r > 0x2800 && r <= 0x28FF {
			braille++
		}
	}
	if braille < 20 {
		t.Errorf("only %d braille cells: the charts were not drawn:\n%s", braille, out)
	}
}

func TestKeys(t *testing.T) {
	a, screen := newApp(t)
	press := func(r rune) { a.onKey(tcell.NewEventKey(tcell.KeyRune, r, 0)) }
	key := func(k tcell.Key) { a.onKey(tcell.NewEventKey(k, 0, 0)) }

	t.Run("speed", func(t *testing.T) {
		press('>')
		start := a.s.Now()
		a.advance(time.Second)
		if got := a.s.Now() - start; got != sim.Time(2*time.Second) {
			t.Fatalf("at 2× one wall second simulated %v", time.Duration(got))
		}
		press('<')
	})
	t.Run("pause", func(t *testing.T) {
		press(' ')
		start := a.s.Now()
		a.advance(time.Second)
		if a.s.Now() != start || !strings.Contains(draw(a, screen), "❚❚ paused") {
			t.Fatal("paused lab advanced or does not say so")
		}
	})
	t.Run("step a value in each direction", func(t *testing.T) {
		press('+') // latency, up
		key(tcell.KeyRight)
		press('-') // latency, down
		if c := a.s.Config(); c.Up.Latency != 55*time.Millisecond || c.Down.Latency != 45*time.Millisecond {
			t.Fatalf("latency up %v down %v, want 55ms and 45ms", c.Up.Latency, c.Down.Latency)
		}
		if ch := a.s.Changes(); len(ch) != 2 || ch[0].Key != "up.latency" || ch[1].Value != "45ms" {
			t.Fatalf("change log %+v", ch)
		}
		key(tcell.KeyDown) // jitter
		key(tcell.KeyDown) // distribution
		press('+')
		if a.s.Config().Down.JitterDist.String() != "normal" {
			t.Fatalf("distribution stepped to %v", a.s.Config().Down.JitterDist)
		}
	})
	t.Run("a bad value is refused with a message", func(t *testing.T) {
		before := a.s.Config()
		if err := a.set("up.loss", "150%"); err == nil {
			t.Fatal("150% loss accepted")
		}
		if a.s.Config().Up != before.Up || !strings.Contains(draw(a, screen), `up.loss: bad value "150%"`) {
			t.Fatal("the refused value changed the config or was not reported")
		}
	})
	t.Run("preset", func(t *testing.T) {
		press('6') // mobile-4g
		if c := a.s.Config(); c.Up.Latency != 100*time.Millisecond || c.Down.Loss != 0.04 {
			t.Fatalf("preset mobile-4g: %+v", c.Up)
		}
	})
	t.Run("export", func(t *testing.T) {
		press(' ') // run again
		a.advance(3 * time.Second)
		press('e')
		files, _ := filepath.Glob(filepath.Join(a.opts.Dir, "*.csv"))
		if len(files) != 1 {
			t.Fatalf("export wrote %v", files)
		}
		f, _ := os.Open(files[0])
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil || strings.Join(rows[0], ",") != strings.Join(metrics.Columns, ",") || len(rows)-1 != len(a.samples()) {
			t.Fatalf("export: %d rows for %d samples, err %v", len(rows)-1, len(a.samples()), err)
		}
	})
	t.Run("record", func(t *testing.T) {
		press('R')
		if !strings.Contains(draw(a, screen), "● REC") {
			t.Fatal("recording not shown in the header")
		}
		press('+') // a live change while recording
		a.advance(2 * time.Second)
		press('R')
		files, _ := filepath.Glob(filepath.Join(a.opts.Dir, "*.jlrec"))
		if len(files) != 1 {
			t.Fatalf("recording files %v", files)
		}
		v, err := lab.Verify(openRecording(t, files[0]), lab.Untrusted)
		if err != nil || v.Samples != len(a.samples()) || v.Changes != len(a.s.Changes()) || !v.SummaryOK {
			t.Fatalf("the TUI's recording does not verify: %+v %v", v, err)
		}
	})
	t.Run("restart", func(t *testing.T) {
		press('r')
		if a.s.Now() != 0 || len(a.samples()) != 0 {
			t.Fatal("restart did not start over")
		}
	})
}

func TestStepValue(t *testing.T) {
	cases := []struct {
		key, cur string
		dir      int
		want     string
	}{
		{"up.latency", "0", -1, "0"},
		{"up.latency", "50ms", 1, "55ms"},
		{"up.jitter", "10ms", -1, "9ms"},
		{"up.jitter", "10ms", 1, "15ms"},
		{"up.loss", "0%", -1, "0%"},
		{"up.loss", "4%", 1, "4.5%"},
		{"up.jitter_corr", "0.9", 1, "1"},
		{"up.loss_burst", "0", 1, "2"},
		{"up.loss_burst", "3", 1, "2"},
		{"up.keep_order", "false", 1, "true"},
		{"client.corrector", "dilation", 1, "deadband"},
		{"client.sender", "frame", -1, "accumulator"},
		{"client.drift_ppm", "0ppm", 1, "+10ppm"},
		{"down.rate", "0", 1, "64kbit"},
		{"view.interp_delay", "100ms", 1, "110ms"},
		{"view.interp_delay", "100ms", -1, "95ms"},
		{"client.fixed_cost", "0", 1, "1ms"},
		{"server.broadcast", "1", -1, "1"},
		{"client.redundancy", "4", 1, "unacked"},
		{"client.redundancy", "unacked", 1, "1"},
		{"client.max_catchup", "off", -1, "100ms"},
		{"client.dilation_max", "5%", 1, "6%"},
		{"up.blackout", "false", 1, "true"},
		{"up.shape_burst", "0", 1, "1500"},
	}
	for _, c := range cases {
		got, err := widget.StepValue(labStep(c.key), c.key, c.cur, c.dir)
		if err != nil || got != c.want {
			t.Errorf("step %s %q by %d = %q %v, want %q", c.key, c.cur, c.dir, got, err, c.want)
		}
		if err == nil {
			if err := lab.CheckAssignment(c.key, got); err != nil {
				t.Errorf("%s: step result %q is rejected: %v", c.key, got, err)
			}
		}
	}
}

// A live app advances with the ticks it is given: 60 ticks of 1/30 s of
// wall time at 1× simulate exactly two seconds, drawn on the screen.
func TestLiveAppAdvancesWithWallTicks(t *testing.T) {
	a, screen := newApp(t)
	ticks := make(chan time.Time)
	start := time.Unix(1000, 0)
	done := make(chan error)
	go func() { done <- a.run(ticks, start, nil) }() // newApp set the screen
	for i := 1; i <= 60; i++ {
		ticks <- start.Add(time.Duration(i) * time.Second / 30)
	}
	// The ticker goroutine takes a tick only after the previous one's
	// update has run, so this zero-length tick proves the 60th applied.
	ticks <- start.Add(2 * time.Second)
	read := make(chan string, 1)
	// Queued after the ticks' updates, so it sees all of them.
	a.app.QueueUpdate(func() {
		a.app.ForceDraw()
		read <- a.s.Now().String() + "\n" + widget.ScreenText(screen)
	})
	out := <-read
	a.Stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "00:00:02.000") || !strings.Contains(out, "t 00:00:02.000") {
		t.Fatalf("after 2 s of ticks: %s", out[:200])
	}
}

// A/B: B runs on the same seed with its overrides and every change A makes;
// B with no real difference is sample for sample A.
func TestABRunsBesideA(t *testing.T) {
	a, screen := newApp(t)
	a.advance(5 * time.Second)
	if err := a.startAB("client.snap=0.5"); err != nil { // B = A
		t.Fatal(err)
	}
	a.set("down.latency", "80ms") // a live change after B started reaches B
	a.advance(5 * time.Second)
	if a.ab.s.Now() != a.s.Now() {
		t.Fatalf("B at %v, A at %v", a.ab.s.Now(), a.s.Now())
	}
	if a.ab.ref != nil {
		t.Fatal("A without live edits before B is its own reference")
	}
	as, bs := a.samples(), a.ab.history
	if len(as) != len(bs) {
		t.Fatalf("A has %d samples, B %d", len(as), len(bs))
	}
	for i := range as {
		if !metrics.Same(&as[i], &bs[i]) {
			t.Fatalf("B without a difference diverged from A at %.2f s", as[i].TS)
		}
	}
	// After a live edit B and A's column start from the settings in force:
	// B without a difference is that reference.
	a.ab = nil
	a.set("up.loss", "5%")
	a.advance(2 * time.Second)
	if err := a.startAB("client.snap=0.5"); err != nil {
		t.Fatal(err)
	}
	a.set("down.latency", "60ms")
	a.advance(5 * time.Second)
	if a.ab.ref == nil || !sameSummary(a.ab.ref.S.Summary(), a.ab.s.Summary()) {
		t.Fatal("B without a difference is not A's reference, the settings in force from t 0")
	}
	// A real B: the queue server removes the overwrites on the same seed.
	a.ab = nil
	if err := a.startAB("server.inputs=queue"); err != nil {
		t.Fatal(err)
	}
	a.advance(20 * time.Second)
	out := draw(a, screen)
	if !strings.Contains(out, "A/B") || !strings.Contains(out, "B: server.inputs=queue") {
		t.Fatalf("A/B not shown:\n%s", out)
	}
	if sa, sb := a.s.Summary(), a.ab.s.Summary(); sb.Overwritten != 0 || sa.Overwritten == 0 {
		t.Fatalf("overwritten A %d B %d: the queue server should have none", sa.Overwritten, sb.Overwritten)
	}
	if err := a.startAB("server.inputs=sometimes"); err == nil {
		t.Fatal("a bad B setting accepted")
	}
}

// The now box keeps one figure per line part however large the counters
// get: no line is wider than the box.
func TestNowBoxFitsWithLargeCounters(t *testing.T) {
	var s lab.Summary
	s.Up.Lost, s.Down.Lost, s.Overwritten, s.Starved, s.Snaps, s.LatchFlips = 9999999, 9999999, 9999999, 9999999, 9999999, 9999999
	s.VisibleErrorM.P99, s.RTTMs.P50, s.InputDelayMs.P50 = 1234.56, 99999, 99999
	var empty lab.Summary // before any reply or input: no quantiles
	empty.RTTMs.P50, empty.InputDelayMs.P50 = math.NaN(), math.NaN()
	if text := nowText(&empty); strings.Contains(text, "NaN") {
		t.Errorf("an empty summary shows NaN:\n%s", text)
	}
	for _, line := range strings.Split(nowText(&s), "\n") {
		if w := tview.TaggedStringWidth(line); w > widget.SideWidth-2 {
			t.Errorf("now line %q is %d wide, the box holds %d", line, w, widget.SideWidth-2)
		}
	}
}

// r restarts from t 0 with the settings in force now, live edits included.
func TestRestartKeepsTheSettingsInForce(t *testing.T) {
	a, _ := newApp(t)
	a.advance(2 * time.Second)
	a.set("up.latency", "80ms")
	a.set("client.sender", "accumulator")
	a.advance(time.Second)
	press(a, 'r')
	c := a.s.Config()
	if a.s.Now() != 0 || len(a.samples()) != 0 {
		t.Fatal("restart did not start over")
	}
	sender, _ := lab.Lookup("client.sender")
	if c.Up.Latency != 80*time.Millisecond || sender.Get(&c) != "accumulator" {
		t.Fatalf("restart dropped live edits: up latency %v, sender %v", c.Up.Latency, sender.Get(&c))
	}
	if c.Seed != 1 {
		t.Fatalf("restart changed the seed to %d", c.Seed)
	}
}

// R records the whole session from t 0, even when the lab keeps only the
// last part of it, and every recording gets its own file.
func TestRecordTheWholeSessionIntoNewFiles(t *testing.T) {
	defer func(n int) { historyLen = n }(historyLen)
	historyLen = 100 // the lab keeps 5 s; the session runs 20 s before R
	a, _ := newApp(t)
	for range 20 {
		a.advance(time.Second)
	}
	a.set("up.loss", "2%")
	press(a, 'R')
	a.advance(3 * time.Second)
	press(a, 'R')
	press(a, 'R') // a second recording at the same time must not overwrite
	a.advance(time.Second)
	press(a, 'R')
	files, _ := filepath.Glob(filepath.Join(a.opts.Dir, "*.jlrec"))
	if len(files) != 2 {
		t.Fatalf("two recordings made %v", files)
	}
	for _, path := range files {
		v, err := lab.Verify(openRecording(t, path), lab.Untrusted)
		if err != nil || !v.SummaryOK {
			t.Fatalf("%s does not verify: %+v %v", path, v, err)
		}
		if first := v.Samples; first < int(v.Until/sim.Time(a.opts.Every)) {
			t.Fatalf("%s holds %d samples up to %v: not the whole session", path, v.Samples, v.Until)
		}
	}
}

// A paused lab takes no ticks and does not redraw (no CPU); unpaused, it
// draws on ticks again.
func TestPausedLabDoesNotRedraw(t *testing.T) {
	a, _ := newApp(t)
	draws := 0
	a.app.SetAfterDrawFunc(func(tcell.Screen) { draws++ })
	ticks := make(chan time.Time)
	start := time.Unix(1000, 0)
	done := make(chan error)
	go func() { done <- a.run(ticks, start, nil) }()
	count := func() int {
		n := make(chan int, 1)
		a.app.QueueUpdate(func() { n <- draws })
		return <-n
	}
	tick := 1
	next := func() time.Time { tick++; return start.Add(time.Duration(tick-1) * time.Second / 30) }
	send := func(n int) {
		for range n {
			ticks <- next()
		}
	}
	send(11) // the 11th is taken only once the 10th was handed on
	if running := count(); running < 9 {
		t.Errorf("a running lab drew %d times in 10 ticks", running)
	}
	a.app.QueueUpdate(func() { a.togglePause(); a.refresh() })
	paused := count()
	taken := 0
	for range 30 { // as a time.Ticker does: a tick nobody takes is dropped
		select {
		case ticks <- next():
			taken++
		default:
		}
	}
	if got := count(); got != paused || taken > 1 {
		t.Errorf("a paused lab took %d of 30 ticks and redrew %d times", taken, got-paused)
	}
	a.app.QueueUpdate(func() { a.togglePause(); a.refresh() })
	send(4) // drained or timed from, then one that draws, then one more
	if got := count(); got <= paused {
		t.Errorf("the lab did not draw again after unpausing")
	}
	a.Stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// recordingLab runs a lab on the test's ticks and sigs (nil: none): it
// hands it ticks 1 to 31 (just over a second), then starts a recording; tick(i)
// hands it tick i (i/30 s after the start), done has Run's error.
func recordingLab(t *testing.T, sigs <-chan os.Signal) (a *App, screen tcell.SimulationScreen, tick func(i int), done <-chan error) {
	t.Helper()
	a, screen = newApp(t)
	ticks := make(chan time.Time)
	start := time.Unix(1000, 0)
	ran := make(chan error)
	go func() { ran <- a.run(ticks, start, sigs) }()
	tick = func(i int) { ticks <- start.Add(time.Duration(i) * time.Second / 30) }
	for i := 1; i <= 31; i++ {
		tick(i)
	}
	a.app.QueueUpdate(func() { a.toggleRecord() })
	return a, screen, tick, ran
}

// SIGTERM or SIGHUP ends the lab as q does: the open recording is closed
// with its summary (it verifies) and Run returns without an error.
func TestSignalClosesTheRecording(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGHUP, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			sigs := make(chan os.Signal, 1)
			a, _, tick, done := recordingLab(t, sigs)
			for i := 32; i <= 62; i++ {
				tick(i)
			}
			sigs <- sig
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if a.Signal() != sig || len(a.Written()) != 1 {
				t.Fatalf("signal %v, written %v", a.Signal(), a.Written())
			}
			v, err := lab.Verify(openRecording(t, a.Written()[0]), lab.Untrusted)
			if err != nil || !v.HasSummary || v.Samples < 30 {
				t.Fatalf("the recording after %v: %+v %v", sig, v, err)
			}
		})
	}
}

// The newest n samples come out in order whether or not the ring wrapped.
func TestLatestSamplesAcrossTheRingsWrap(t *testing.T) {
	defer func(n int) { historyLen = n }(historyLen)
	historyLen = 10
	a, _ := newApp(t)
	for i := range 23 {
		a.record(&metrics.Sample{TS: float64(i)})
	}
	for n := range 12 {
		got := a.latest(n)
		if len(got) != min(n, 10) {
			t.Fatalf("latest(%d) has %d samples", n, len(got))
		}
		for i := range got {
			if want := float64(23 - len(got) + i); got[i].TS != want {
				t.Fatalf("latest(%d)[%d] = %v, want %v", n, i, got[i].TS, want)
			}
		}
	}
}

// openRecording opens the recording at path until the test ends.
func openRecording(t *testing.T, path string) *recordings.Reader {
	t.Helper()
	r, f, err := recordings.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return r
}

// B's settings pin their keys, as `lab ab --b` and `--set` do (lab.PinKeys):
// a change A makes to one of them — live, or from the scenario's timeline —
// does not reach B, which would otherwise stop being different; every
// other change does.
func TestABPinsItsKeys(t *testing.T) {
	a, _ := newApp(t)
	a.advance(time.Second)
	if err := a.startAB("client.snap=0.5 up.latency=120ms"); err != nil {
		t.Fatal(err)
	}
	a.set("client.snap", "2")     // B's key
	a.set("up.latency", "30ms")   // B's key
	a.set("down.latency", "80ms") // not B's
	a.advance(2 * time.Second)
	cfg := a.ab.s.Config()
	q, _ := lab.Lookup("client.snap")
	if got := q.Get(&cfg); got != "0.5" {
		t.Errorf("B's client.snap is %s after A set 2: B's own 0.5 should hold", got)
	}
	if cfg.Up.Latency != 120*time.Millisecond || cfg.Down.Latency != 80*time.Millisecond {
		t.Errorf("B's up.latency %v (want its own 120ms), down.latency %v (want A's 80ms)", cfg.Up.Latency, cfg.Down.Latency)
	}
}

// A terminal that went away (its tmux session or ssh connection closed)
// ends the lab as a hangup does, whichever the lab sees first: the read's
// EOF or EIO, or the kernel's SIGHUP. The open recording is closed and Run
// returns no error; Signal is SIGHUP, so the lab exits 129, not 1 with
// "read /dev/tty: input/output error".
func TestATerminalThatWentAwayEndsTheLabAsAHangup(t *testing.T) {
	for _, gone := range []error{io.EOF, &os.PathError{Op: "read", Path: "/dev/tty", Err: syscall.EIO}} {
		a, screen, tick, done := recordingLab(t, nil)
		tick(32)
		if err := screen.PostEvent(tcell.NewEventError(gone)); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("%v: Run returned %v, want nil (a hangup)", gone, err)
		}
		if a.Signal() != syscall.SIGHUP || len(a.Written()) != 1 {
			t.Fatalf("%v: signal %v, written %v; want SIGHUP and the recording closed", gone, a.Signal(), a.Written())
		}
	}
}
