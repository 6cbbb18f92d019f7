package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"syscall"
	"time"

	"jitterlab/batch"
	"jitterlab/internal/progress"
	"jitterlab/report"
)

// maxSeeds is the most seeds --seeds names; a batch is at most
// batch.MaxRuns runs (batch.Definition.Validate), so the memory a batch
// holds does not grow with what the flags ask for.
const maxSeeds = batch.MaxSeeds

// parseSeeds reads --seeds (batch.ParseSeeds): a bad list is a bad
// command line.
func parseSeeds(s string) ([]uint64, error) {
	seeds, err := batch.ParseSeeds("--seeds", s)
	return seeds, cmdLineErr(err)
}

// formatSeeds writes seeds as parseSeeds reads them.
var formatSeeds = batch.FormatSeeds

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

// newPlan builds a batch's plan (batch.NewPlan): the conditions from the
// scenario and --set, the seeds from --seeds, one configuration per arm.
// A refusal is a bad command line.
func newPlan(o *runOptions, seeds []uint64, def batch.Definition) (*batch.Plan, error) {
	base, sc, err := o.config()
	if err != nil {
		return nil, err
	}
	if o.given("seed") {
		return nil, badUsage("--seed %v and --seeds: %s runs on every seed of --seeds; write --seeds %v", o.fs.Lookup("seed").Value, o.fs.Name(), o.fs.Lookup("seed").Value)
	}
	def.Version, def.Overrides, def.Seeds = version(), append([]string{}, o.sets...), seeds
	p, err := batch.NewPlan(def, base, sc)
	if errors.Is(err, batch.ErrInvalid) {
		return nil, cmdLineErr(err)
	}
	return p, err
}

// checkWorkers checks --workers, of lab ab, sweep and check.
func checkWorkers(n int) error {
	if n < 1 || n > 1024 {
		return badUsage("--workers %d: allowed 1 to 1024, e.g. --workers %d", n, runtime.GOMAXPROCS(0))
	}
	return nil
}

// runBatch runs the plan and writes the outputs f asks for.
func runBatch(p *batch.Plan, f *batchFlags, stdout, stderr io.Writer) error {
	if err := checkWorkers(f.workers); err != nil {
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
		if (*x.out).Stdout() && f.json {
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
		if out != nil && out.Stdout() {
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
