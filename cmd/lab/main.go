// Command lab is jitterlab's command line: the terminal UI by default, and
// subcommands to run, replay, export and sweep sessions in virtual time.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `jitterlab: a network-condition simulator and jitter lab for game netcode.

usage:
  lab                 start the terminal UI (not built yet: see README)
  lab <command> [flags]

commands:`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'lab <command> -h' for a command's flags.")
}

// errUsage means the error was already reported with usage; exit 2.
var errUsage = errors.New("usage")

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return 0
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				return 2
			}
			fmt.Fprintf(stderr, "lab %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "lab: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}
