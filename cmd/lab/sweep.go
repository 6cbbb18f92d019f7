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

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var over, seedList, csvPath string
	fs := newFlagSet("sweep", "--over 'link.jitter=0ms,10ms,20ms,40ms' [--scenario NAME] [--seeds 1-3] [--csv FILE]", stderr, paramHelp)
	o.register(fs)
	fs.StringVar(&over, "over", "", "the parameter and its values: `key=v1,v2,...`")
	fs.StringVar(&seedList, "seeds", "1-3", "seeds to run every value on")
	fs.StringVar(&csvPath, "csv", "", "also write the table (one row per value and seed) to `FILE`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	key, list, ok := strings.Cut(over, "=")
	values := lab.SplitAssignments(list)
	if !ok || key == "" || len(values) == 0 {
		return fmt.Errorf("--over %q: want key=v1,v2,... e.g. link.jitter=0ms,10ms,20ms", over)
	}
	seeds, err := parseSeeds(seedList)
	if err != nil {
		return err
	}
	var jobs []job
	for _, v := range values {
		js, err := variantJobs(&o, seeds, []string{key + "=" + v})
		if err != nil {
			return err
		}
		jobs = append(jobs, js...)
	}
	start := time.Now()
	runs, err := runJobs(jobs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "scenario %s, %v each, seeds %s; means over seeds\n\n", o.name(), jobs[0].cfg.Duration, seedList)
	header := []string{key}
	for _, m := range lab.Metrics {
		header = append(header, m.Name)
	}
	var rows [][]string
	for i, v := range values {
		row := []string{v}
		for _, m := range lab.Metrics {
			row = append(row, fmt.Sprintf("%.*f", m.Prec, mean(runs[i*len(seeds):(i+1)*len(seeds)], m)))
		}
		rows = append(rows, row)
	}
	if err := writeTable(stdout, header, rows); err != nil {
		return err
	}
	if csvPath != "" {
		f, err := openOutput(csvPath, stdout, whole)
		if err != nil {
			return err
		}
		defer f.Abort()
		w := csv.NewWriter(f)
		w.Write(append([]string{key, "seed"}, header[1:]...))
		for i, j := range jobs {
			rec := []string{values[i/len(seeds)], strconv.FormatUint(j.cfg.Seed, 10)}
			for _, m := range lab.Metrics {
				rec = append(rec, strconv.FormatFloat(m.Get(&runs[i]), 'f', 6, 64))
			}
			w.Write(rec)
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return err
		}
		if err := f.Commit(); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(stdout, "\n%d runs of %v simulated in %v\n", len(runs), jobs[0].cfg.Duration, time.Since(start).Round(time.Millisecond))
	return err
}
