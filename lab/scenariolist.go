package lab

import (
	"fmt"
	"io"
	"text/tabwriter"

	"jitterlab/scenarios"
)

// WriteScenarios lists the built-in scenarios as 'lab scenarios' does:
// each one's name, description and source and, verbose, its parameters,
// the links they make in the lab, its oscillators, flaps and timeline.
func WriteScenarios(w io.Writer, verbose bool) error {
	all, err := Builtins()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDESCRIPTION")
	for _, sc := range all {
		fmt.Fprintf(tw, "%s\t%s\n", sc.Name, sc.Description)
		fmt.Fprintf(tw, "\t  source: %s\n", sc.Source)
		if !verbose {
			continue
		}
		fmt.Fprintf(tw, "\t  params: %s\n", scenarios.Join(sc.Params))
		if cfg := DefaultConfig(); ApplyScenario(&cfg, sc) == nil {
			fmt.Fprintf(tw, "\t  lab: %s\n", DescribeLinks(cfg))
		}
		for _, o := range sc.Oscillators {
			fmt.Fprintf(tw, "\t  %v\n", o)
		}
		for _, f := range sc.Flaps {
			fmt.Fprintf(tw, "\t  %v\n", f)
		}
		for _, ch := range sc.Timeline {
			fmt.Fprintf(tw, "\t  at %v: %s\n", ch.At, scenarios.Join(ch.Set))
		}
	}
	return tw.Flush()
}
