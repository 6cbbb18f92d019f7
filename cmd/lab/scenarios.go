package main

import (
	"fmt"
	"io"

	"jitterlab/lab"
	"jitterlab/param"
	"jitterlab/scenarios"
)

func cmdScenarios(args []string, stdout, stderr io.Writer) error {
	var verbose bool
	var show string
	fs := newFlagSet("scenarios", "[-v] [--show NAME]", stderr, withExamples(nil,
		"lab scenarios -v",
		"lab scenarios --show handover > my-handover.toml"))
	fs.BoolVar(&verbose, "v", false, "show each scenario's parameters and timeline")
	fs.StringVar(&show, "show", "", "print built-in scenario `NAME` as TOML, to copy into a file of your own")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if show != "" {
		text, ok := scenarios.BuiltinText(show)
		if !ok {
			return badUsage("--show %q: no such built-in scenario%s ('lab scenarios' lists them)", show, param.DidYouMean(show, scenarios.BuiltinNames()))
		}
		_, err := fmt.Fprintf(stdout, "# built-in scenario %q; save it as a .toml file, edit it, run it with --scenario FILE\n%s", show, text)
		return err
	}
	if err := lab.WriteScenarios(stdout, verbose); err != nil {
		return err
	}
	_, err := fmt.Fprintln(stdout, "\nRun one with 'lab run --scenario NAME'; write your own in TOML (see README) and pass its path.")
	return err
}
