package check

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"jitterlab/batch"
	"jitterlab/lab"
	"jitterlab/param"
	"jitterlab/scenarios"
)

// DefaultSeeds are the seeds of a gate whose file gives none.
const DefaultSeeds = "1-20"

// MaxSeeds is the most seeds a gate runs ([batch.MaxSeeds]).
const MaxSeeds = batch.MaxSeeds

// Gate is one scenario file to check: the scenario, the configuration its
// runs start from (the seed set per run), its seeds and its assertions.
type Gate struct {
	File     string
	Scenario *scenarios.Scenario
	Config   lab.Config
	Seeds    []uint64
	Asserts  []Assertion
	// Game is set for a gate on one run of a real game ([LoadGame]):
	// no seeds, and its figures are the game's report card's.
	Game *GameRun
}

// Assertion is one bound of an [[assert]] entry: an entry with max and
// min is two assertions.
type Assertion struct {
	File   string
	Line   int          // the [[assert]] entry's line
	Metric batch.Metric // the figure, from the one table
	Unit   string       // the figure's unit ([UnitOf])
	Bound  string       // max, min or max_worse
	Limit  float64      // in Unit
}

// Upper reports whether the assertion bounds the figure from above.
func (a *Assertion) Upper() bool { return a.Bound != "min" }

// Relative reports whether the assertion is judged against a baseline.
func (a *Assertion) Relative() bool { return a.Bound == "max_worse" }

// InputError is bad input: a file, a figure, a bound or a baseline that
// cannot be checked. Its message is one line naming the file and line.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErr(format string, a ...any) error { return &InputError{Msg: fmt.Sprintf(format, a...)} }

// Files lists the scenario files that paths name: a file as given, a
// folder as its .toml files in name order.
func Files(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, inputErr("%s: no such file or folder", p)
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		files, err := filepath.Glob(filepath.Join(p, "*.toml"))
		if err != nil {
			return nil, inputErr("%s: %v", p, err)
		}
		if len(files) == 0 {
			return nil, inputErr("%s: a folder without .toml files: nothing to check", p)
		}
		sort.Strings(files)
		out = append(out, files...)
	}
	return out, nil
}

// Load reads a gate from a scenario file: its seeds (DefaultSeeds when
// it gives none) and every bound of its [[assert]] entries, each checked:
// the figure exists, a unit written with the bound is the figure's, and
// the bound's sign is one the figure can meet.
func Load(file string) (*Gate, error) {
	sc, err := loadAsserting(file)
	if err != nil {
		return nil, err
	}
	g := &Gate{File: file, Scenario: sc, Config: lab.DefaultConfig()}
	if err := lab.ApplyScenario(&g.Config, sc); err != nil {
		return nil, &InputError{Msg: err.Error()}
	}
	seeds, line := sc.Seeds, sc.SeedsLine
	if seeds == "" {
		seeds = DefaultSeeds
	}
	if g.Seeds, err = batch.ParseSeeds("seeds", seeds); err != nil {
		return nil, inputErr("%s:%d: %v", file, line, err)
	}
	if len(g.Seeds) < 2 {
		return nil, inputErr("%s:%d: seeds %q: allowed at least 2 seeds (an interval over one seed is unbounded), e.g. seeds = \"1-20\"", file, line, seeds)
	}
	for _, a := range sc.Asserts {
		m, err := metricNamed(a.Metric)
		if err != nil {
			return nil, inputErr("%s:%d: %v", file, a.MetricLine, err)
		}
		for _, b := range a.Bounds {
			as := Assertion{File: file, Line: a.Line, Metric: m, Unit: UnitOf(m.Name), Bound: b.Key, Limit: b.Value}
			if err := as.checkBound(b); err != nil {
				return nil, inputErr("%s:%d: %v", file, b.Line, err)
			}
			g.Asserts = append(g.Asserts, as)
		}
	}
	return g, nil
}

// loadAsserting reads a scenario file that has [[assert]] entries.
func loadAsserting(file string) (*scenarios.Scenario, error) {
	sc, err := lab.LoadScenario(file)
	if err != nil {
		return nil, &InputError{Msg: err.Error()}
	}
	if len(sc.Asserts) == 0 {
		return nil, inputErr("%s: no [[assert]] entries: nothing to check (docs/guide/ci-gate.md)", file)
	}
	return sc, nil
}

// metricNamed is the figure of the table, or the link counter
// (LinkFigures), called name, or an error naming
// the figures with a name near it or holding it.
func metricNamed(name string) (batch.Metric, error) {
	var names []string
	for _, m := range append(slices.Clone(batch.Metrics), LinkFigures...) {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	near := param.Similar(name, names)
	for _, n := range names {
		if strings.Contains(n, name) && !strings.Contains(strings.Join(near, " "), n) {
			near = append(near, n)
		}
	}
	if len(near) > 0 {
		return batch.Metric{}, fmt.Errorf("metric %q: no such figure; did you mean %s?", name, strings.Join(near, " or "))
	}
	return batch.Metric{}, fmt.Errorf("metric %q: no such figure; allowed %s", name, strings.Join(names, ", "))
}

// UnitOf is the unit of the figure called name, read from its suffix as
// the table names figures (judder_mps is in m/s, snaps_per_min in /min); ""
// for a count or a share.
func UnitOf(name string) string {
	for _, u := range []struct{ suffix, unit string }{
		{"_mps", "m/s"}, {"_m_per_min", "m/min"}, {"_per_min", "/min"}, {"_ms", "ms"}, {"_m", "m"}, {"_pct", "%"},
	} {
		if strings.HasSuffix(name, u.suffix) {
			return u.unit
		}
	}
	return ""
}

// canBeNegative reports whether the figure can be below 0: the card's
// signed figures (ranked by magnitude, such as the progress deficit).
func canBeNegative(name string) bool {
	for _, m := range lab.CardMetrics {
		if m.Name == name {
			return m.Magnitude
		}
	}
	return false
}

// betterWhenLarger reports whether a larger value of the figure is better:
// the two speeds; every other figure of the table is worse when larger.
func betterWhenLarger(name string) bool { return strings.Contains(name, "_speed_") }

// checkBound refuses a bound in another unit than the figure's, or one of
// a sign the figure cannot meet.
func (a *Assertion) checkBound(b scenarios.Bound) error {
	if b.Unit != "" && b.Unit != a.Unit && !(a.Unit == "m/s" && b.Unit == "mps") {
		if a.Unit == "" {
			return fmt.Errorf("%s = %q on %s: the figure has no unit (a count or a share); write a bare number", b.Key, fmt.Sprintf("%g%s", b.Value, b.Unit), a.Metric.Name)
		}
		return fmt.Errorf("%s = %q on %s: the figure is in %s, not %s; write the bound in %s, a bare number or one followed by %s", b.Key, fmt.Sprintf("%g%s", b.Value, b.Unit), a.Metric.Name, a.Unit, b.Unit, a.Unit, a.Unit)
	}
	switch {
	case b.Key == "max_worse" && b.Value < 0:
		return fmt.Errorf("max_worse = %g on %s: max_worse is how much the figure may grow over the baseline's; allowed ≥ 0", b.Value, a.Metric.Name)
	case b.Key == "max_worse" && betterWhenLarger(a.Metric.Name):
		return fmt.Errorf("max_worse on %s: the figure is better when larger and max_worse bounds its growth; bound it with min = instead", a.Metric.Name)
	case b.Key != "max_worse" && b.Value < 0 && !canBeNegative(a.Metric.Name):
		return fmt.Errorf("%s = %g on %s: the figure is never negative, so the bound %s; allowed ≥ 0", b.Key, b.Value, a.Metric.Name, map[string]string{"max": "can never pass", "min": "can never fail"}[b.Key])
	}
	return nil
}

// Conditions are what a gate's figures depend on besides the build under
// test: every setting but the client's and the server's (client.*,
// server.*), the seeds, the duration and every change of the timeline.
// A baseline compares only figures of the same conditions.
func (g *Gate) Conditions() (map[string]string, error) {
	out := map[string]string{}
	for k, v := range batch.Params(&g.Config) {
		if !strings.HasPrefix(k, "client.") && !strings.HasPrefix(k, "server.") {
			out[k] = v
		}
	}
	out["seeds"] = batch.FormatSeeds(g.Seeds)
	out["duration"] = g.Config.Duration.String()
	changes, _, err := scenarios.TimelineOf(g.Scenario, g.Config.Duration)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, ch := range changes {
		for _, a := range ch.Set {
			fmt.Fprintf(h, "%d %s=%s\n", ch.At, a.Key, a.Value)
		}
	}
	out["timeline"] = fmt.Sprintf("%d changes, sha256 %s", len(changes), hex.EncodeToString(h.Sum(nil))[:16])
	return out, nil
}

// Duration is the simulated length of each of the gate's runs.
func (g *Gate) Duration() time.Duration { return g.Config.Duration }

// IsInput reports whether err is bad input ([InputError]).
func IsInput(err error) bool {
	_, ok := errors.AsType[*InputError](err)
	return ok
}
