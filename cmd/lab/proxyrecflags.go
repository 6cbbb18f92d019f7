package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"jitterlab/proxy/live"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/tui/proxyscreen"
)

// A proxy recording (lab proxy --record) holds the relayed datagrams, not
// a session: replay prints what became of them and the delay the relay
// added, export --packets writes them as CSV, plot draws the delay added.
// Package [proxyrec] (jitterlab/proxy/record) writes and reads it; here
// are its flags.

var errProxyVerify = errors.New("--verify: a proxy recording holds real relayed traffic: nothing re-simulates it (verify proves session recordings)")

// flagFileError names the flag whose file could not be opened, and the
// file once.
func flagFileError(flag, path string, err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		err = pe.Err
	}
	return fmt.Errorf("--%s %s: %w", flag, path, err)
}

// replayProxyFlags is 'lab replay' of a proxy recording, after refusing
// what only applies to a session.
func replayProxyFlags(r *recordings.Reader, name string, stdout io.Writer, verify, view, seek bool, from, to time.Duration) error {
	switch {
	case verify:
		return cmdLineErr(errProxyVerify)
	case view:
		return replayProxyScreen(r, name)
	}
	wFrom, wTo, err := window(r, from, to)
	if seek && err != nil {
		return err
	}
	if err := proxyrec.WriteReplay(stdout, r, name, proxyrec.StartLink(r.Header)); err != nil || !seek {
		return err
	}
	fmt.Fprintln(stdout)
	return proxyrec.WritePacketsCSV(stdout, r, wFrom, wTo)
}

// replayProxyScreen is 'lab replay --tui' of a proxy recording: the
// proxy's screen over the recording, played in wall time (live.ReplaySource).
func replayProxyScreen(r *recordings.Reader, name string) error {
	src, err := live.NewReplaySource(r, name, live.System)
	if err != nil {
		return err
	}
	if err := needTerminal(); err != nil {
		return err
	}
	status := "replaying " + name + " in the wall time it was made; its links are as recorded (q quits)"
	return proxyscreen.New(src, proxyscreen.Options{Status: status}).Run(nil)
}

// exportPackets is 'lab export --packets': a proxy recording's packets as
// CSV (standard output by default).
func exportPackets(r *recordings.Reader, name, csvOut, packets string, stdout io.Writer, from, to sim.Time) error {
	if err := checkExportPackets(r, name, csvOut); err != nil {
		return err
	}
	if packets == "" {
		packets = "-"
	}
	_, err := writeBuffered(packets, stdout, io.Discard, func(w io.Writer) error { return proxyrec.WritePacketsCSV(w, r, from, to) })
	return err
}

// checkExportPackets refuses export --packets of a session recording, and
// --csv of a proxy recording.
func checkExportPackets(r *recordings.Reader, name, csvOut string) error {
	if r.Header.Kind != recordings.KindProxy {
		return badUsage("--packets: %s is a session recording: it holds samples, not packets ('lab run --packets FILE' writes a session's packets)", name)
	}
	if csvOut != "" {
		return badUsage("--csv %s: %s is a proxy recording: it has no timeline; --packets OUT writes its packets", csvOut, name)
	}
	return nil
}

// exportChanges is 'lab export --changes': the recording's changes of the
// settings as CSV (see writeChangesCSV); --packets may write the packets
// to another file in the same run.
func exportChanges(r *recordings.Reader, name, csvOut, packets, changes string, stdout io.Writer, from, to sim.Time) error {
	if packets != "" {
		if err := checkExportPackets(r, name, csvOut); err != nil {
			return err
		}
	}
	if csvOut != "" {
		return badUsage("--csv %s and --changes %s: the timeline and the changes are two exports; run lab export twice", csvOut, changes)
	}
	if err := checkOutputs(map[string]string{"packets": packets, "changes": changes}, name); err != nil {
		return err
	}
	all, err := r.Changes()
	if err != nil {
		return err
	}
	_, err = writeBuffered(changes, stdout, io.Discard, func(w io.Writer) error { return proxyrec.WriteChangesCSV(w, all, from, to) })
	return err
}

// plotProxyTo writes plotProxy's PNG to out, replaced only when finished.
func plotProxyTo(r *recordings.Reader, name, out string, from, to sim.Time, width int, stdout, stderr io.Writer) error {
	var n, frames int
	var clients []string
	report, err := writeBuffered(out, stdout, stderr, func(w io.Writer) (err error) {
		n, frames, clients, from, err = proxyrec.Plot(r, name, from, to, width, w)
		return err
	})
	if err != nil {
		return err
	}
	game := ""
	if frames > 0 {
		game = fmt.Sprintf("; the game's tick offset, send interval and visible error from %d telemetry frames", frames)
	}
	_, err = fmt.Fprintf(report, "wrote %s: %d delivered packets from %v to %v; a line per client: %s%s\n", out, n, from, to, strings.Join(clients, ", "), game)
	return err
}
