package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"jitterlab/internal/plural"
	"jitterlab/lab"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/tui"
)

// openRecording opens FILE, the command's one argument, and tells stderr
// about what it lost: a file cut inside a frame (truncated) or after one
// (not closed: no end record), damaged bytes or missing frames stepped
// over at once, damaged frames as they are skipped (each place once,
// however many times the command reads it). The loss it returns counts
// the places data was lost, for the command's exit status.
func openRecording(args []string, cmd string, stderr io.Writer) (*recordings.Reader, *os.File, *loss, error) {
	if len(args) != 1 {
		return nil, nil, nil, badUsage("want one recording FILE (see 'lab %s -h')", cmd)
	}
	r, f, err := recordings.OpenFile(args[0])
	if err != nil {
		return nil, nil, nil, err
	}
	l, err := noteLoss(r, args[0], cmd, stderr)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return r, f, l, nil
}

// noteLoss tells stderr what the recording r (at path file) lost, as
// openRecording describes (recordings.WatchLoss), and counts it.
func noteLoss(r *recordings.Reader, file, cmd string, stderr io.Writer) (*loss, error) {
	l, err := recordings.WatchLoss(r, func(msg string) { fmt.Fprintf(stderr, "lab %s: warning: %s: %s\n", cmd, file, msg) })
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return &loss{file, l}, nil
}

// loss is what the recording at file lost as the command reads it.
type loss struct {
	file string
	*recordings.Loss
}

// err is the command's end when data was lost: exit status 5, after the
// command wrote what was readable. A nil loss lost nothing.
func (l *loss) err() error {
	if l == nil || l.Loss.Places() == 0 {
		return nil
	}
	return &exitStatus{code: exitDataLost, msg: fmt.Sprintf("%s: data lost in %s (see the warnings above): the output holds what was readable",
		l.file, plural.Of(l.Places(), "place"))}
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

// trustVar registers --open-files: the user allows the settings that
// what (a recording, the shards) holds to open the files they name.
func trustVar(fs *flag.FlagSet, t *lab.Trust, what string) {
	fs.BoolVar((*bool)(t), lab.OpenFilesFlag[2:], false, "open the capture files (up.trace, down.trace) that "+what+" names; without it such a setting is refused and its file left unopened")
}

func cmdReplay(args []string, stdout, stderr io.Writer) error {
	var verify, view bool
	var trust lab.Trust
	var from, to time.Duration
	fs := newFlagSet("replay", "FILE [--tui] [--verify] [--from 30s --to 40s]", stderr, withExamples(nil,
		"lab replay recordings/examples/jitter-fix.jlrec --verify",
		"lab replay recordings/examples/jitter-fix.jlrec --from 30s --to 31s",
		"lab replay session.jlrec --tui"))
	fs.BoolVar(&view, "tui", false, "play the recording in the lab's charts, with seek (a terminal is needed); a proxy recording in the proxy's screen, in the wall time it was made (the game's charts and report card too, with its telemetry)")
	var dir string
	fs.StringVar(&dir, "dir", "", "with --tui: existing `folder` for the e key's CSV export, as the lab's --dir (default: the current one)")
	trustVar(fs, &trust, "the recording")
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
	r, f, lost, err := openRecording(files, "replay", stderr)
	if err != nil {
		return err
	}
	defer f.Close()
	// Either window flag prints the window, --to 0 (the end) and --from 0
	// (the start) included.
	seek := false
	fs.Visit(func(f *flag.Flag) { seek = seek || f.Name == "from" || f.Name == "to" })
	if r.Header.Kind == recordings.KindProxy {
		if err := replayProxyFlags(r, files[0], stdout, verify, view, seek, from, to); err != nil {
			return err
		}
		return lost.err()
	}
	if view {
		v, err := tui.NewReplay(r, files[0], trust)
		if err != nil {
			return err
		}
		v.Dir = dir
		if err := needTerminal(); err != nil {
			return err
		}
		if err := v.Run(nil); errors.Is(err, io.EOF) {
			return interrupted(syscall.SIGHUP, "the terminal went away") // as the kernel's hangup would end it
		} else if err != nil {
			return err
		}
		return lost.err()
	}

	wFrom, wTo, err := window(r, from, to)
	if seek && err != nil {
		return err
	}
	if err := lab.WriteRecording(stdout, r, files[0]); err != nil {
		return err
	}
	if seek {
		fmt.Fprintln(stdout)
		if _, err := r.WriteCSV(stdout, wFrom, wTo); err != nil {
			return err
		}
	}
	if verify {
		start := time.Now()
		v, err := lab.Verify(r, trust)
		if err != nil && lost.Places() > 0 {
			return &exitStatus{code: exitDataLost, msg: fmt.Sprintf("verify FAILED: %v; %s: data lost in %s (see the warnings above)",
				err, files[0], plural.Of(lost.Places(), "place"))}
		}
		if err != nil {
			return fmt.Errorf("verify FAILED: %w", err)
		}
		if err := v.WriteText(stdout, time.Since(start)); err != nil {
			return err
		}
	}
	return lost.err()
}

func cmdExport(args []string, stdout, stderr io.Writer) error {
	var out, packets, changes, tel string
	var from, to time.Duration
	fs := newFlagSet("export", "FILE [--csv OUT | --packets OUT | --changes OUT | --telemetry OUT] [--from 30s --to 40s]", stderr, withExamples(nil,
		"lab export recordings/examples/jitter-fix.jlrec --csv timeline.csv",
		"lab export session.jlrec --from 30s --to 40s | head",
		"lab export relay.jlrec --packets packets.csv --changes -"))
	fs.StringVar(&out, "csv", "", "write the timeline CSV to `OUT` (default and -: standard output)")
	fs.StringVar(&packets, "packets", "", "write a proxy recording's packets as CSV to `OUT` (- is standard output; the default for a proxy recording)")
	fs.StringVar(&changes, "changes", "", "write the recording's changes of the settings as CSV to `OUT` (- is standard output): when, for whom (a proxy's clients), key, value")
	fs.StringVar(&tel, "telemetry", "", "write a proxy recording's telemetry (lab proxy --telemetry) as CSV to `OUT` (- is standard output): when each datagram arrived, its kind and its fields")
	durationVar(fs, &from, "from", 0, true, "30s", "from this true `TIME` (0 or unset: the start; seeks to its frame)")
	durationVar(fs, &to, "to", 0, true, "40s", "up to this true `TIME` (0 or unset: the end)")
	files, err := parseFlagsAndArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	for flag, path := range map[string]string{"csv": out, "packets": packets, "changes": changes, "telemetry": tel} {
		if err := checkOutputs(map[string]string{flag: path}, files...); err != nil {
			return err // before the recording is read
		}
	}
	r, f, lost, err := openRecording(files, "export", stderr)
	if err != nil {
		return err
	}
	defer f.Close()
	start, end, err := window(r, from, to)
	if err != nil {
		return err
	}
	if tel != "" {
		return exportTelemetry(r, files[0], tel, out+packets+changes != "", stdout, start, end, lost)
	}
	if changes != "" {
		if err := exportChanges(r, files[0], out, packets, changes, stdout, start, end); err != nil {
			return err
		}
		if packets == "" {
			return lost.err()
		}
	}
	if packets != "" || r.Header.Kind == recordings.KindProxy {
		if err := exportPackets(r, files[0], out, packets, stdout, start, end); err != nil {
			return err
		}
		return lost.err()
	}
	if out == "" {
		out = "-"
	}
	dst, err := openOutput(out, stdout, whole)
	if err != nil {
		return err
	}
	defer dst.Abort()
	if _, err := r.WriteCSV(dst, start, end); err != nil {
		return err
	}
	if err := dst.Commit(); err != nil {
		return err
	}
	return lost.err()
}

// exportTelemetry is 'lab export --telemetry': a proxy recording's
// telemetry as CSV (proxyrec.WriteTelemetryCSV), an export of its own.
func exportTelemetry(r *recordings.Reader, name, tel string, others bool, stdout io.Writer, from, to sim.Time, lost *loss) error {
	switch {
	case r.Header.Kind != recordings.KindProxy:
		return badUsage("--telemetry: %s is a session recording: only a proxy recording (lab proxy --telemetry --record) holds a game's telemetry", name)
	case others:
		return badUsage("--telemetry %s: the telemetry is an export of its own; run lab export again for --csv, --packets or --changes", tel)
	}
	if _, err := writeBuffered(tel, stdout, io.Discard, func(w io.Writer) error { return proxyrec.WriteTelemetryCSV(w, r, from, to) }); err != nil {
		return err
	}
	return lost.err()
}
