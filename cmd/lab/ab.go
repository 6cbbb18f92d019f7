package main

import (
	"fmt"
	"io"
	"jitterlab/lab"
	"strings"
	"time"
)

func cmdAB(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var a, b, seedList string
	fs := newFlagSet("ab", "--b 'server.inputs=queue' [--a '…'] [--scenario NAME] [--seeds 1-5]", stderr, withExamples(paramHelp,
		"lab ab --scenario jitter-fix --duration 5m --b 'server.inputs=queue'",
		"lab ab --scenario mobile-4g --a client.corrector=signflip --b client.corrector=deadband --seeds 1-10",
		"lab ab --set link.jitter=20ms --b 'client.sender=accumulator server.inputs=queue' --seeds 1,4,9"))
	o.register(fs)
	fs.Lookup("seed").Usage = "not for ab: both variants run on every seed of --seeds"
	fs.StringVar(&a, "a", "", "variant A: `key=value` settings on top of the scenario (default: none, the reference)")
	fs.StringVar(&b, "b", "", "variant B: `key=value` settings, e.g. 'server.inputs=queue client.sender=accumulator'")
	fs.StringVar(&seedList, "seeds", "1-5", fmt.Sprintf("`seeds` to run both variants on, e.g. 1-5 or 1,4,9 (at most %d)", maxSeeds))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if b == "" {
		return fmt.Errorf("--b: give variant B's settings, e.g. --b 'server.inputs=queue'")
	}
	seeds, err := parseSeeds(seedList)
	if err != nil {
		return err
	}
	ja, err := variantJobs(&o, seeds, "a", lab.SplitAssignments(a))
	if err != nil {
		return err
	}
	jb, err := variantJobs(&o, seeds, "b", lab.SplitAssignments(b))
	if err != nil {
		return err
	}
	start := time.Now()
	runs, err := runJobs(append(ja, jb...))
	if err != nil {
		return err
	}
	ra, rb := runs[:len(seeds)], runs[len(seeds):]
	labelA := "A (reference)"
	if a != "" {
		labelA = "A"
	}
	if err := writeConditions(stdout, &o, seeds, "the same for A and B"); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "A: %s\nB: %s\n\n", orNone(a), b)
	var rows [][]string
	for _, m := range lab.Metrics {
		va, vb := mean(ra, m), mean(rb, m)
		rows = append(rows, []string{m.Name, fmt.Sprintf("%.*f", m.Prec, va), fmt.Sprintf("%.*f", m.Prec, vb), delta(va, vb, m.Prec)})
	}
	if err := writeTable(stdout, []string{"mean over seeds", labelA, "B", "B − A"}, rows); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "\n%d runs of %v simulated in %v\n", len(runs), ja[0].cfg.Duration, time.Since(start).Round(time.Millisecond))
	return err
}

func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "no settings of its own: the scenario and overrides above"
	}
	return s
}

func delta(a, b float64, prec int) string {
	d := b - a
	s := fmt.Sprintf("%+.*f", prec, d)
	if a != 0 {
		s += fmt.Sprintf(" (%+.0f%%)", 100*d/a)
	}
	return s
}
