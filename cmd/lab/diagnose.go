package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"

	"jitterlab/diagnose"
	"jitterlab/internal/buildinfo"
	"jitterlab/internal/progress"
	"jitterlab/lab"
	"jitterlab/report"
)

func cmdDiagnose(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var seedList, metric, htmlPath, offsets, inputs string
	var asJSON bool
	fs := newFlagSet("diagnose", "[--scenario NAME] [--set key=value …] [--seeds 1-20] [--duration 2m] [--offsets 0,1/4,1/2,3/4] [--inputs steady,stopgo,random] [--metric M] [--json] [--html FILE]", stderr, withExamples(paramHelp,
		"lab diagnose --scenario jitter-fix",
		"lab diagnose --scenario drift --set client.drift_ppm=-5000ppm --seeds 1-10",
		"lab diagnose --scenario mobile-4g --metric progress_deficit_mps --html report.html"))
	o.register(fs)
	fs.Lookup("seed").Usage = hiddenUsage // refused below, with the reason
	fs.StringVar(&seedList, "seeds", "1-20", "seeds to run every variant on, e.g. 1-20 or 1,4,9")
	fs.StringVar(&metric, "metric", "judder_mps", "primary report-card `metric`, named as ab and sweep name it: "+metricNames())
	fs.StringVar(&offsets, "offsets", "", "latency offsets of the ensemble, added to the uplink's latency: durations or shares of the server tick, the first the search's (default 0,1/4,1/2,3/4 of a tick)")
	fs.StringVar(&inputs, "inputs", "", "input scripts of the ensemble, the first the search's (default the configuration's own, then steady, stopgo, random)")
	fs.BoolVar(&asJSON, "json", false, "print the diagnosis as JSON")
	fs.StringVar(&htmlPath, "html", "", "also write a self-contained HTML report to `FILE`")
	o.duration, fs.Lookup("duration").DefValue = 2*time.Minute, "2m0s"
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if o.given("seed") {
		return badUsage("--seed: diagnose runs every seed of --seeds (e.g. --seeds 1-20)")
	}
	for _, a := range o.sets {
		switch k, _, _ := lab.ParseAssignment(a); k {
		case "sim.seed":
			return fmt.Errorf("--set %s: diagnose runs every seed of --seeds (e.g. --seeds 1-20)", a)
		case "sim.duration":
			return fmt.Errorf("--set %s: diagnose runs every seed for --duration (e.g. --duration 2m)", a)
		}
	}
	if htmlPath == "-" {
		return badUsage("--html -: write the report to a file, e.g. --html report.html")
	}
	if err := checkOutputs(map[string]string{"html": htmlPath}, o.inputs()...); err != nil {
		return err
	}
	seeds, err := parseSeeds(seedList)
	if err != nil {
		return err
	}
	if err := diagnose.CheckSeeds(seeds); err != nil {
		return cmdLineErr(err)
	}
	if _, err := diagnose.LookupMetric(metric); err != nil {
		return cmdLineErr(err)
	}
	cfg, sc, err := o.config()
	if err != nil {
		return err
	}
	if !o.given("duration") {
		cfg.Duration = 2 * time.Minute // not the scenario's: every diagnosis runs long enough
	}
	opts := diagnose.Options{Base: cfg, Scenario: sc, Name: o.name(), Overrides: o.sets, Seeds: seeds,
		Metric: metric, Workers: runtime.GOMAXPROCS(0), Version: version()}
	if offsets != "" {
		if opts.Offsets, err = diagnose.ParseOffsets(offsets, cfg.Server.Tick); err != nil {
			return cmdLineErr(err)
		}
	}
	if inputs != "" {
		if opts.Inputs, err = diagnose.ParseInputs(inputs); err != nil {
			return cmdLineErr(err)
		}
	}
	// Progress on a terminal, one line rewritten, nothing when piped;
	// Ctrl-C, SIGTERM and SIGHUP cancel the runs not started and say what
	// was cancelled.
	ctx, stop, caught := signalContext(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	line := progress.New(stderr, "lab diagnose", time.Now)
	opts.Progress = func(done, queued int) { line.Queued(done, queued, "runs") }
	opts.Cancel = ctx.Done()
	r, err := diagnose.Run(opts)
	line.Clear()
	if errors.Is(err, diagnose.ErrCanceled) {
		return interrupted(caught(), line.Canceled()+" for "+o.name()+"; nothing is reported")
	}
	if err != nil {
		return err
	}
	if htmlPath != "" {
		if err := writeHTML(htmlPath, stdout, r); err != nil {
			return err
		}
	}
	if asJSON {
		return r.WriteJSON(stdout)
	}
	return r.WriteText(stdout)
}

// version is the module's version and VCS revision as the build recorded
// them ("(devel)" under go run): buildinfo.Info.Short.
func version() string { return buildinfo.Read().Short() }

// writeHTML writes the report through the atomic output path: an existing
// file is replaced only by a finished report.
func writeHTML(path string, stdout io.Writer, r *diagnose.Result) error {
	_, err := writeBuffered(path, stdout, io.Discard, func(w io.Writer) error { return report.Write(w, r) })
	if err != nil {
		return fmt.Errorf("--html: %w", err)
	}
	return nil
}

// metricNames lists the report-card metrics --metric takes.
func metricNames() string {
	var names []string
	for _, m := range diagnose.Metrics {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}
