package main

import (
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"jitterlab/lab"
	"jitterlab/scenarios"
	"jitterlab/sim"
)

// parseSeeds reads "1-5", "1,2,7" or "3".
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("--seeds %q: want seeds like 1-5 or 1,2,7", s)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil || b < a || b-a >= 1000 {
				return nil, fmt.Errorf("--seeds %q: want a range like 1-5 of at most 1000 seeds", s)
			}
		}
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
	}
	return out, nil
}

// job is one run of a batch: a configuration (seed set) and its timeline.
type job struct {
	cfg lab.Config
	sc  *scenarios.Scenario
}

// runJobs runs the jobs on all cores (each run is deterministic and
// independent, so the results do not depend on the scheduling) and returns
// their summaries in job order.
func runJobs(jobs []job) ([]lab.Summary, error) {
	out := make([]lab.Summary, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = runOne(jobs[i])
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("seed %d: %w", jobs[i].cfg.Seed, err)
		}
	}
	return out, nil
}

func runOne(j job) (lab.Summary, error) {
	s, err := lab.New(j.cfg, 0)
	if err != nil {
		return lab.Summary{}, err
	}
	if j.sc != nil {
		if err := s.ScheduleTimeline(j.sc); err != nil {
			return lab.Summary{}, err
		}
	}
	if err := s.Run(sim.Time(j.cfg.Duration)); err != nil {
		return lab.Summary{}, err
	}
	return s.Summary(), nil
}

// mean averages a metric over runs.
func mean(runs []lab.Summary, m lab.Metric) float64 {
	var t float64
	for i := range runs {
		t += m.Get(&runs[i])
	}
	return t / float64(len(runs))
}

func writeTable(w io.Writer, header []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	return tw.Flush()
}

// variantJobs builds one job per seed for base + sets.
func variantJobs(o *runOptions, seeds []uint64, sets []string) ([]job, error) {
	var jobs []job
	for _, seed := range seeds {
		saved := o.sets
		o.sets = append(append(setFlags{}, saved...), sets...)
		cfg, sc, err := o.config()
		o.sets = saved
		if err != nil {
			return nil, err
		}
		cfg.Seed = seed
		jobs = append(jobs, job{cfg, sc})
	}
	return jobs, nil
}
