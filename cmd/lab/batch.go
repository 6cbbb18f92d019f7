package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"jitterlab/batch"
	"jitterlab/internal/progress"
	"jitterlab/lab"
	"jitterlab/report"
)

// Bounds of a batch: --seeds names at most maxSeeds distinct seeds, and a
// batch (variants or sweep values × seeds) is at most maxRuns runs, so the
// memory a batch holds does not grow with what the flags ask for.
const (
	maxSeeds = batch.MaxSeeds
	maxRuns  = 10000
)

// parseSeeds reads --seeds (batch.ParseSeeds): a bad list is a bad
// command line.
func parseSeeds(s string) ([]uint64, error) {
	seeds, err := batch.ParseSeeds("--seeds", s)
	return seeds, cmdLineErr(err)
}

// formatSeeds writes seeds as parseSeeds reads them.
var formatSeeds = batch.FormatSeeds

// batchConflicts refuses settings a batch would silently override: every
// run takes its seed from --seeds, and every variant or value runs for the
// same duration. flagName names the variant's list (a, b, over).
func batchConflicts(o *runOptions, flagName string, sets []string) error {
	if o.given("seed") {
		return badUsage("--seed %v and --seeds: %s runs on every seed of --seeds; write --seeds %v", o.fs.Lookup("seed").Value, o.fs.Name(), o.fs.Lookup("seed").Value)
	}
	for _, a := range o.sets {
		if k, _, _ := lab.ParseAssignment(a); k == "sim.seed" {
			return badUsage("--set %s and --seeds: every run takes its seed from --seeds; write --seeds instead", a)
		}
	}
	for _, a := range sets {
		switch k, _, _ := lab.ParseAssignment(a); k {
		case "sim.seed":
			return badUsage("--%s %s and --seeds: every run takes its seed from --seeds, the same for all; write --seeds instead", flagName, a)
		case "sim.duration":
			return badUsage("--%s %s and --duration: every run lasts --duration, the same for all; set it with --duration", flagName, a)
		}
	}
	return nil
}

// batchFlags are the flags lab ab and lab sweep share (and lab merge its
// outputs).
type batchFlags struct {
	seeds, csv, jsonl, html string
	json                    bool
	workers                 int
	inputs                  []string // the files the batch reads, which no output may be
}

// registerOutputs registers --json, --csv, --html (and --jsonl unless
// merging: a merge's lines are its input).
func (f *batchFlags) registerOutputs(fs *flag.FlagSet, jsonl bool) {
	fs.BoolVar(&f.json, "json", false, "print the result as JSON (docs/reference/json.md) instead of the table")
	fs.StringVar(&f.csv, "csv", "", "also write one row per run (every metric) to `FILE` (- is standard output)")
	fs.StringVar(&f.html, "html", "", "also write a self-contained HTML report (conditions, table, per-seed dots, timelines) to `FILE`")
	if jsonl {
		fs.StringVar(&f.jsonl, "jsonl", "", "also write one JSON line per run (scenario, seed, every parameter and metric) to `FILE` (- is standard output)")
	}
}

func (f *batchFlags) register(fs *flag.FlagSet, what string) {
	fs.StringVar(&f.seeds, "seeds", "1-20", fmt.Sprintf("`seeds` to run %s on, e.g. 1-20 or 1,4,9 (at most %d)", what, maxSeeds))
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "run seeds on `N` cores at once (the output does not depend on it)")
	f.registerOutputs(fs, true)
}

// newPlan builds a batch's plan: the conditions from the scenario and
// --set, and one configuration per arm (each arm's settings named by the
// flag that gave them).
func newPlan(o *runOptions, seeds []uint64, def batch.Definition, flagOf func(arm int) string) (*batch.Plan, error) {
	base, sc, err := o.config()
	if err != nil {
		return nil, err
	}
	def.Version, def.Scenario, def.Overrides = version(), "default", append([]string{}, o.sets...)
	def.Seeds, def.DurationS = seeds, base.Duration.Seconds()
	if sc != nil {
		def.Scenario, def.ScenarioFile, def.TimelineChanges = sc.Name, sc.File, len(sc.Timeline)
		if def.Overridden, err = lab.Overridden(sc, base.Duration); err != nil {
			return nil, err
		}
	}
	def.Link = batch.LinkOf(&base)
	p := &batch.Plan{Def: def, Scenario: sc}
	if err := sweepValuesOnce(o, def.Axes); err != nil {
		return nil, err
	}
	for i, sets := range def.Arms() {
		if err := batchConflicts(o, flagOf(i), sets); err != nil {
			return nil, err
		}
		if err := keysOnce(flagOf(i), sets); err != nil {
			return nil, err
		}
		cfg, _, err := o.configWith(flagOf(i), sets)
		if err != nil {
			return nil, cmdLineErr(err)
		}
		p.Configs = append(p.Configs, cfg)
	}
	if p.Def.ArmsOverridden, err = p.ArmsOverridden(); err != nil {
		return nil, err
	}
	if def.Kind == "ab" && reflect.DeepEqual(p.Configs[0], p.Configs[1]) {
		show := func(sets []string) string {
			if len(sets) == 0 {
				return "(none: the scenario as it is)"
			}
			return strings.Join(sets, " ")
		}
		return nil, badUsage("--a %s and --b %s give the same settings: an A/B of a variant with itself shows nothing; give B what differs", show(def.A), show(def.B))
	}
	return p, nil
}

// settingKeys are the registry keys an assignment's key sets: link.X sets
// up.X and down.X.
func settingKeys(key string) []string {
	if rest, ok := strings.CutPrefix(key, "link."); ok {
		return []string{"up." + rest, "down." + rest}
	}
	return []string{key}
}

// sameTarget reports whether keys a and b set a key in common, and which.
func sameTarget(a, b string) (string, bool) {
	for _, x := range settingKeys(a) {
		if slices.Contains(settingKeys(b), x) {
			return x, true
		}
	}
	return "", false
}

// keysOnce refuses a variant (--a, --b) that sets one key twice: only the
// last would count.
func keysOnce(flagName string, sets []string) error {
	for i, a := range sets {
		ka, _, err := lab.ParseAssignment(a)
		if err != nil {
			continue // configWith names it
		}
		for _, b := range sets[i+1:] {
			kb, _, err := lab.ParseAssignment(b)
			if err != nil {
				continue
			}
			if k, ok := sameTarget(ka, kb); ok {
				return badUsage("--%s %q: %s and %s set %s twice: give each key once", flagName, strings.Join(sets, " "), a, b, k)
			}
		}
	}
	return nil
}

// sweepValuesOnce refuses a sweep value given twice (1ms,1ms or
// 1ms,1000us): the table would have two identical columns.
func sweepValuesOnce(o *runOptions, axes []batch.Axis) error {
	for _, a := range axes {
		var cfgs []lab.Config
		for i, v := range a.Values {
			cfg, _, err := o.configWith("over", []string{a.Key + "=" + v})
			if err != nil {
				return nil // newPlan reports it with the arm
			}
			for j, prev := range cfgs {
				if reflect.DeepEqual(prev, cfg) {
					return badUsage("--over %s=%s: %s and %s are the same value, given twice: give each value once", a.Key, strings.Join(a.Values, ","), a.Values[j], a.Values[i])
				}
			}
			cfgs = append(cfgs, cfg)
		}
	}
	return nil
}

// workersFlag checks --workers.
func (f *batchFlags) check() error {
	if f.workers < 1 || f.workers > 1024 {
		return badUsage("--workers %d: allowed 1 to 1024, e.g. --workers %d", f.workers, runtime.GOMAXPROCS(0))
	}
	return nil
}

// runBatch runs the plan and writes the outputs f asks for.
func runBatch(p *batch.Plan, f *batchFlags, stdout, stderr io.Writer) error {
	if err := f.check(); err != nil {
		return err
	}
	outs, err := f.open(stdout)
	if err != nil {
		return err
	}
	defer outs.abort()
	start := time.Now()
	runs, err := execute(p, batch.Shard{}, f.workers, "lab "+p.Def.Kind, stderr)
	if err != nil {
		return err
	}
	r, err := batch.NewResult(p.Def, runs)
	if err != nil {
		return err
	}
	if err := outs.write(r, f, p, stdout, stderr); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stderr, "%d runs of %v simulated in %v\n", len(runs), p.Def.Duration(), time.Since(start).Round(time.Millisecond))
	return err
}

// execute runs the shard of the plan as p.Execute does, with a progress
// line on stderr when it is a terminal; SIGINT, SIGTERM or SIGHUP cancel
// the runs not started and the error says how many were done.
func execute(p *batch.Plan, shard batch.Shard, workers int, what string, stderr io.Writer) ([]batch.Run, error) {
	ctx, stop, caught := signalContext(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return executeUntil(p, shard, workers, what, stderr, ctx.Done(), caught)
}

// executeUntil is execute canceled when cancel closes, by the signal
// caught returns.
func executeUntil(p *batch.Plan, shard batch.Shard, workers int, what string, stderr io.Writer, cancel <-chan struct{}, caught func() os.Signal) ([]batch.Run, error) {
	line := progress.New(stderr, what, time.Now)
	line.Count(0, shard.Count(p.Def.Runs()), "runs")
	p.Progress = func(done, total int) { line.Count(done, total, "runs") }
	p.Cancel = cancel
	runs, err := p.Execute(shard, workers)
	line.Clear()
	if errors.Is(err, batch.ErrCanceled) {
		return nil, interrupted(caught(), line.Canceled()+"; nothing written")
	}
	return runs, err
}

// batchOutputs are a batch's output files, opened before the runs so that
// a path that cannot be written fails first; each replaces an existing
// file only when complete.
type batchOutputs struct {
	csv, jsonl, html *output
}

func (f *batchFlags) open(stdout io.Writer) (*batchOutputs, error) {
	if err := checkOutputs(map[string]string{"csv": f.csv, "jsonl": f.jsonl, "html": f.html}, f.inputs...); err != nil {
		return nil, err
	}
	if f.html == "-" {
		return nil, badUsage("--html -: write the report to a file, e.g. --html report.html")
	}
	o := &batchOutputs{}
	var err error
	for _, x := range []struct {
		path string
		out  **output
	}{{f.csv, &o.csv}, {f.jsonl, &o.jsonl}, {f.html, &o.html}} {
		if x.path == "" {
			continue
		}
		if *x.out, err = openOutput(x.path, stdout, whole); err != nil {
			o.abort()
			return nil, err
		}
		if (*x.out).stdout && f.json {
			o.abort()
			return nil, badUsage("--json and --%s -: both on standard output; give --%s a file", map[*output]string{o.csv: "csv", o.jsonl: "jsonl"}[*x.out], map[*output]string{o.csv: "csv", o.jsonl: "jsonl"}[*x.out])
		}
	}
	return o, nil
}

func (o *batchOutputs) abort() {
	for _, out := range []*output{o.csv, o.jsonl, o.html} {
		if out != nil {
			out.Abort()
		}
	}
}

// write writes the table (text or JSON) and every output file. With an
// output file on standard output the table goes to standard error, as
// 'lab run' does with its summary.
func (o *batchOutputs) write(r *batch.Result, f *batchFlags, p *batch.Plan, stdout, stderr io.Writer) error {
	table := stdout
	for _, out := range []*output{o.csv, o.jsonl} {
		if out != nil && out.stdout {
			table = stderr
		}
	}
	var err error
	if f.json {
		err = r.WriteJSON(table)
	} else {
		err = r.WriteText(table)
	}
	if err != nil {
		return err
	}
	if o.csv != nil {
		if err := r.WriteCSV(o.csv); err != nil {
			return err
		}
		if err := o.csv.Commit(); err != nil {
			return err
		}
	}
	if o.jsonl != nil {
		if err := batch.WriteJSONL(o.jsonl, r.Runs); err != nil {
			return err
		}
		if err := o.jsonl.Commit(); err != nil {
			return err
		}
	}
	if o.html != nil {
		tl, err := p.Timelines(r, f.workers)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		if err := report.WriteBatch(&b, r, tl); err != nil {
			return err
		}
		if _, err := o.html.Write(b.Bytes()); err != nil {
			return err
		}
		if err := o.html.Commit(); err != nil {
			return err
		}
	}
	return nil
}
