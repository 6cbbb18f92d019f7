package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"jitterlab/lab"
	"strconv"
	"strings"
	"time"
)

// sweepAxis is one --over: a key and its values.
type sweepAxis struct {
	key    string
	values []string
}

// parseAxes reads every --over; two name the same key is an error.
func parseAxes(overs []string) ([]sweepAxis, error) {
	var axes []sweepAxis
	for _, over := range overs {
		key, list, ok := strings.Cut(over, "=")
		key = strings.TrimSpace(key)
		values := lab.SplitAssignments(list)
		if !ok || key == "" || len(values) == 0 {
			return nil, fmt.Errorf("--over %q: want key=v1,v2,... e.g. --over link.jitter=0ms,10ms,20ms", over)
		}
		for _, a := range axes {
			if a.key == key {
				return nil, fmt.Errorf("--over %s given twice: name each parameter once, with all its values", key)
			}
		}
		axes = append(axes, sweepAxis{key, values})
	}
	if len(axes) == 0 {
		return nil, fmt.Errorf("--over: give the parameter and its values, e.g. --over link.jitter=0ms,10ms,20ms")
	}
	return axes, nil
}

// grid lists every combination of the axes' values, the last axis
// fastest, or an error when combinations × seeds exceed maxRuns.
func grid(axes []sweepAxis, seeds int) ([][]string, error) {
	n := seeds
	for _, a := range axes {
		if n > maxRuns/len(a.values) {
			n = maxRuns + 1
			break
		}
		n *= len(a.values)
	}
	if n > maxRuns {
		total := uint64(seeds)
		for _, a := range axes {
			total *= uint64(len(a.values))
		}
		return nil, fmt.Errorf("--over × --seeds make %d runs; allowed at most %d", total, maxRuns)
	}
	combos := [][]string{nil}
	for _, a := range axes {
		var next [][]string
		for _, c := range combos {
			for _, v := range a.values {
				next = append(next, append(append([]string(nil), c...), v))
			}
		}
		combos = next
	}
	return combos, nil
}

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var overs setFlags
	var seedList, csvPath string
	fs := newFlagSet("sweep", "--over 'link.jitter=0ms,10ms,20ms,40ms' [--over …] [--scenario NAME] [--seeds 1-3] [--csv FILE]", stderr, withExamples(paramHelp,
		"lab sweep --over link.jitter=0ms,10ms,20ms,40ms --set link.latency=50ms",
		"lab sweep --scenario mobile-4g --over server.tick=20ms,50ms --over client.sender=frame,accumulator",
		"lab sweep --over link.loss=0%,1%,5% --seeds 1-10 --csv loss.csv"))
	o.register(fs)
	fs.Lookup("seed").Usage = "not for sweep: every value runs on every seed of --seeds"
	fs.Var(&overs, "over", "a parameter and its values: `key=v1,v2,...`; repeat it for a grid of every combination")
	fs.StringVar(&seedList, "seeds", "1-3", fmt.Sprintf("`seeds` to run every value on, e.g. 1-5 or 1,4,9 (at most %d)", maxSeeds))
	fs.StringVar(&csvPath, "csv", "", "also write the table (one row per combination and seed) to `FILE` (- is standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	axes, err := parseAxes(overs)
	if err != nil {
		return err
	}
	seeds, err := parseSeeds(seedList)
	if err != nil {
		return err
	}
	combos, err := grid(axes, len(seeds))
	if err != nil {
		return err
	}
	var jobs []job
	for _, c := range combos {
		var sets []string
		for i, v := range c {
			sets = append(sets, axes[i].key+"="+v)
		}
		js, err := variantJobs(&o, seeds, "over", sets)
		if err != nil {
			return err
		}
		jobs = append(jobs, js...)
	}
	var out *output
	if csvPath != "" {
		// Opened before the runs, so a path that cannot be written fails
		// first; it replaces an existing file only when complete.
		if out, err = openOutput(csvPath, stdout, whole); err != nil {
			return err
		}
		defer out.Abort()
	}
	start := time.Now()
	runs, err := runJobs(jobs)
	if err != nil {
		return err
	}
	// With the CSV on standard output, the readable table goes to
	// standard error, as 'lab run' does with its summary.
	report := stdout
	if out != nil && out.stdout {
		report = stderr
	}
	if err := writeConditions(report, &o, seeds, "the same for every value"); err != nil {
		return err
	}
	if len(axes) > 1 {
		fmt.Fprintf(report, "grid       %d combinations of %d parameters\n", len(combos), len(axes))
	}
	fmt.Fprintln(report, "\nmeans over seeds:")
	var header []string
	for _, a := range axes {
		header = append(header, a.key)
	}
	keys := len(header)
	for _, m := range lab.Metrics {
		header = append(header, m.Name)
	}
	var rows [][]string
	for i, c := range combos {
		row := append([]string(nil), c...)
		for _, m := range lab.Metrics {
			row = append(row, fmt.Sprintf("%.*f", m.Prec, mean(runs[i*len(seeds):(i+1)*len(seeds)], m)))
		}
		rows = append(rows, row)
	}
	if err := writeTable(report, header, rows); err != nil {
		return err
	}
	if out != nil {
		w := csv.NewWriter(out)
		w.Write(append(append(header[:keys:keys], "seed"), header[keys:]...))
		for i, j := range jobs {
			rec := append(append([]string(nil), combos[i/len(seeds)]...), strconv.FormatUint(j.cfg.Seed, 10))
			for _, m := range lab.Metrics {
				rec = append(rec, strconv.FormatFloat(m.Get(&runs[i]), 'f', 6, 64))
			}
			w.Write(rec)
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return err
		}
		if err := out.Commit(); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(report, "\n%d runs of %v simulated in %v\n", len(runs), jobs[0].cfg.Duration, time.Since(start).Round(time.Millisecond))
	return err
}
