package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"jitterlab/internal/buildinfo"
	"jitterlab/param"
)

// command is one subcommand: its name, a one-line summary and its entry
// point, which parses its own FlagSet from args.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"run", "simulate a session in virtual time and print its summary (CSV, packets, JSON)", cmdRun},
		{"scenarios", "list the built-in scenarios and presets with their sources", cmdScenarios},
		{"ab", "run two variants on the same seeds and compare them (the fix against the old code)", cmdAB},
		{"sweep", "run one parameter over a list of values on the same seeds and tabulate", cmdSweep},
		{"merge", "combine the JSON lines of 'lab sweep --shard i/n' runs into the sweep's tables", cmdMerge},
		{"diagnose", "find why the player jitters: every variant over seeds, ranked, combined, explained", cmdDiagnose},
		{"plot", "draw a recording's or a run's timeline as a PNG image", cmdPlot},
		{"proxy", "relay a real game's UDP on this machine through the same link model, in real time", cmdProxy},
		{"game", "the lab's reference game (the model's client and server) on real UDP in wall time, to put behind lab proxy", cmdGame},
		{"compare", "set a real game's report card (a proxy recording with telemetry) beside the model's on the same link, over seeds", cmdCompare},
		{"fit", "fit the link model to a capture of a real path (irtt, a game's log) and say where it does not fit", cmdFit},
		{"replay", "show a recording (index, changes, summary, a seeked window) and --verify it", cmdReplay},
		{"export", "write a recording's timeline (or a seeked window of it) as CSV", cmdExport},
		{"check", "run scenario files' [[assert]] gates over seeds: netcode quality as a CI gate (JUnit, Markdown)", cmdCheck},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `jitterlab: a network-condition simulator and jitter lab for game netcode.

usage:
  lab [flags]         start the lab: the terminal UI ('lab -h' for its flags below)
  lab <command> [flags]

commands:`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'lab <command> -h' for a command's flags, 'lab --version' for the build.")
	fmt.Fprintln(w, "Exit status: 0 done; 1 the command failed (a file it could not read or write, a damaged\nrecording, shards that do not merge); 2 a bad command line (a flag, a value, a --set, a\nscenario, flags that contradict each other; lab check: bad input); 3 lab check, lab proxy\n--check: an assertion failed; 4 the same: an assertion is inconclusive under --strict; 5\ndone with what a recording holds, but it has lost data (cut short, damaged or missing\nframes, named in the warnings; replay --verify of such a file); 128+n stopped by signal n\n(130 for Ctrl-C).")
}

// exitStatus ends a command with a status of its own and a message: a run
// stopped by a signal exits 128 + the signal's number (130 for Ctrl-C, 143
// for SIGTERM, 129 for SIGHUP), as a shell reports it.
type exitStatus struct {
	code int
	msg  string
}

func (e *exitStatus) Error() string { return e.msg }

// Exit statuses: 0 done, 1 the command failed (a file it could not read
// or write, a damaged recording, shards that do not merge), 2 a bad
// command line (a flag, a value, a --set, a scenario, two flags that
// contradict each other; lab check's bad input: a file, a figure, a bound,
// a baseline), 3 lab check (and lab proxy --check): an assertion failed (exitCheckFailed), 4 lab
// check: an assertion is inconclusive under --strict
// (exitCheckInconclusive), 5 done with what a recording holds, but it has
// lost data (cut short, damaged or missing frames; verify of such a file
// fails with 5 too), 128+n stopped by signal n.
const (
	exitBadCommandLine = 2
	exitDataLost       = 5
)

// badUsage is an error of the command line found after its flags parse
// (a value that contradicts another): one line, exit 2 like a bad flag.
func badUsage(format string, args ...any) error {
	return &exitStatus{code: exitBadCommandLine, msg: fmt.Sprintf(format, args...)}
}

// cmdLineErr marks err (nil stays nil) as an error of the command line:
// exit 2.
func cmdLineErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*exitStatus](err); ok {
		return err
	}
	return &exitStatus{code: exitBadCommandLine, msg: err.Error()}
}

// interrupted is the exitStatus of a command stopped by sig.
func interrupted(sig os.Signal, msg string) error {
	code := 130
	if n, ok := sig.(syscall.Signal); ok {
		code = 128 + int(n)
	}
	return &exitStatus{code: code, msg: fmt.Sprintf("%v: %s", sig, msg)}
}

// signalContext is signal.NotifyContext that also tells which signal came
// (nil: none yet): stop restores the signals' default action.
func signalContext(sigs ...os.Signal) (ctx context.Context, stop func(), caught func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	signalHandlers.Add(1)
	var once sync.Once
	var mu sync.Mutex
	var got os.Signal
	go func() {
		select {
		case sig := <-ch:
			signalCaught.Store(true)
			mu.Lock()
			got = sig
			mu.Unlock()
			cancel()
		case <-ctx.Done():
		}
	}()
	stop = func() {
		signal.Stop(ch)
		cancel()
		once.Do(func() { signalHandlers.Add(-1) })
	}
	caught = func() os.Signal {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	return ctx, stop, caught
}

// exitClosedPipe is 128 + SIGPIPE, the status of a command whose output
// pipe was closed by its reader.
const exitClosedPipe = 141

// errUsage means the error was already reported with usage; exit 2.
var errUsage = errors.New("usage")

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help", "help":
			usage(stdout)
			fmt.Fprintln(stdout, "\nflags of the terminal UI ('lab [flags]'):")
			fs := tuiFlags(stdout)
			fs.PrintDefaults()
			tuiHelp(stdout)
			withExamples(nil,
				"lab --scenario mobile-4g",
				"lab run --scenario jitter-fix --duration 10m --csv timeline.csv",
				"lab ab --scenario jitter-fix --b 'server.inputs=queue'")(stdout)
			return 0
		case "-version", "--version", "version":
			buildinfo.Read().WriteText(stdout)
			return 0
		}
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return exitCode(cmdTUI(args, stdout, stderr), "lab", stderr)
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return exitCode(c.run(args[1:], stdout, stderr), "lab "+c.name, stderr)
		}
	}
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	fmt.Fprintf(stderr, "lab: unknown command %q%s ('lab -h' lists the commands)\n", args[0], param.DidYouMean(args[0], names))
	return 2
}

// exitCode reports err on one line and returns the process exit code.
func exitCode(err error, name string, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case closedPipe(err):
		// The reader of an output went away (… | head): end quietly with
		// the status a SIGPIPE gives, as a write to standard output does.
		return exitClosedPipe
	}
	if st, ok := errors.AsType[*exitStatus](err); ok {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return st.code
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return 1
}
