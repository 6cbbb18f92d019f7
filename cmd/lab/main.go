// Command lab is jitterlab's command line: the terminal UI by default, and
// subcommands to run, replay, export and sweep sessions in virtual time.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
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
		{"plot", "draw a recording's or a run's timeline as a PNG image", cmdPlot},
		{"proxy", "relay a real game's UDP on this machine through the same link model, in real time", cmdProxy},
		{"replay", "show a recording (index, changes, summary, a seeked window) and --verify it", cmdReplay},
		{"export", "write a recording's timeline (or a seeked window of it) as CSV", cmdExport},
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
	fmt.Fprintln(w, "\nRun 'lab <command> -h' for a command's flags.")
}

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
	fmt.Fprintf(stderr, "lab: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

// exitCode reports err on one line and returns the process exit code.
func exitCode(err error, name string, stderr io.Writer) int {
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintf(stderr, "%s: %v\n", name, err)
	return 1
}
