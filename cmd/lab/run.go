package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"jitterlab/batch"
	"jitterlab/internal/progress"
	"jitterlab/lab"
	"jitterlab/scenarios"
	"jitterlab/sim"
)

// setFlags collects repeated --set key=value.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, " ") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// runOptions are the flags 'lab run' shares with other session commands.
type runOptions struct {
	scenario string
	duration time.Duration
	seed     uint64
	sets     setFlags
	fs       *flag.FlagSet
}

func (o *runOptions) register(fs *flag.FlagSet) {
	o.fs = fs
	fs.StringVar(&o.scenario, "scenario", "", "built-in scenario `NAME` ('lab scenarios' lists them) or TOML FILE")
	durationVar(fs, &o.duration, "duration", time.Minute, false, "90s", "`DURATION` of simulated time (overrides the scenario's)")
	uintVar(fs, &o.seed, "seed", 1, 0, math.MaxUint64, "42", "session seed `N` (overrides the scenario's)")
	fs.Var(&o.sets, "set", "parameter override `key=value` (repeatable; keys are listed below)")
}

// name is how the session is called in recordings and exports.
func (o *runOptions) name() string {
	if o.scenario == "" {
		return "default"
	}
	return o.scenario
}

// inputs are the files the run reads (lab.InputFiles), which no output
// may be.
func (o *runOptions) inputs() []string { return lab.InputFiles(o.scenario, o.sets) }

// appendTraceFile is lab.AppendTraceFile.
var appendTraceFile = lab.AppendTraceFile

func (o *runOptions) given(name string) bool {
	found := false
	o.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

// fixedBy maps the registry keys that fix a whole run to the flag that
// sets them; giving both is a conflict.
var fixedBy = map[string]string{"sim.seed": "seed", "sim.duration": "duration"}

// config builds the session config: defaults, then the scenario, then
// --seed/--duration if given, then every --set in order. It returns the
// scenario (nil without --scenario) for its timeline.
func (o *runOptions) config() (lab.Config, *scenarios.Scenario, error) {
	cfg, sc, err := o.configWith("set", nil)
	return cfg, sc, cmdLineErr(err) // a bad --set or scenario: exit 2
}

// configWith is [runOptions.config] with extra assignments after --set,
// named by flag (--b, --over) in errors.
func (o *runOptions) configWith(flagName string, extra []string) (lab.Config, *scenarios.Scenario, error) {
	cfg := lab.DefaultConfig()
	cfg.Seed, cfg.Duration = o.seed, o.duration
	var sc *scenarios.Scenario
	if o.scenario != "" {
		var err error
		if sc, err = lab.LoadScenario(o.scenario); err != nil {
			return cfg, nil, scenarioHint(o.scenario, err)
		}
		if err := lab.ApplyScenario(&cfg, sc); err != nil {
			return cfg, nil, err
		}
		// The one rule: --set pins its key for the whole run.
		if sc.Pinned, err = lab.PinKeys(o.sets); err != nil {
			return cfg, nil, fmt.Errorf("--set: %w", err)
		}
		if o.given("seed") {
			cfg.Seed = o.seed
		}
		if o.given("duration") {
			cfg.Duration = o.duration
		}
	}
	apply := func(name string, list []string) error {
		for _, a := range list {
			k, v, err := lab.ParseAssignment(a)
			if err != nil {
				return fmt.Errorf("--%s: %w", name, err)
			}
			if f, ok := fixedBy[k]; ok && o.given(f) {
				return fmt.Errorf("--%s %s and --%s %s both set %s: give one", name, a, f, o.fs.Lookup(f).Value, k)
			}
			if err := lab.Set(&cfg, k, v); err != nil {
				return fmt.Errorf("--%s %s: %w", name, a, err)
			}
		}
		return nil
	}
	if err := apply("set", o.sets); err != nil {
		return cfg, nil, err
	}
	if err := apply(flagName, extra); err != nil {
		return cfg, nil, err
	}
	return cfg, sc, nil
}

// scenarioHint adds to a failed --scenario the built-in its name points at
// ("mobile-4g.toml" when no such file exists: the built-in is "mobile-4g").
func scenarioHint(name string, err error) error {
	base := strings.TrimSuffix(filepath.Base(name), ".toml")
	if _, statErr := os.Stat(name); errors.Is(statErr, os.ErrNotExist) && base != name {
		if _, ok := scenarios.BuiltinText(base); ok {
			return fmt.Errorf("%w; did you mean the built-in scenario --scenario %s?", err, base)
		}
	}
	return err
}

func paramHelp(w io.Writer) {
	writeParamHelp(w, func(string) bool { return true },
		"duration flags (--duration, --from, --to) take %s;\n  --every takes 100µs to 1h (the model's sample period), at most the --duration.\n")
}

// writeParamHelp is lab.WriteParamHelp (the keys keep takes, the value
// syntax) and durations, a format with one %s for the duration flags'
// range.
func writeParamHelp(w io.Writer, keep func(key string) bool, durations string) {
	lab.WriteParamHelp(w, keep)
	fmt.Fprintf(w, durations, strings.TrimPrefix(durationRule, "a duration from "))
}

func newFlagSet(name, args string, stderr io.Writer, extra func(io.Writer)) *flag.FlagSet {
	fs := flag.NewFlagSet("lab "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: lab %s %s\n\nflags:\n", name, args)
		printDefaults(fs)
		if extra != nil {
			extra(fs.Output())
		}
	}
	return fs
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var csvPath, packetsPath, recordPath, pcapPath string
	var every time.Duration
	var asJSON bool
	fs := newFlagSet("run", "[flags]", stderr, withExamples(paramHelp,
		"lab run --scenario jitter-fix --duration 10m",
		"lab run --set link.latency=50ms --set link.jitter=20ms --csv timeline.csv",
		"lab run --scenario handover --record handover.jlrec --json"))
	o.register(fs)
	fs.StringVar(&csvPath, "csv", "", "write the timeline to `FILE` (one row every --every; - is standard output)")
	everyVar(fs, &every, 50*time.Millisecond, "sample `PERIOD` of the timeline (100µs to 1h)")
	fs.StringVar(&packetsPath, "packets", "", "write one row per packet to `FILE` (- is standard output)")
	fs.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	fs.StringVar(&recordPath, "record", "", "record the session to `FILE` (zstd; 'lab replay' reads it)")
	fs.StringVar(&pcapPath, "pcap", "", "write every datagram to `FILE` as pcapng for Wireshark/tshark (true time, fate as comment)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if err := checkOutputs(map[string]string{"csv": csvPath, "packets": packetsPath, "record": recordPath, "pcap": pcapPath}, o.inputs()...); err != nil {
		return err
	}
	cfg, sc, err := o.config()
	if err != nil {
		return err
	}
	if every > cfg.Duration {
		return badUsage("--every %v is longer than the run (--duration %v): the timeline would have no sample; give a shorter period", every, cfg.Duration)
	}
	s, err := lab.Setup{Config: cfg, Every: every, Scenario: sc}.Start()
	if err != nil {
		return err
	}

	// Outputs are streams: written as the run goes, each row whole. The
	// summary goes to standard error when an output takes standard output.
	summaryOut := stdout
	var outs []*output
	defer func() {
		for _, f := range outs {
			f.Abort()
		}
	}()
	st := lab.Streams{Name: o.name()}
	for _, x := range []struct {
		flag, path string
		w          *io.Writer
	}{{"csv", csvPath, &st.Timeline}, {"record", recordPath, &st.Recording}, {"packets", packetsPath, &st.Packets}, {"pcap", pcapPath, &st.Pcap}} {
		if x.path == "" {
			continue
		}
		f, err := openOutput(x.path, stdout, stream)
		if err != nil {
			return flagFileError(x.flag, x.path, err)
		}
		if f.Stdout() {
			summaryOut = stderr
		}
		outs, *x.w = append(outs, f), f
	}
	streams, err := st.Start(s)
	if err != nil {
		return err
	}

	// Ctrl-C, SIGTERM and SIGHUP end the run between two samples: every
	// output is flushed whole, the recording closed with its summary, and
	// the summary so far printed. werr is the first write error of any
	// output, which ends the run.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	var werr error
	failed := func() error {
		werr = cmp.Or(werr, streams.Err())
		for _, f := range outs {
			werr = cmp.Or(werr, f.Err())
		}
		return werr
	}
	var stopped os.Signal
	prog := progress.New(stderr, "lab run", time.Now)
	for !s.Done() && failed() == nil && stopped == nil {
		if err := s.Run(s.Now() + sim.Time(every)); err != nil {
			return err
		}
		select {
		case stopped = <-sigs:
		default:
		}
		prog.Show(lab.ProgressText(s.Now(), sim.Time(cfg.Duration), prog.Elapsed()))
	}
	prog.Clear()
	wall := prog.Elapsed()
	// Flush and close every output even when one failed; the first error
	// wins.
	werr = cmp.Or(failed(), streams.Close())
	for _, f := range outs {
		werr = cmp.Or(werr, f.Commit())
	}
	if werr != nil {
		return werr
	}

	sum := s.Summary()
	sum.Overrides = append(sum.Overrides, o.sets...)
	if asJSON {
		enc := json.NewEncoder(summaryOut)
		enc.SetIndent("", "  ")
		err = enc.Encode(batch.NewRunSummary(version(), &cfg, sc, &sum))
	} else if err = sum.WriteText(summaryOut); err == nil {
		speed := s.Now().Seconds() / max(wall.Seconds(), 1e-9)
		_, err = fmt.Fprintf(summaryOut, "simulation speed  %.0f× real time (%v wall)\n", speed, wall.Round(time.Millisecond))
	}
	if err == nil && stopped != nil {
		return interrupted(stopped, fmt.Sprintf("stopped at %v of %v simulated; the outputs and the summary cover the run so far", s.Now(), sim.Time(cfg.Duration)))
	}
	return err
}

// isTerminal reports whether w is a terminal (progress.Terminal).
func isTerminal(w io.Writer) bool { return progress.Terminal(w) }
