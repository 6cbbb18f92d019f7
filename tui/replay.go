package tui

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/tui/widget"
)

// Replay is the lab's view of a recording: the same charts, a playback
// cursor that plays at a speed and seeks, and the editor showing the
// parameters in force at the cursor (the header's, then the recorded
// changes up to it). It runs no simulation.
type Replay struct {
	app     *tview.Application
	name    string
	rec     recordings.Header
	initial lab.Config
	changes []recordings.Change

	// The viewer reads the samples of the charts' window from the
	// recording as the cursor moves, a few minutes around it at a time:
	// memory does not grow with the recording's length.
	r           *recordings.Reader
	first, last sim.Time // the first and the last sample's times
	count       int      // the recording's samples
	loaded      []metrics.Sample
	loadedFrom  sim.Time // loaded holds every sample from loadedFrom to loadedTo
	loadedTo    sim.Time
	loadedOK    bool
	summary     string

	pos    sim.Time // the cursor
	paused bool
	speed  int
	window int

	*views
	clock   *widget.Clock // idle while paused
	status  string
	editing bool // the help box has the keys

	// Dir is where 'e' writes its CSV ("" = the current directory).
	Dir string
}

// NewReplay reads the recording's changes and where its samples start and
// end, and keeps r to read the samples the charts show as the cursor
// moves. A setting that names a file (a trace) is refused unless trust
// allows opening it.
func NewReplay(r *recordings.Reader, name string, trust lab.Trust) (*Replay, error) {
	cfg, err := lab.ConfigFromHeader(r.Header, trust)
	if err != nil {
		return nil, err
	}
	v := &Replay{app: tview.NewApplication(), name: name, rec: r.Header, initial: cfg, speed: 3, window: 1, clock: widget.NewClock()}
	v.r, v.first = r, -1
	err = r.Scan(0, sim.Time(1<<62), func(x *metrics.Sample) error {
		if v.first < 0 {
			v.first = sampleTime(x)
		}
		v.last = sampleTime(x)
		v.count++
		return nil
	}, func(c recordings.Change) error {
		if err := trust.Check(fmt.Sprintf("recorded change at %v", c.At), c.Key, c.Value); err != nil {
			return err
		}
		v.changes = append(v.changes, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if v.count == 0 {
		return nil, fmt.Errorf("the recording holds no samples")
	}
	if r.OnDamage != nil {
		r.OnDamage = func(*recordings.DamageError) {} // told once, by the scan above
	}
	if end, err := r.End(); err == nil && end != nil {
		v.summary = "closed at " + end.At.String()
	} else if r.Truncated {
		v.summary = "truncated: up to the last whole frame"
	} else {
		v.summary = "not closed"
	}
	v.pos = v.first
	v.build()
	return v, nil
}

// sampleTime is the true time of a recorded sample.
func sampleTime(x *metrics.Sample) sim.Time { return sim.Time(x.TS*1e9 + 0.5) }

// end is the time of the last sample.
func (v *Replay) end() sim.Time { return v.last }

// upTo returns the last n samples at or before t, reading from the
// recording what is not loaded: the window the charts need and as much
// again on either side, so that playing reads the file once every few
// minutes of it.
func (v *Replay) upTo(t sim.Time, n int, every time.Duration) ([]metrics.Sample, error) {
	need := sim.Time(time.Duration(n+1) * max(every, time.Millisecond))
	from := max(t-need, 0)
	if !v.loadedOK || from < v.loadedFrom || t > v.loadedTo {
		v.loaded = v.loaded[:0]
		v.loadedFrom, v.loadedTo = max(t-2*need, 0), t+need
		err := v.r.Scan(v.loadedFrom, v.loadedTo, func(x *metrics.Sample) error { v.loaded = append(v.loaded, *x); return nil }, nil)
		if err != nil {
			v.loadedOK = false
			return nil, err
		}
		v.loadedOK = true
	}
	upto := sort.Search(len(v.loaded), func(i int) bool { return sampleTime(&v.loaded[i]) > t })
	return v.loaded[max(upto-n, 0):upto], nil
}

// configAt is the configuration in force at t: the header's, then every
// recorded change up to t, in order.
func (v *Replay) configAt(t sim.Time) lab.Config {
	cfg := v.initial
	for _, c := range v.changes {
		if c.At > t {
			break
		}
		if p, ok := lab.Lookup(c.Key); ok {
			p.Set(&cfg, c.Value)
		}
	}
	return cfg
}

func (v *Replay) build() {
	v.views = newViews(v.initial.Client, "changes")
	v.editor.SetTitle(" recorded parameters at the cursor ")
	v.editor.Get = func(key string) string {
		p, _ := lab.Lookup(key)
		cfg := v.configAt(v.pos)
		return p.Get(&cfg)
	}
	v.editor.Set = func(key, value string) error {
		return fmt.Errorf("a recording is read-only; run 'lab --scenario …' to change %s", key)
	}
	v.keys.Set("  ",
		widget.Segment{Text: "[yellow]space[-] play/pause", Prio: 60}, widget.Segment{Text: "[yellow]←→[-] seek 10s", Prio: 50},
		widget.Segment{Text: "[yellow]home/end[-]", Prio: 20}, widget.Segment{Text: "[yellow]<>[-] speed", Prio: 40},
		widget.Segment{Text: "[yellow]z[-] window", Prio: 10}, widget.Segment{Text: "[yellow]↑↓[-] parameters", Prio: 30},
		widget.Segment{Text: "[yellow]e[-] csv", Prio: 45},
		widget.Segment{Text: "[yellow]?[-] help", Prio: widget.MustKeep}, widget.Segment{Text: "[yellow]q[-] quit", Prio: widget.MustKeep})
	v.app.SetRoot(v.root(), true).SetInputCapture(v.onKey)
	v.refresh()
}

func (v *Replay) refresh() {
	every := time.Duration(v.rec.EveryNs)
	span := int(widget.Windows[v.window] / max(every, time.Millisecond))
	shown, err := v.upTo(v.pos, span, every)
	if err != nil {
		v.status = "[red]" + tview.Escape(err.Error())
	}
	var changed []sim.Time
	for _, c := range v.changes {
		changed = append(changed, c.At)
	}
	v.fillCharts(shown, span, every, v.configAt(v.pos).Client, changed)
	state := "[green]▶ playing[-]"
	if v.paused {
		state = "[yellow]❚❚ paused[-]"
	}
	v.header.Set(" ─ ",
		widget.Segment{Text: "[::b]replay[::-]", Prio: 65}, widget.Segment{Text: tview.Escape(filepath.Base(v.name)), Prio: 10},
		widget.Segment{Text: tview.Escape(v.rec.Scenario), Prio: 60}, widget.Segment{Text: fmt.Sprintf("seed %d", v.rec.Seed), Prio: 20},
		widget.Segment{Text: fmt.Sprintf("t %v / %v", v.pos, v.end()), Prio: 90}, widget.Segment{Text: fmt.Sprintf("%g×", speeds[v.speed]), Prio: 70},
		widget.Segment{Text: state, Prio: 80}, widget.Segment{Text: v.summary, Prio: 5})
	text := ""
	for _, c := range v.changes {
		mark := "  "
		if c.At <= v.pos {
			mark = "[green]✓[-] "
		}
		text += fmt.Sprintf(" %s%v %s=%s\n", mark, c.At, c.Key, tview.Escape(c.Value))
	}
	if text == "" {
		text = " (no parameter changes recorded)"
	}
	v.side.SetText(text)
	v.setStatus(v.status)
	v.clock.SetIdle(v.paused)
}

// advance moves the cursor by wall × speed while playing.
func (v *Replay) advance(wall time.Duration) {
	if !v.paused {
		v.seekTo(v.pos + sim.Time(float64(wall)*speeds[v.speed]))
		if v.pos >= v.end() {
			v.paused = true
			v.status = "end of the recording"
		}
	}
	v.refresh()
}

func (v *Replay) seekTo(t sim.Time) { v.pos = min(max(t, v.first), v.end()) }

func (v *Replay) onKey(ev *tcell.EventKey) *tcell.EventKey {
	if v.editing {
		return ev
	}
	switch ev.Key() {
	case tcell.KeyLeft:
		v.seekTo(v.pos - sim.Time(10*time.Second))
	case tcell.KeyRight:
		v.seekTo(v.pos + sim.Time(10*time.Second))
	case tcell.KeyHome:
		v.seekTo(0)
	case tcell.KeyEnd:
		v.seekTo(v.end())
	case tcell.KeyUp:
		v.editor.Move(-1, 0)
	case tcell.KeyDown:
		v.editor.Move(1, 0)
	case tcell.KeyCtrlC:
		v.app.Stop()
	case tcell.KeyRune:
		switch ev.Rune() {
		case ' ':
			v.paused = !v.paused
			if !v.paused && v.pos >= v.end() {
				v.seekTo(0)
			}
		case '<', ',':
			v.speed = max(v.speed-1, 0)
		case '>', '.':
			v.speed = min(v.speed+1, len(speeds)-1)
		case 'z':
			v.window = (v.window + 1) % len(widget.Windows)
		case 'e':
			v.export()
		case '?':
			v.help()
		case 'q':
			v.app.Stop()
		default:
			return ev
		}
	default:
		return ev
	}
	v.refresh()
	return nil
}

// replayKeys are the viewer's keys and what they do.
var replayKeys = [][2]string{
	{"space", "play / pause (at the end, play starts over)"},
	{"← →", "seek 10 s back / forward; home / end: the start / the end"},
	{"< >", "slower / faster: 0.1× … 1000×"},
	{"z", "chart window: 10 s, 30 s, 2 min"},
	{"↑ ↓", "move over the recorded parameters in force at the cursor"},
	{"e", "export the whole recording's timeline to a new CSV file in --dir (the status line names it)"},
	{"?", "this help"},
	{"q Ctrl-C", "quit"},
}

// help shows the viewer's keys.
func (v *Replay) help() {
	head := fmt.Sprintf("recording %s\nscenario %s, seed %d, %s\n\n", v.name, v.rec.Scenario, v.rec.Seed, v.summary)
	text := func(columns int) string {
		return head + widget.KeyLines(replayKeys, "", columns) + "\nThe side box lists the recorded changes; ✓ marks those in force at the cursor, ┴ on the charts' time axis where they applied.\n\n" + widget.HelpLastLine
	}
	v.editing = true
	widget.ShowHelp(v.app, v.pages.Pages, text, v.closeHelp)
}

func (v *Replay) closeHelp() {
	v.pages.RemovePage("help")
	v.editing = false
	v.app.SetFocus(v.editor)
}

// export writes every sample of the recording to a new CSV file.
func (v *Replay) export() {
	base := "jitterlab-replay-" + safe(strings.TrimSuffix(filepath.Base(v.name), filepath.Ext(v.name)))
	f, path, err := createUnique(v.Dir, base, ".csv")
	n := 0
	if err == nil {
		// Streamed from the recording, sample by sample.
		n, err = v.r.WriteCSV(f, 0, sim.Time(1<<62))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		v.status = "[red]export: " + tview.Escape(err.Error())
		return
	}
	v.status = fmt.Sprintf("[green]wrote %s[-] (%d samples)", tview.Escape(path), n)
}

// Run plays the recording until the user quits (screen nil: the
// terminal). It returns io.EOF when the terminal went away.
func (v *Replay) Run(screen tcell.Screen) error {
	if screen != nil {
		v.app.SetScreen(screen)
	}
	t := time.NewTicker(time.Second / 30)
	defer t.Stop()
	_, err := v.clock.Run(v.app, t.C, time.Now(), nil, v.advance)
	return err
}
