package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/scenarios"
	"jitterlab/sim"
)

// Options start the lab.
type Options struct {
	Config   lab.Config
	Scenario *scenarios.Scenario // its timeline is scheduled; nil for none
	Name     string              // shown in the header
	Every    time.Duration       // sample period (50ms)
	Dir      string              // where exports go ("" = current directory)
}

// speeds are the selectable simulation speeds (× real time).
var speeds = []float64{0.1, 0.25, 0.5, 1, 2, 5, 10, 100, 1000}

// historyLen is how many samples the lab keeps for charts and CSV export:
// one hour at 50 ms.
const historyLen = 72000

// windows are the selectable chart spans.
var windows = []time.Duration{10 * time.Second, 30 * time.Second, 2 * time.Minute}

// App is the terminal UI around one lab.Session. All of its methods run on
// the tview event goroutine; only Run's ticker goroutine reads the wall
// clock, and it hands elapsed time to the event goroutine.
type App struct {
	app   *tview.Application
	pages *tview.Pages
	opts  Options
	s     *lab.Session

	paused  bool
	speed   int // index into speeds
	window  int // index into windows
	history []metrics.Sample
	head    int // next write position once history is full
	status  string
	lastSum lab.Summary
	editing bool
	ab      *abRun
	rec     *lab.Recorder
	recFile *os.File
	recPath string

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
	a := &App{app: tview.NewApplication(), opts: opts, speed: 3, window: 1}
	if err := a.restart(); err != nil {
		return nil, err
	}
	a.build()
	return a, nil
}

// restart creates a fresh session from the options (same seed), keeping
// the UI state.
func (a *App) restart() error {
	s, err := lab.New(a.opts.Config, a.opts.Every)
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
func (a *App) samples() []metrics.Sample {
	if len(a.history) < historyLen || a.head == 0 {
		return a.history
	}
	return append(append([]metrics.Sample(nil), a.history[a.head:]...), a.history[:a.head]...)
}

func (a *App) build() {
	a.views = newViews(a.opts.Config.Client, "now")
	a.editor.Get = func(key string) string {
		p, _ := lab.Lookup(key)
		cfg := a.s.Config()
		return p.Get(&cfg)
	}
	a.editor.Set = a.set
	a.pages = tview.NewPages().AddPage("main", a.root(), true, true)
	a.app.SetRoot(a.pages, true).SetInputCapture(a.onKey)
	a.refresh()
}

func trimZero(f float64) string { return strings.TrimPrefix(fmt.Sprintf("%.3f", f), "0") }

// Run runs the UI until the user quits. A ticker hands the elapsed wall
// time to the event goroutine 30 times a second; the session advances by
// that time × the speed, so redraws are coalesced at ≤ 30 fps.
// A nil screen is the terminal. A screen given here must not be
// initialised yet: tview's SetScreen initialises it.
func (a *App) Run(screen tcell.Screen) error {
	if screen != nil {
		a.app.SetScreen(screen) // once: a second SetScreen is a replacement
	}
	t := time.NewTicker(time.Second / 30)
	defer t.Stop()
	return a.run(t.C, time.Now())
}

// run is Run with the ticks supplied (tests send their own).
func (a *App) run(ticks <-chan time.Time, start time.Time) error {
	// The ticker goroutine hands each tick to the event loop. tview's
	// QueueUpdate returns only once the loop has run the update, so a tick
	// in flight when the loop ends would block forever: Run therefore does
	// not wait for this goroutine; stop makes it exit at its next tick.
	stop := make(chan struct{})
	go func() {
		last := start
		for {
			select {
			case <-stop:
				return
			case now := <-ticks:
				d := now.Sub(last)
				last = now
				a.app.QueueUpdateDraw(func() { a.advance(d) })
			}
		}
	}()
	err := a.app.Run()
	close(stop)
	if _, rerr := a.stopRecording(); err == nil {
		err = rerr
	}
	return err
}

// Stop ends Run.
func (a *App) Stop() { a.app.Stop() }

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
			a.status = "end of the run (sim.duration); r restarts"
		}
		a.lastSum = a.s.Summary()
	}
	a.refresh()
}

// set applies key=value now, after checking the whole configuration.
func (a *App) set(key, value string) error {
	cfg := a.s.Config()
	if err := lab.Set(&cfg, key, value); err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
		return err
	}
	if err := a.s.Schedule(a.s.Now(), key, value); err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
		return err
	}
	if err := a.s.Run(a.s.Now()); err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
		return err
	}
	a.status = fmt.Sprintf("[green]%s = %s[-] at %v", key, tview.Escape(value), a.s.Now())
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
	all := a.samples()
	span := int(windows[a.window] / a.opts.Every)
	if len(all) > span {
		all = all[len(all)-span:]
	}
	a.fillCharts(all, span, a.s.Config().Client.Snap)
	for _, c := range []*Chart{a.offset, a.interval, a.visErr, a.rtt} {
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
	var last metrics.Sample
	if len(all) > 0 {
		last = all[len(all)-1]
	}

	state := "[green]▶ running[-]"
	if a.paused {
		state = "[yellow]❚❚ paused[-]"
	}
	if a.rec != nil {
		state += " ─ [red]● REC[-]"
	}
	if a.ab != nil {
		state += " ─ [white]A/B[-]"
	}
	cfg := a.s.Config()
	a.header.SetText(fmt.Sprintf(" [::b]jitterlab[::-] ─ scenario %s ─ seed %d ─ t %v ─ %g× ─ %s ─ window %v",
		a.opts.Name, cfg.Seed, a.s.Now(), speeds[a.speed], state, windows[a.window]))

	sum := &a.lastSum
	if a.ab != nil {
		a.side.SetTitle(a.abTitle())
		a.side.SetText(a.abSide())
	} else {
		a.side.SetTitle(" now ")
		a.side.SetText(fmt.Sprintf(
			" err p99 [::b]%.2f[::-] m  snaps [::b]%d[::-]  flips %d\n"+
				" judder %.2f m/s  speed %.2f/%.2f\n"+
				" lost %d/%d  late %d  over %d  starved %d\n"+
				" rtt p50 %.0f ms  input delay %.0f ms\n"+
				" offset %+d  interval %.3f s",
			sum.VisibleErrorM.P99, sum.Snaps, sum.LatchFlips,
			sum.JudderMPS, sum.MeanVisibleSpeedMPS, sum.CommandedSpeedMPS,
			sum.Up.Lost+sum.Up.QueueDropped, sum.Down.Lost+sum.Down.QueueDropped, sum.LateDropped, sum.Overwritten, sum.Starved,
			sum.RTTMs.P50, sum.InputDelayMs.P50, last.TickOffset, last.SendIntervalS))
	}

	a.footer.SetText(" space pause  </> speed  arrows select  +/- step  enter type  1-9 preset  z zoom  e csv  R rec  b A/B  r restart  ? help  q quit\n " + a.status)
}

// startRecording records the session from its start: the header is its
// initial configuration, then the kept samples and the change log, then
// every sample and change as they come.
func (a *App) startRecording() error {
	name := fmt.Sprintf("jitterlab-%s-seed%d.jlrec", safe(a.opts.Name), a.s.Config().Seed)
	path := filepath.Join(a.opts.Dir, name)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := recordings.NewWriter(f, lab.HeaderOf(a.s.Initial(), a.opts.Name, a.s.Every()))
	if err != nil {
		f.Close()
		return err
	}
	a.rec, a.recFile, a.recPath = lab.Record(a.s, w, a.samples()), f, path
	a.s.OnSample = func(x *metrics.Sample) {
		a.record(x)
		a.rec.Sample(x)
	}
	a.s.OnChange = a.rec.Change
	return nil
}

// stopRecording closes the recording with the summary so far.
func (a *App) stopRecording() (string, error) {
	if a.rec == nil {
		return "", nil
	}
	err := a.rec.Close()
	if cerr := a.recFile.Close(); err == nil {
		err = cerr
	}
	a.s.OnSample, a.s.OnChange = a.record, nil
	path := a.recPath
	a.rec, a.recFile, a.recPath = nil, nil, ""
	return path, err
}

// exportCSV writes the kept samples (the last hour at most) to a file.
func (a *App) exportCSV() (string, error) {
	name := fmt.Sprintf("jitterlab-%s-seed%d-%s.csv", safe(a.opts.Name), a.s.Config().Seed, strings.ReplaceAll(a.s.Now().String(), ":", ""))
	path := filepath.Join(a.opts.Dir, name)
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	w, err := metrics.NewCSVWriter(f)
	if err == nil {
		for _, x := range a.samples() {
			if err = w.Write(&x); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, strings.TrimSuffix(filepath.Base(s), ".toml"))
}
