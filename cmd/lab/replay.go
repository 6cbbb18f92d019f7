package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/tui"
)

// openRecording opens FILE, the command's one argument.
func openRecording(args []string, cmd string) (*recordings.Reader, *os.File, error) {
	if len(args) != 1 {
		return nil, nil, fmt.Errorf("want one recording FILE (see 'lab %s -h')", cmd)
	}
	f, err := os.Open(args[0])
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s: not a regular file", args[0])
	}
	r, err := recordings.Open(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", args[0], err)
	}
	return r, f, nil
}

func cmdReplay(args []string, stdout, stderr io.Writer) error {
	var verify, view bool
	var from, to time.Duration
	fs := newFlagSet("replay", "FILE [--tui] [--verify] [--from 30s --to 40s]", stderr, withExamples(nil,
		"lab replay recordings/examples/jitter-fix.jlrec --verify",
		"lab replay recordings/examples/jitter-fix.jlrec --from 30s --to 31s",
		"lab replay session.jlrec --tui"))
	fs.BoolVar(&view, "tui", false, "play the recording in the lab's charts, with seek (a terminal is needed)")
	fs.BoolVar(&verify, "verify", false, "re-simulate from the header and the change log and prove the samples and summary identical")
	durationVar(fs, &from, "from", 0, true, "30s", "print the timeline from this true `TIME` (seeks to its frame)")
	durationVar(fs, &to, "to", 0, true, "40s", "print the timeline up to this true `TIME`")
	files, err := parseFlagsAndArgs(fs, args)
	if err != nil {
		return err
	}
	r, f, err := openRecording(files, "replay")
	if err != nil {
		return err
	}
	defer f.Close()
	if view {
		v, err := tui.NewReplay(r, files[0])
		if err != nil {
			return err
		}
		if err := needTerminal(); err != nil {
			return err
		}
		return v.Run(nil)
	}

	h := r.Header
	changes, err := r.Changes()
	if err != nil {
		return err
	}
	end, err := r.End()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recording  %s\nscenario   %s, seed %d, sample every %v\n", files[0], h.Scenario, h.Seed, time.Duration(h.EveryNs))
	fmt.Fprintf(stdout, "length     %v in %d frames", r.Duration(), r.Frames())
	if r.Truncated {
		fmt.Fprintf(stdout, " (truncated at byte %d: read up to the last whole frame)", r.TruncatedAt)
	} else if end == nil {
		fmt.Fprint(stdout, " (not closed: the session did not finish)")
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "changes    %d\n", len(changes))
	for _, c := range changes {
		fmt.Fprintf(stdout, "  at %v  %s = %s\n", c.At, c.Key, c.Value)
	}
	if end != nil && len(end.Summary) > 0 {
		var sum lab.Summary
		if err := json.Unmarshal(end.Summary, &sum); err == nil {
			fmt.Fprintln(stdout)
			if err := sum.WriteText(stdout); err != nil {
				return err
			}
		}
	}
	if from > 0 || to > 0 {
		if to == 0 {
			to = time.Duration(r.Duration())
		}
		w, err := metrics.NewCSVWriter(stdout)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		if err := r.Scan(sim.Time(from), sim.Time(to), w.Write, nil); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if verify {
		start := time.Now()
		v, err := lab.Verify(r)
		if err != nil {
			return fmt.Errorf("verify FAILED: %w", err)
		}
		summary := "no summary recorded"
		if v.HasSummary {
			summary = "summary identical"
		}
		fmt.Fprintf(stdout, "\nverified: %d samples identical to a re-simulation of %v from the header and %d changes; %s (%v)\n",
			v.Samples, v.Until, v.Changes, summary, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func cmdExport(args []string, stdout, stderr io.Writer) error {
	var out string
	var from, to time.Duration
	fs := newFlagSet("export", "FILE [--csv OUT] [--from 30s --to 40s]", stderr, withExamples(nil,
		"lab export recordings/examples/jitter-fix.jlrec --csv timeline.csv",
		"lab export session.jlrec --from 30s --to 40s | head"))
	fs.StringVar(&out, "csv", "", "write the timeline CSV to `OUT` (default and -: standard output)")
	durationVar(fs, &from, "from", 0, true, "30s", "from this true `TIME` (seeks to its frame)")
	durationVar(fs, &to, "to", 0, true, "40s", "up to this true `TIME` (default: the end)")
	files, err := parseFlagsAndArgs(fs, args)
	if err != nil {
		return err
	}
	r, f, err := openRecording(files, "export")
	if err != nil {
		return err
	}
	defer f.Close()
	if to == 0 {
		to = time.Duration(r.Duration())
	}
	if out == "" {
		out = "-"
	}
	dst, err := openOutput(out, stdout, whole)
	if err != nil {
		return err
	}
	defer dst.Abort()
	w, err := metrics.NewCSVWriter(dst)
	if err != nil {
		return err
	}
	if err := r.Scan(sim.Time(from), sim.Time(to), w.Write, nil); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return dst.Commit()
}
