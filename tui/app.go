package tui

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/scenarios"
	"jitterlab/sim"
	"jitterlab/tui/widget"
)

// Options start the lab.
type Options struct {
	Config   lab.Config
	Scenario *scenarios.Scenario // its timeline is scheduled; nil for none
	Name     string              // shown in the header
	Every    time.Duration       // sample period (50ms)
	Dir      string              // where exports and recordings go ("" = current directory)
	Diagnose DiagnoseOptions     // how d diagnoses the settings in force
	// EndCause says why the session ends at Config.Duration ("--duration",
	// "jitter-fix's duration"); "" means it runs until quit (a
	// Config.Duration of lab.MaxDuration).
	EndCause string
}

// speeds are the selectable simulation speeds (× real time).
var speeds = []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 100, 1000}

// historyLen is how many samples the lab keeps for charts and CSV export:
// one hour at 50 ms. (A variable so tests can shorten it.)
var historyLen = 72000

// App is the terminal UI around one lab.Session. All of its methods run on
// the tview event goroutine; only Run's ticker goroutine reads the wall
// clock, and it hands elapsed time to the event goroutine.
type App struct {
	app  *tview.Application
	opts Options
	s    *lab.Session
	name string // the scenario or the preset in force, in the header

	paused  bool
	speed   int // index into speeds
	window  int // index into windows
	history []metrics.Sample
	head    int // next write position once history is full
	status  string
	lastSum lab.Summary
	editing bool
	ab      *abRun
	rec     *recording

	showCard  bool            // the side box shows the report card, not the counters
	diag      *diagRun        // the latest diagnosis, running or finished
	diagView  *tview.TextView // its box, while shown
	diagShown string          // the box's text
	diagWrap  bool            // the box wraps its lines (w)
	diagHook  func(done int)  // tests: called after every diagnosis run

	clock   *widget.Clock // idle while paused or at the end
	signal  os.Signal     // the signal that ended Run, if any
	written []string      // recordings closed, in order

	*views
}

// New builds the UI and its session.
func New(opts Options) (*App, error) {
	if err := rowsCovered(); err != nil {
		return nil, err
	}
	if opts.Every <= 0 {
		opts.Every = 50 * time.Millisecond
	}
	a := &App{app: tview.NewApplication(), opts: opts, speed: 3, window: 1, name: opts.Name, clock: widget.NewClock()}
	if err := a.restart(opts.Config); err != nil {
		return nil, err
	}
	a.build()
	if sc := opts.Scenario; sc != nil && sc.Description != "" {
		a.status = "[yellow]c[-] about " + tview.Escape(sc.Name+": "+sc.Description)
	}
	a.refresh()
	return a, nil
}

// restart creates a fresh session from cfg (its seed) and the scenario's
// timeline, keeping the UI state.
func (a *App) restart(cfg lab.Config) error {
	s, err := lab.New(cfg, a.opts.Every)
	if err != nil {
		return err
	}
	if a.opts.Scenario != nil {
		if err := s.ScheduleTimeline(a.opts.Scenario); err != nil {
			return err
		}
	}
	a.history = make([]metrics.Sample, 0, 4096)
	a.head = 0
	s.OnSample = a.record
	a.s = s
	a.lastSum = s.Summary()
	return nil
}

func (a *App) record(x *metrics.Sample) {
	if len(a.history) < historyLen {
		a.history = append(a.history, *x)
		return
	}
	a.history[a.head] = *x
	a.head = (a.head + 1) % historyLen
}

// samples returns the kept samples oldest first (a copy only when the ring
// has wrapped).
func (a *App) samples() []metrics.Sample { return a.latest(len(a.history)) }

// latest returns the newest n kept samples (at most), oldest first,
// copying only them when they straddle the ring's wrap.
func (a *App) latest(n int) []metrics.Sample {
	h := a.history
	n = min(n, len(h))
	if len(h) < historyLen || a.head == 0 {
		return h[len(h)-n:]
	}
	if a.head >= n {
		return h[a.head-n : a.head]
	}
	return append(append([]metrics.Sample(nil), h[len(h)-(n-a.head):]...), h[:a.head]...)
}

func (a *App) build() {
	a.views = newViews(a.opts.Config.Client, "now")
	a.editor.Get = func(key string) string {
		p, _ := lab.Lookup(key)
		cfg := a.s.Config()
		return p.Get(&cfg)
	}
	a.editor.Set = a.set
	a.keys.Set("  ",
		widget.Segment{Text: "[yellow]space[-] pause", Prio: 60}, widget.Segment{Text: "[yellow]<>[-] speed", Prio: 40},
		widget.Segment{Text: "[yellow]↑↓←→[-] select", Prio: 50}, widget.Segment{Text: "[yellow]+-[-] step", Prio: 70},
		widget.Segment{Text: "[yellow]enter[-] type", Prio: 80}, widget.Segment{Text: "[yellow]1-9[-] preset", Prio: 30},
		widget.Segment{Text: "[yellow]z[-] zoom", Prio: 10}, widget.Segment{Text: "[yellow]c[-] changes", Prio: 20},
		widget.Segment{Text: "[yellow]e[-] csv", Prio: 25}, widget.Segment{Text: "[yellow]R[-] rec", Prio: 65},
		widget.Segment{Text: "[yellow]b[-] A/B", Prio: 15}, widget.Segment{Text: "[yellow]r[-] restart", Prio: 35},
		widget.Segment{Text: "[yellow]d[-] diagnose", Prio: 75}, widget.Segment{Text: "[yellow]p[-] card", Prio: 45},
		widget.Segment{Text: "[yellow]?[-] help", Prio: widget.MustKeep}, widget.Segment{Text: "[yellow]q[-] quit", Prio: widget.MustKeep})
	a.app.SetRoot(a.root(), true).SetInputCapture(a.onKey)
}

func trimZero(f float64) string { return strings.TrimPrefix(fmt.Sprintf("%.3f", f), "0") }

// Run runs the UI until the user quits or SIGTERM, SIGHUP or SIGINT (from
// kill; Ctrl-C in the lab is a key) arrives: either way an open recording
// is closed. A ticker hands the elapsed wall time to
// the event goroutine 30 times a second; the session advances by that time
// × the speed, so redraws are coalesced at ≤ 30 fps. A nil screen is the
// terminal. A screen given here must not be initialised yet: tview's
// SetScreen initialises it.
func (a *App) Run(screen tcell.Screen) error {
	if screen != nil {
		a.app.SetScreen(screen) // once: a second SetScreen is a replacement
	}
	t := time.NewTicker(time.Second / 30)
	defer t.Stop()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
	defer signal.Stop(sigs)
	return a.run(t.C, time.Now(), sigs)
}

// run is Run with the ticks and signals supplied (tests send their own).
// A terminal that went away is a hangup, whichever the lab sees first:
// the read's end or the kernel's SIGHUP.
func (a *App) run(ticks <-chan time.Time, start time.Time, sigs <-chan os.Signal) error {
	sig, err := a.clock.Run(a.app, ticks, start, sigs, a.advance)
	if err == io.EOF {
		sig, err = syscall.SIGHUP, nil
	}
	a.signal = sig
	a.cancelDiagnosis()
	if rerr := a.stopRecording(); err == nil {
		err = rerr
	}
	return err
}

// Stop ends Run.
func (a *App) Stop() { a.app.Stop() }

// Signal is the signal that ended Run, or nil.
func (a *App) Signal() os.Signal { return a.signal }

// Now is the session's simulated time.
func (a *App) Now() sim.Time { return a.s.Now() }

// Written lists the recordings closed so far.
func (a *App) Written() []string { return a.written }

// advance moves the session on by wall × speed and refreshes the views.
func (a *App) advance(wall time.Duration) {
	if !a.paused && !a.s.Done() {
		target := a.s.Now() + sim.Time(float64(wall)*speeds[a.speed])
		if err := a.s.Run(target); err != nil {
			a.paused = true
			a.status = "[red]" + tview.Escape(err.Error())
		}
		a.syncAB()
		if a.s.Done() {
			a.paused = true
			a.status = a.endText()
		}
		a.lastSum = a.s.Summary()
	}
	a.refresh()
}

// endText is the status at the end of the session: when and why.
func (a *App) endText() string {
	at := a.s.Config().Duration
	if a.opts.EndCause == "" {
		return fmt.Sprintf("end of the run at %v, the longest the lab takes; r restarts", at)
	}
	return fmt.Sprintf("end of the run at %v (%s); r restarts", at, tview.Escape(a.opts.EndCause))
}

// set applies key=value now, after checking the whole configuration. A
// value equal to the one in force changes nothing and is not logged.
func (a *App) set(key, value string) error {
	cfg := a.s.Config()
	err := lab.Set(&cfg, key, value)
	if err == nil {
		err = cfg.Validate()
	}
	shown := value // what the status confirms: the value as the editor shows it
	if p, _ := lab.Lookup(key); err == nil && p.Get != nil {
		before := a.s.Config()
		if p.Get(&cfg) == p.Get(&before) {
			a.status = fmt.Sprintf("%s is already %s", key, tview.Escape(p.Get(&before)))
			return nil
		}
		shown = p.Get(&cfg)
	}
	if err == nil {
		err = a.s.Schedule(a.s.Now(), key, value)
	}
	if err == nil {
		err = a.s.Run(a.s.Now())
	}
	if err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
		return err
	}
	a.status = fmt.Sprintf("[green]%s = %s[-] at %v", key, tview.Escape(shown), a.s.Now())
	a.syncAB()
	return nil
}

// syncAB keeps B in step with A; an error ends the A/B with a message.
func (a *App) syncAB() {
	if err := a.followAB(); err != nil {
		a.ab = nil
		a.status = "[red]A/B ended: " + tview.Escape(err.Error())
	}
}

// refresh copies the latest samples into the charts and rewrites the text
// views.
func (a *App) refresh() {
	a.pollDiagnosis()
	span := int(widget.Windows[a.window] / a.opts.Every)
	all := a.latest(span)
	var changed []sim.Time
	for _, c := range a.s.Changes() {
		changed = append(changed, c.At)
	}
	a.fillCharts(all, span, a.opts.Every, a.s.Config().Client, changed)
	for _, c := range []*widget.Chart{a.offset, a.interval, a.visErr, a.rtt} {
		c.Values2 = c.Values2[:0]
		c.Color2 = tcell.ColorWhite
	}
	if a.ab != nil {
		b := a.abSamples(span)
		for i := range b {
			a.offset.Values2 = append(a.offset.Values2, float64(b[i].TickOffset))
			a.interval.Values2 = append(a.interval.Values2, b[i].SendIntervalS)
			a.visErr.Values2 = append(a.visErr.Values2, b[i].VisibleErrorM)
			a.rtt.Values2 = append(a.rtt.Values2, b[i].RTTMs)
		}
	}

	state := "[green]▶ running[-]"
	if a.paused {
		state = "[yellow]❚❚ paused[-]"
	}
	segs := []widget.Segment{
		{Text: "[::b]jitterlab[::-]", Prio: 10}, {Text: tview.Escape(a.name), Prio: 60},
		{Text: fmt.Sprintf("seed %d", a.s.Config().Seed), Prio: 20},
		{Text: a.timeText(), Prio: 90}, {Text: fmt.Sprintf("%g×", speeds[a.speed]), Prio: 70},
		{Text: state, Prio: 80},
	}
	if a.rec != nil {
		segs = append(segs, widget.Segment{Text: "[red]● REC[-]", Prio: 85})
	}
	if a.ab != nil {
		segs = append(segs, widget.Segment{Text: "[white]A/B[-]", Prio: 75})
	}
	if a.diag != nil && a.diag.running() {
		segs = append(segs, widget.Segment{Text: "[aqua]" + a.diagProgress() + "[-]", Prio: 78})
	}
	// The window is also on the charts' bottom edge: it goes first.
	segs = append(segs, widget.Segment{Text: fmt.Sprintf("window %v", widget.Windows[a.window]), Prio: 5})
	a.header.Set(" ─ ", segs...)

	if a.ab != nil {
		a.side.SetTitle(a.abTitle())
		a.side.SetText(a.abSide())
	} else if a.showCard {
		a.side.SetTitle(" player's report card ")
		a.side.SetText(a.lastSum.Card.SideText())
	} else {
		a.side.SetTitle(" now ")
		a.side.SetText(nowText(&a.lastSum))
	}
	if a.logShown() {
		a.log.Set(fmt.Sprintf(" scenario and changes (%d) ─ c closes ", len(a.s.Changes())), a.logText())
	}
	a.fillDiagnosis()
	a.setStatus(a.status)
	// A running diagnosis keeps the ticks coming to show its progress.
	a.clock.SetIdle((a.paused || a.s.Done()) && (a.diag == nil || !a.diag.running()))
}

// timeText is the session's time, and its end when it has one.
func (a *App) timeText() string {
	if a.opts.EndCause == "" {
		return fmt.Sprintf("t %v", a.s.Now())
	}
	return fmt.Sprintf("t %v of %v", a.s.Now(), a.s.Config().Duration)
}

// nowText is the live summary: two figures per line in fixed columns, so
// it fits the side box whatever the counters reach.
func nowText(s *lab.Summary) string {
	line := func(l1, v1, l2, v2 string) string { return fmt.Sprintf(" %-9s %8s  %-8s %8s", l1, v1, l2, v2) }
	n := func(v uint64) string { return fmt.Sprintf("%d", v) }
	ms := func(v float64) string { return widget.Num("%.0f ms", v) } // no inputs or replies yet: NaN
	// Before a driving frame counts (the first second, and after r) the
	// judder and the speeds are not measured: "–", as lab run's "no data".
	game := s.NoGame() == ""
	mps := func(v float64) string {
		if !game {
			return "–"
		}
		return fmt.Sprintf("%.2fm/s", v)
	}
	return strings.Join([]string{
		line("err p99", widget.Num("%.2f m", s.VisibleErrorM.P99), "snaps", n(s.Snaps)),
		line("judder", mps(s.JudderMPS), "flips", n(s.LatchFlips)),
		line("speed", mps(s.MeanVisibleSpeedMPS), "of", mps(s.CommandedSpeedMPS)),
		line("lost up", n(s.Up.Lost+s.Up.QueueDropped), "lost dn", n(s.Down.Lost+s.Down.QueueDropped)),
		line("overwrote", n(s.Overwritten), "starved", n(s.Starved)),
		line("rtt p50", ms(s.RTTMs.P50), "in delay", ms(s.InputDelayMs.P50)),
	}, "\n")
}

// logText is the change-log pane: the scenario's description and source,
// then every change applied so far, oldest first.
func (a *App) logText() string {
	var b strings.Builder
	if sc := a.opts.Scenario; sc != nil {
		fmt.Fprintf(&b, "[::b]%s[::-] (%s)\n%s\n[gray]source:[-] %s\n", tview.Escape(sc.Name), tview.Escape(sc.File), tview.Escape(sc.Description), tview.Escape(sc.Source))
		for _, c := range sc.Timeline {
			for _, s := range c.Set {
				fmt.Fprintf(&b, "[gray]timeline %v %s=%s[-]\n", c.At, s.Key, tview.Escape(s.Value))
			}
		}
		b.WriteString("\n")
	}
	changes := a.s.Changes()
	if len(changes) == 0 {
		b.WriteString("no changes yet (┴ marks them on the charts)")
	}
	for _, c := range changes {
		fmt.Fprintf(&b, "[yellow]%v[-] %s=%s\n", c.At, c.Key, tview.Escape(c.Value))
	}
	return strings.TrimSuffix(b.String(), "\n")
}
