package main

import (
	"io"
	"strings"

	"jitterlab/batch"
	"jitterlab/lab"
)

func cmdAB(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var f batchFlags
	var a, b setFlags
	fs := newFlagSet("ab", "--b 'server.inputs=queue' [--a '…'] [--scenario NAME] [--seeds 1-20] [--json] [--jsonl FILE] [--html FILE]", stderr, withExamples(paramHelp,
		"lab ab --scenario jitter-fix --duration 5m --b 'server.inputs=queue'",
		"lab ab --scenario mobile-4g --a client.corrector=signflip --b client.corrector=deadband --seeds 1-10",
		"lab ab --set link.jitter=20ms --b 'client.sender=accumulator server.inputs=queue' --html ab.html"))
	o.register(fs)
	fs.Lookup("seed").Usage = "not for ab: both variants run on every seed of --seeds"
	fs.Var(&a, "a", "variant A: `key=value` settings on top of the scenario (repeatable; default: none, the reference)")
	fs.Var(&b, "b", "variant B: `key=value` settings, e.g. 'server.inputs=queue client.sender=accumulator' (repeatable)")
	f.register(fs, "both variants")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if strings.TrimSpace(b.String()) == "" {
		return badUsage("--b: give variant B's settings, e.g. --b 'server.inputs=queue'")
	}
	seeds, err := parseSeeds(f.seeds)
	if err != nil {
		return err
	}
	def := batch.Definition{Kind: "ab", A: nonNil(lab.SplitAssignments(a.String())), B: nonNil(lab.SplitAssignments(b.String()))}
	p, err := newPlan(&o, seeds, def)
	if err != nil {
		return err
	}
	f.inputs = o.inputs()
	return runBatch(p, &f, stdout, stderr)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
