package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"jitterlab/lab"
	"jitterlab/recordings"
	"jitterlab/sim"
)

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var out string
	var from, to time.Duration
	var width uint64
	var trust lab.Trust
	fs := newFlagSet("plot", "[RECORDING] --out plot.png [--from 10s --to 40s] [--scenario NAME --set …]", stderr, withExamples(func(w io.Writer) {
		io.WriteString(w, "\nA proxy recording (lab proxy --record) is drawn as the delay the relay added, per direction\n"+
			"and client, and how late it wrote each copy; with the game's telemetry (--telemetry), the\n"+
			"game's tick offset, send interval and visible error below, each column its frames' range.\n")
		paramHelp(w)
	},
		"lab plot recordings/examples/jitter-fix.jlrec --from 10s --to 40s --out jitter.png",
		"lab plot --scenario latency-spike --duration 40s --from 15s --out spike.png",
		"lab plot --set link.jitter=20ms --duration 20s --out - --width 800 > jitter.png"))
	o.register(fs)
	fs.StringVar(&out, "out", "", "write the PNG to `FILE` (- is standard output; an existing file is replaced only by a finished plot)")
	durationVar(fs, &from, "from", 0, true, "10s", "plot from this true `TIME` (0 or unset: the start)")
	durationVar(fs, &to, "to", 0, true, "40s", "plot up to this true `TIME` (0 or unset: the end)")
	trustVar(fs, &trust, "the recording")
	uintVar(fs, &width, "width", 1200, 200, 10000, "800", "image width in `PIXELS`")
	files, err := parseFlagsAndArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	if out == "" {
		return badUsage("--out: name the PNG file to write, e.g. --out plot.png")
	}
	if ext := filepath.Ext(out); ext != "" && !strings.EqualFold(ext, ".png") && out != "-" {
		return badUsage("--out %q: lab plot writes PNG only; name the file .png (or without an extension)", out)
	}
	if err := checkOutputs(map[string]string{"out": out}, append(files, o.inputs()...)...); err != nil {
		return err
	}
	if len(files) > 0 {
		// A recording's settings are its own: the flags of a simulated
		// run would be ignored, so they are refused.
		for _, name := range []string{"scenario", "set", "seed", "duration"} {
			if o.given(name) {
				return badUsage("--%s %s applies to a simulated run; a recording is plotted as recorded (drop --%s, or plot without the recording)", name, fs.Lookup(name).Value, name)
			}
		}
	}
	// window checks --from and --to against the end of what is plotted,
	// the recording's or the run's (what).
	window := func(end time.Duration, what string) error {
		switch {
		case to == 0 && from >= end:
			return badUsage("--from %v is not before %s's end %v: an empty window", from, what, asWritten(end))
		case to == 0:
			to = end
		case from >= to:
			return badUsage("--from %v is not before --to %v: an empty window", from, to)
		}
		return nil
	}
	var cfg lab.Config
	var lost *loss // what a recording lost (nil: a run)
	var title string
	var plot *lab.Plot
	if len(files) > 0 {
		// A recording: its window of samples, its own settings for the lines.
		r, f, l, err := openRecording(files, "plot", stderr)
		if err != nil {
			return err
		}
		defer f.Close()
		lost = l
		if r.Frames() <= 1 {
			what := "samples"
			if r.Header.Kind == recordings.KindProxy {
				what = "packets"
			}
			return fmt.Errorf("%s holds nothing to plot: its header and no %s", files[0], what)
		}
		if r.Header.Kind == recordings.KindProxy {
			if err := window(time.Duration(r.Duration()), "the recording"); err != nil {
				return err
			}
			if err := plotProxyTo(r, files[0], out, sim.Time(from), sim.Time(to), int(width), stdout, stderr); err != nil {
				return err
			}
			return lost.err()
		}
		if cfg, err = lab.ConfigFromHeader(r.Header, trust); err != nil {
			return err
		}
		if err := window(time.Duration(r.Duration()), "the recording"); err != nil {
			return err
		}
		plot = lab.NewPlot(&cfg, int(width))
		if err := plot.Scan(r, sim.Time(from), sim.Time(to)); err != nil {
			return err
		}
		title = fmt.Sprintf("jitterlab  %s  seed %d  recording %s", r.Header.Scenario, r.Header.Seed, files[0])
	} else {
		// A fresh run of the scenario and settings.
		c, scen, err := o.config()
		if err != nil {
			return err
		}
		cfg = c
		s, err := lab.Setup{Config: cfg, Scenario: scen}.Start()
		if err != nil {
			return err
		}
		if err := window(cfg.Duration, "the run"); err != nil {
			return err
		}
		plot = lab.NewPlot(&cfg, int(width))
		if err := plot.Run(s, sim.Time(from), sim.Time(to)); err != nil {
			return err
		}
		title = fmt.Sprintf("jitterlab  %s  seed %d", o.name(), cfg.Seed)
	}
	samples := plot.Samples()
	if len(samples) == 0 {
		return fmt.Errorf("no samples between %v and %v", from, asWritten(to))
	}
	report, err := writeBuffered(out, stdout, stderr, func(w io.Writer) error { return plot.WritePNG(w, title) })
	if err != nil {
		return err
	}
	if _, err = fmt.Fprintf(report, "wrote %s: %d samples from %.2f s to %.2f s\n", out, plot.Len(), samples[0].TS, samples[len(samples)-1].TS); err != nil {
		return err
	}
	return lost.err()
}
