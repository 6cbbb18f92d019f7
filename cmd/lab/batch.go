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

// metric is one column of a comparison: a name and how to read it.
type metric struct {
	name string
	get  func(*lab.Summary) float64
	prec int
}

var metricsTable = []metric{
	{"judder m/s", func(s *lab.Summary) float64 { return s.JudderMPS }, 3},
	{"speed m/s", func(s *lab.Summary) float64 { return s.MeanVisibleSpeedMPS }, 3},
	{"commanded m/s", func(s *lab.Summary) float64 { return s.CommandedSpeedMPS }, 3},
	{"visible err p99 m", func(s *lab.Summary) float64 { return s.VisibleErrorM.P99 }, 3},
	{"correction p95 m", func(s *lab.Summary) float64 { return s.CorrectionM.P95 }, 3},
	{"snaps", func(s *lab.Summary) float64 { return float64(s.Snaps) }, 1},
	{"latch flips", func(s *lab.Summary) float64 { return float64(s.LatchFlips) }, 1},
	{"overwritten", func(s *lab.Summary) float64 { return float64(s.Overwritten) }, 1},
	{"starved", func(s *lab.Summary) float64 { return float64(s.Starved) }, 1},
	{"late-dropped", func(s *lab.Summary) float64 { return float64(s.LateDropped) }, 1},
	{"input delay p50 ms", func(s *lab.Summary) float64 { return s.InputDelayMs.P50 }, 1},
	{"rtt p50 ms", func(s *lab.Summary) float64 { return s.RTTMs.P50 }, 1},
}

// mean averages a metric over runs.
func mean(runs []lab.Summary, m metric) float64 {
	var t float64
	for i := range runs {
		t += m.get(&runs[i])
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

// splitSets reads a variant written as "key=value key=value" (or with
// commas).
func splitSets(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
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
