package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"jitterlab/batch"
	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/tui"
)

// openRecording opens FILE, the command's one argument, and tells stderr
// about damage: a truncated file, damaged bytes stepped over at once,
// damaged frames as they are skipped.
func openRecording(args []string, cmd string, stderr io.Writer) (*recordings.Reader, *os.File, error) {
	if len(args) != 1 {
		return nil, nil, badUsage("want one recording FILE (see 'lab %s -h')", cmd)
	}
	r, f, err := recordings.OpenFile(args[0])
	if err != nil {
		return nil, nil, err
	}
	warn := func(format string, a ...any) {
		fmt.Fprintf(stderr, "lab %s: warning: %s: %s\n", cmd, args[0], fmt.Sprintf(format, a...))
	}
	if r.Truncated {
		warn("truncated at byte %d: data ends at %v (the last whole frame)", r.TruncatedAt, r.Duration())
	}
	for _, d := range r.Damage {
		warn("%v", d)
	}
	r.OnDamage = func(d *recordings.DamageError) { warn("%v; skipped", d) }
	return r, f, nil
}

// window checks --from and --to against the recording; --to 0 means its
// end, as an unset --to does in every command (export, replay, plot).
func window(r *recordings.Reader, from, to time.Duration) (sim.Time, sim.Time, error) {
	end := time.Duration(r.Duration())
	if to == 0 {
		to = end
	}
	switch {
	case from < 0 || to < 0:
		return 0, 0, badUsage("--from %v --to %v: allowed times ≥ 0", from, to)
	case from > end:
		return 0, 0, badUsage("--from %v is past the recording's end %v", from, asWritten(end))
	case to < from:
		return 0, 0, badUsage("--from %v is after --to %v: the window is empty", from, to)
	}
	return sim.Time(from), sim.Time(to), nil
}

// asWritten is d to the millisecond, as people write a duration ("4.006s",
// not "4.00603274s"), for the times a message computes (a recording's end,
// a window that defaults to it or to a proxy recording's first change); a
// time given to the millisecond, as flags are, prints unchanged.
func asWritten(d time.Duration) time.Duration { return d.Round(time.Millisecond) }

func cmdReplay(args []string, stdout, stderr io.Writer) error {
	var verify, view bool
	var from, to time.Duration
	fs := newFlagSet("replay", "FILE [--tui] [--verify] [--from 30s --to 40s]", stderr, withExamples(nil,
		"lab replay recordings/examples/jitter-fix.jlrec --verify",
		"lab replay recordings/examples/jitter-fix.jlrec --from 30s --to 31s",
		"lab replay session.jlrec --tui"))
	fs.BoolVar(&view, "tui", false, "play the recording in the lab's charts, with seek (a terminal is needed)")
	var dir string
	fs.StringVar(&dir, "dir", "", "with --tui: existing `folder` for the e key's CSV export, as the lab's --dir (default: the current one)")
	fs.BoolVar(&verify, "verify", false, "re-simulate from the header and the change log and prove the recording whole: every sample present and identical, the summary too")
	durationVar(fs, &from, "from", 0, true, "30s", "print the timeline from this true `TIME` (0 or unset: the start; seeks to its frame)")
	durationVar(fs, &to, "to", 0, true, "40s", "print the timeline up to this true `TIME` (0 or unset: the end); either flag prints the window")
	files, err := parseFlagsAndArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	if dir != "" && !view {
		return fmt.Errorf("--dir %q: only with --tui (it holds the viewer's e export)", dir)
	}
	if err := checkDir(dir); err != nil { // at start, not on the first e
		return err
	}
	r, f, err := openRecording(files, "replay", stderr)
	if err != nil {
		return err
	}
	defer f.Close()
	// Either window flag prints the window, --to 0 (the end) and --from 0
	// (the start) included.
	seek := false
	fs.Visit(func(f *flag.Flag) { seek = seek || f.Name == "from" || f.Name == "to" })
	if r.Header.Kind == recordings.KindProxy {
		return replayProxyFlags(r, files[0], stdout, verify, view, seek, from, to)
	}
	if view {
		v, err := tui.NewReplay(r, files[0])
		if err != nil {
			return err
		}
		v.Dir = dir
		if err := needTerminal(); err != nil {
			return err
		}
		return v.Run(nil)
	}

	wFrom, wTo, err := window(r, from, to)
	if seek && err != nil {
		return err
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
	if seek {
		fmt.Fprintln(stdout)
		w, err := metrics.NewCSVWriter(stdout)
		if err != nil {
			return err
		}
		if err := r.Scan(wFrom, wTo, w.Write, nil); err != nil {
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
		fmt.Fprintf(stdout, "\nverified: %s identical to a re-simulation of %v from the header and %s, every sample from %v to the end present; %s (%v)\n",
			batch.Plural(v.Samples, "sample"), v.Until, batch.Plural(v.Changes, "change"), v.From, summary, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func cmdExport(args []string, stdout, stderr io.Writer) error {
	var out, packets, changes string
	var from, to time.Duration
	fs := newFlagSet("export", "FILE [--csv OUT | --packets OUT | --changes OUT] [--from 30s --to 40s]", stderr, withExamples(nil,
		"lab export recordings/examples/jitter-fix.jlrec --csv timeline.csv",
		"lab export session.jlrec --from 30s --to 40s | head",
		"lab export relay.jlrec --packets packets.csv --changes -"))
	fs.StringVar(&out, "csv", "", "write the timeline CSV to `OUT` (default and -: standard output)")
	fs.StringVar(&packets, "packets", "", "write a proxy recording's packets as CSV to `OUT` (- is standard output; the default for a proxy recording)")
	fs.StringVar(&changes, "changes", "", "write the recording's changes of the settings as CSV to `OUT` (- is standard output): when, for whom (a proxy's clients), key, value")
	durationVar(fs, &from, "from", 0, true, "30s", "from this true `TIME` (0 or unset: the start; seeks to its frame)")
	durationVar(fs, &to, "to", 0, true, "40s", "up to this true `TIME` (0 or unset: the end)")
	files, err := parseFlagsAndArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	r, f, err := openRecording(files, "export", stderr)
	if err != nil {
		return err
	}
	defer f.Close()
	start, end, err := window(r, from, to)
	if err != nil {
		return err
	}
	if changes != "" {
		if err := exportChanges(r, files[0], out, packets, changes, stdout, start, end); err != nil || packets == "" {
			return err
		}
	}
	if packets != "" || r.Header.Kind == recordings.KindProxy {
		return exportPackets(r, files[0], out, packets, stdout, start, end)
	}
	if e, err := r.End(); err != nil {
		return err
	} else if e == nil && !r.Truncated {
		fmt.Fprintf(stderr, "lab export: warning: %s: not closed (the session did not finish): data ends at %v (byte %d)\n",
			files[0], r.Duration(), r.DataEnd())
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
	if err := r.Scan(start, end, w.Write, nil); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return dst.Commit()
}
