package main

import (
	"flag"

	"jitterlab/check"
)

// telemetryFlag registers lab proxy's --telemetry.
func telemetryFlag(fs *flag.FlagSet) *string {
	return fs.String("telemetry", "", "receive the game's telemetry (docs/reference/telemetry.md) on this `host:port`, e.g. 127.0.0.1:7790; the screen charts the game's tick offset, send interval and visible error and shows its report card, and the summary counts the frames and server ticks decoded and the datagrams refused, by class")
}

// proxyCheck is lab proxy's --check and the lab check flags it reuses.
type proxyCheck struct {
	file, junit, summary string
	strict               bool
}

// proxyCheckFlags registers --check, --strict, --junit and --summary.
func proxyCheckFlags(fs *flag.FlagSet) *proxyCheck {
	c := &proxyCheck{}
	fs.StringVar(&c.file, "check", "", "with --telemetry: judge the game's report card at the end of the run by the [[assert]] entries of gate `FILE` (docs/guide/ci-gate.md), one run against each bound; exit status as lab check's (0 pass, 3 fail, 4 inconclusive under --strict)")
	fs.BoolVar(&c.strict, "strict", false, "with --check: a figure the run did not measure fails the check (exit 4) instead of passing with a warning")
	fs.StringVar(&c.junit, "junit", "", "with --check: write the verdicts as JUnit XML to `FILE`")
	fs.StringVar(&c.summary, "summary", "", "with --check: write the verdicts as Markdown to `FILE` (e.g. \"$GITHUB_STEP_SUMMARY\")")
	return c
}

// load reads the gate (nil: no --check); the check needs the game's
// telemetry, and the other flags need --check.
func (c *proxyCheck) load(given func(flag string) bool, telemetry string) (*check.Gate, error) {
	if c.file == "" {
		for _, f := range []string{"strict", "junit", "summary"} {
			if given(f) {
				return nil, badUsage("--%s: give --check FILE, the gate whose verdicts it is about", f)
			}
		}
		return nil, nil
	}
	if telemetry == "" {
		return nil, badUsage("--check %s: the gate judges the game's report card, which comes from its telemetry: give --telemetry HOST:PORT too", c.file)
	}
	g, err := check.LoadGame(c.file)
	if err != nil {
		return nil, badUsage("--check: %v", err)
	}
	return g, nil
}

// outputs are the files the check writes, by flag.
func (c *proxyCheck) outputs(outs map[string]string) {
	for flag, p := range map[string]string{"junit": c.junit, "summary": c.summary} {
		if p != "" {
			outs[flag] = p
		}
	}
}
