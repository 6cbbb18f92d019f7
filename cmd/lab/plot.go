package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"

	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/sim"
)

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var out string
	var from, to time.Duration
	var width int
	fs := newFlagSet("plot", "[RECORDING] --out plot.png [--from 10s --to 40s] [--scenario NAME --set …]", stderr, paramHelp)
	o.register(fs)
	fs.StringVar(&out, "out", "", "write the PNG to `FILE`")
	fs.DurationVar(&from, "from", 0, "plot from this true time")
	fs.DurationVar(&to, "to", 0, "plot up to this true time (default: the end)")
	fs.IntVar(&width, "width", 1200, "image width in pixels")
	files, err := parseFlagsAndArgs(fs, args)
	if err != nil {
		return err
	}
	if out == "" {
		return fmt.Errorf("--out: name the PNG file to write")
	}
	var samples []metrics.Sample
	var cfg lab.Config
	var title string
	collect := func(x *metrics.Sample) error { samples = append(samples, *x); return nil }
	if len(files) > 0 {
		// A recording: its window of samples, its own settings for the lines.
		r, f, err := openRecording(files, "plot", stderr)
		if err != nil {
			return err
		}
		defer f.Close()
		if cfg, err = lab.ConfigFromHeader(r.Header); err != nil {
			return err
		}
		if to == 0 {
			to = time.Duration(r.Duration())
		}
		if err := r.Scan(sim.Time(from), sim.Time(to), collect, nil); err != nil {
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
		s, err := lab.New(cfg, 0)
		if err != nil {
			return err
		}
		if scen != nil {
			if err := s.ScheduleTimeline(scen); err != nil {
				return err
			}
		}
		if to == 0 {
			to = cfg.Duration
		}
		s.OnSample = func(x *metrics.Sample) {
			if t := time.Duration(x.TS * 1e9); t >= from && t <= to {
				samples = append(samples, *x)
			}
		}
		if err := s.Run(sim.Time(to)); err != nil {
			return err
		}
		title = fmt.Sprintf("jitterlab  %s  seed %d", o.name(), cfg.Seed)
	}
	if len(samples) == 0 {
		return fmt.Errorf("no samples between %v and %v", from, to)
	}
	cc := cfg.Client
	panels := metrics.StandardPanels(cc.Band, cc.IntervalFast.Seconds(), cc.IntervalSlow.Seconds(), cc.Snap)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := metrics.WritePNG(bw, samples, panels, width, title); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "wrote %s: %d samples from %.2f s to %.2f s\n", out, len(samples), samples[0].TS, samples[len(samples)-1].TS)
	return err
}
