package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"jitterlab/diagnose"
	"jitterlab/lab"
	"jitterlab/scenarios"
	"jitterlab/tui"
)

// tuiOptions are the terminal UI's flags: the same scenario, seed and --set
// as 'lab run'.
type tuiOptions struct {
	runOptions
	every     time.Duration
	dir       string
	diagSeeds string
	diagDur   time.Duration
}

func newTUIFlags(stderr io.Writer) (*flag.FlagSet, *tuiOptions) {
	o := &tuiOptions{}
	fs := newFlagSet("", "[flags]", stderr, tuiHelp)
	fs.Init("lab", flag.ContinueOnError)
	o.register(fs)
	fs.Lookup("scenario").DefValue = "jitter-fix"
	o.scenario = "jitter-fix"
	fs.Lookup("duration").Usage = "stop the lab at this simulated `TIME`, paused, with a message on the status line (r restarts); " +
		"without it the scenario's duration does ('lab scenarios' shows it), and a scenario without one runs until you quit (one with oscillators or flaps until they have made 20000 changes)"
	fs.Lookup("duration").DefValue = "0" // no default: the text says what happens
	everyVar(fs, &o.every, 50*time.Millisecond, "sample `PERIOD` of the charts and the CSV export (100µs to 1h)")
	fs.StringVar(&o.diagSeeds, "diagnose-seeds", "1-20", "seeds the d key's diagnosis runs, as 'lab diagnose --seeds'")
	durationVar(fs, &o.diagDur, "diagnose-duration", 2*time.Minute, false, "30s", "`DURATION` of every run of the d key's diagnosis, as 'lab diagnose --duration'")
	fs.StringVar(&o.dir, "dir", "", "existing `folder` for CSV exports (e) and recordings (R) (default: the current one)")
	return fs, o
}

// end sets when the lab stops (paused, with a message) and returns why:
// --duration, a --set sim.duration, or the scenario's duration, in that
// order; without any the lab runs until quit (up to the longest run the
// model takes, lab.MaxDuration) and the reason is "".
func (o *tuiOptions) end(cfg *lab.Config, sc *scenarios.Scenario) string {
	switch {
	case o.given("duration"):
		return "--duration"
	case slices.ContainsFunc(o.sets, func(a string) bool { k, _, _ := lab.ParseAssignment(a); return k == "sim.duration" }):
		return "--set sim.duration"
	case sc != nil && sc.Duration > 0:
		cfg.Duration = sc.Duration
		return sc.Name + "'s duration"
	}
	cfg.Duration = lab.MaxDuration
	if sc != nil {
		if d := sc.LongestRun(lab.MaxDuration, labTimeline); d < lab.MaxDuration {
			cfg.Duration = d
			return fmt.Sprintf("the longest run in which %s's oscillators and flaps make at most %d changes", sc.Name, labTimeline)
		}
	}
	return ""
}

// labTimeline bounds the changes a scenario's oscillators and flaps make
// in a lab that runs until quit: the lab schedules them all at the start,
// and again for R, a and r, in about a tenth of a second for this many.
const labTimeline = scenarios.MaxGenerated / 10

// tuiHelp follows the lab's flags in 'lab -h': its keys, then the
// parameters --set takes.
func tuiHelp(w io.Writer) {
	fmt.Fprint(w, "\nkeys of the lab ('?' in the lab shows them with the scenario):\n"+tui.KeyHelp())
	paramHelp(w)
}

func tuiFlags(w io.Writer) *flag.FlagSet {
	fs, _ := newTUIFlags(w)
	return fs
}

func cmdTUI(args []string, stdout, stderr io.Writer) error {
	fs, o := newTUIFlags(stderr)
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	cfg, sc, err := o.config()
	if err != nil {
		return err
	}
	end := o.end(&cfg, sc)
	name := o.scenario
	if sc != nil {
		name = sc.Name
	}
	if err := checkDir(o.dir); err != nil {
		return err
	}
	seeds, err := parseSeeds(o.diagSeeds)
	if err == nil {
		err = diagnose.CheckSeeds(seeds) // the rule lab diagnose's --seeds follows
	}
	if err != nil { // parseSeeds names --seeds, in its example too: the lab's flag is --diagnose-seeds
		return badUsage("%s", strings.ReplaceAll(err.Error(), "--seeds", "--diagnose-seeds"))
	}
	app, err := tui.New(tui.Options{Config: cfg, Scenario: sc, Name: name, Every: o.every, Dir: o.dir, EndCause: end,
		Diagnose: tui.DiagnoseOptions{Seeds: seeds, Duration: o.diagDur, Version: version()}})
	if err != nil {
		return err
	}
	if err := needTerminal(); err != nil {
		return err
	}
	err = app.Run(nil)
	for _, path := range app.Written() {
		fmt.Fprintf(stderr, "lab: recorded %s ('lab replay %s --verify' checks it)\n", path, path)
	}
	if sig := app.Signal(); sig != nil && err == nil {
		// As 'lab run': 128 + the signal, after the recording is closed
		// and the terminal restored (Run has returned).
		return interrupted(sig, fmt.Sprintf("stopped at t %v", app.Now()))
	}
	return err
}

// checkDir checks at start that --dir is a folder the lab can write in,
// rather than on the first export or recording.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	if err == nil && !st.IsDir() {
		err = errors.New("not a folder")
	}
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(dir, ".jitterlab-check-*"); err == nil {
			f.Close()
			err = os.Remove(f.Name())
		}
	}
	if err != nil {
		return fmt.Errorf("--dir %q: %v (it holds CSV exports and recordings: give an existing folder you can write in)", dir, err)
	}
	return nil
}

// needTerminal probes for a terminal: tview would otherwise fail with a
// bare "open /dev/tty". The probe's screen is released; tview opens its own.
func needTerminal() error {
	probe, err := tcell.NewScreen()
	if err == nil {
		if err = probe.Init(); err == nil {
			probe.Fini()
		}
	}
	if err != nil {
		return fmt.Errorf("the lab needs a terminal (%v); 'lab run' and 'lab replay' without --tui work without one", err)
	}
	return nil
}
