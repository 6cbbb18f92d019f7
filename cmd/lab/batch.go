package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"jitterlab/lab"
	"jitterlab/scenarios"
	"jitterlab/sim"
)

// Bounds of a batch: --seeds names at most maxSeeds distinct seeds, and a
// batch (variants or sweep values × seeds) is at most maxRuns runs, so the
// memory a batch holds does not grow with what the flags ask for.
const (
	maxSeeds = 1000
	maxRuns  = 10000
)

// parseSeeds reads "1-5", "1,2,7", "3" or a mix ("1-3,9"): at most
// maxSeeds distinct seeds, each an integer in [0, 2^64).
func parseSeeds(s string) ([]uint64, error) {
	bad := func(why string) error {
		return fmt.Errorf("--seeds %q: %s; allowed up to %d distinct seeds in [0, 2^64) written like 1-5 or 1,4,9, e.g. --seeds 1-10", s, why, maxSeeds)
	}
	var out []uint64
	seen := map[uint64]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 64)
		if err != nil {
			return nil, bad(fmt.Sprintf("%q is not a seed", part))
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(strings.TrimSpace(hi), 10, 64); err != nil || b < a {
				return nil, bad(fmt.Sprintf("%q is not a range from low to high", part))
			}
		}
		if b-a >= uint64(maxSeeds-len(out)) {
			return nil, bad("too many seeds")
		}
		for i := uint64(0); i <= b-a; i++ {
			if seen[a+i] {
				return nil, bad(fmt.Sprintf("seed %d twice", a+i))
			}
			seen[a+i] = true
			out = append(out, a+i)
		}
	}
	return out, nil
}

// formatSeeds writes seeds as parseSeeds reads them, runs of consecutive
// seeds as ranges: [1 2 3 9] is "1-3,9".
func formatSeeds(seeds []uint64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j] != math.MaxUint64 && seeds[j+1] == seeds[j]+1 {
			j++
		}
		p := strconv.FormatUint(seeds[i], 10)
		if j > i {
			p += "-" + strconv.FormatUint(seeds[j], 10)
		}
		parts = append(parts, p)
		i = j + 1
	}
	return strings.Join(parts, ",")
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

// batchConflicts refuses settings a batch would silently override: every
// run takes its seed from --seeds, and every variant or value runs for the
// same duration. flagName names the variant's list (a, b, over).
func batchConflicts(o *runOptions, flagName string, sets []string) error {
	if o.given("seed") {
		return fmt.Errorf("--seed %v and --seeds: %s runs on every seed of --seeds; write --seeds %v", o.fs.Lookup("seed").Value, o.fs.Name(), o.fs.Lookup("seed").Value)
	}
	for _, a := range o.sets {
		if k, _, _ := lab.ParseAssignment(a); k == "sim.seed" {
			return fmt.Errorf("--set %s and --seeds: every run takes its seed from --seeds; write --seeds instead", a)
		}
	}
	for _, a := range sets {
		switch k, _, _ := lab.ParseAssignment(a); k {
		case "sim.seed":
			return fmt.Errorf("--%s %s and --seeds: every run takes its seed from --seeds, the same for all; write --seeds instead", flagName, a)
		case "sim.duration":
			return fmt.Errorf("--%s %s and --duration: every run lasts --duration, the same for all; set it with --duration", flagName, a)
		}
	}
	return nil
}

// variantJobs builds one job per seed for the scenario, --set and then
// sets (named --flagName in errors).
func variantJobs(o *runOptions, seeds []uint64, flagName string, sets []string) ([]job, error) {
	if err := batchConflicts(o, flagName, sets); err != nil {
		return nil, err
	}
	cfg, sc, err := o.configWith(flagName, sets)
	if err != nil {
		return nil, err
	}
	var jobs []job
	for _, seed := range seeds {
		c := cfg
		c.Seed = seed
		jobs = append(jobs, job{c, sc})
	}
	return jobs, nil
}

// writeConditions writes what every run of a batch shares: the scenario
// and its file, every --set, the seeds, the duration and the link.
func writeConditions(w io.Writer, o *runOptions, seeds []uint64, sameFor string) error {
	cfg, sc, err := o.config()
	if err != nil {
		return err
	}
	scen := "none (the defaults)"
	if sc != nil {
		scen = fmt.Sprintf("%s (%s)", sc.Name, sc.File)
		if n := len(sc.Timeline); n > 0 {
			scen += fmt.Sprintf(", a timeline of %d changes ('lab scenarios -v' lists them)", n)
		}
	}
	sets := "none"
	if len(o.sets) > 0 {
		sets = "--set " + strings.Join(o.sets, " --set ")
	}
	var link []string
	for _, k := range []string{"latency", "jitter", "jitter_dist", "loss", "loss_burst", "duplicate", "reorder", "rate", "queue"} {
		p, _ := lab.Lookup("link." + k)
		link = append(link, k+" "+p.Get(&cfg))
	}
	_, err = fmt.Fprintf(w, "scenario   %s\noverrides  %s\nruns       seeds %s (%s), %v simulated each\nlink       %s (up/down where they differ)\n",
		scen, sets, formatSeeds(seeds), sameFor, cfg.Duration, strings.Join(link, ", "))
	return err
}
