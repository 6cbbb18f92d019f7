package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

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
	all, err := lab.Builtins()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDESCRIPTION")
	for _, sc := range all {
		fmt.Fprintf(tw, "%s\t%s\n", sc.Name, sc.Description)
		fmt.Fprintf(tw, "\t  source: %s\n", sc.Source)
		if verbose {
			var ps []string
			for _, a := range sc.Params {
				ps = append(ps, a.Key+"="+a.Value)
			}
			fmt.Fprintf(tw, "\t  params: %s\n", strings.Join(ps, " "))
			if cfg := lab.DefaultConfig(); lab.ApplyScenario(&cfg, sc) == nil {
				fmt.Fprintf(tw, "\t  lab: %s\n", lab.DescribeLinks(cfg))
			}
			for _, o := range sc.Oscillators {
				fmt.Fprintf(tw, "\t  %v\n", o)
			}
			for _, f := range sc.Flaps {
				fmt.Fprintf(tw, "\t  %v\n", f)
			}
			for _, ch := range sc.Timeline {
				var set []string
				for _, a := range ch.Set {
					set = append(set, a.Key+"="+a.Value)
				}
				fmt.Fprintf(tw, "\t  at %v: %s\n", ch.At, strings.Join(set, " "))
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, "\nRun one with 'lab run --scenario NAME'; write your own in TOML (see README) and pass its path.")
	return err
}
