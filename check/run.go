package check

import (
	"encoding/json"
	"fmt"
	"strings"

	"jitterlab/batch"
	"jitterlab/lab"
	"jitterlab/stats"
)

// Figures are a gate's figures per seed, in the gate's seed order, by the
// table's names ([batch.Metrics]) and the link counters' ([LinkFigures]).
type Figures map[string][]float64

// RunGate runs g on each of its seeds, on up to workers goroutines, with
// the batch runner, and returns every figure of the table per seed and the
// warnings of gameWarnings. version names the build in the runs' records.
func RunGate(g *Gate, version string, workers int) (Figures, []string, error) {
	def := batch.Definition{Kind: "check", Version: version, Scenario: g.Scenario.Name, ScenarioFile: g.File,
		TimelineChanges: len(g.Scenario.Timeline), Overrides: []string{}, Seeds: g.Seeds,
		DurationS: g.Config.Duration.Seconds(), Link: batch.LinkOf(&g.Config)}
	p := &batch.Plan{Def: def, Configs: []lab.Config{g.Config}, Scenario: g.Scenario}
	runs, err := p.Execute(batch.Shard{}, workers)
	if err != nil {
		// The batch names the arm's settings before the seed: a gate has
		// none.
		return nil, nil, fmt.Errorf("a run failed: %s", strings.TrimSpace(err.Error()))
	}
	out := Figures{}
	for _, m := range batch.Metrics {
		vs := make([]float64, len(runs))
		for i := range runs {
			vs[i] = float64(runs[i].Metrics[m.Name])
		}
		out[m.Name] = vs
	}
	// The link's counters, from each run's summary as --json prints it.
	for _, m := range LinkFigures {
		out[m.Name] = make([]float64, len(runs))
	}
	sums := make([]lab.Summary, len(runs))
	for i := range runs {
		sum := &sums[i]
		if err := json.Unmarshal(runs[i].Summary, sum); err != nil {
			return nil, nil, fmt.Errorf("seed %d: its summary: %v", runs[i].Seed, err)
		}
		for _, m := range LinkFigures {
			out[m.Name][i] = m.Get(sum)
		}
	}
	return out, gameWarnings(g.Seeds, sums), nil
}

// gameWarnings says when the game itself did not run as it should on some
// of a gate's seeds: it never got going (lab.Summary.NoGame), or the client
// did not keep pace with the server (lab.Summary.OffPace). The assertions
// then judge a broken game: a bound on judder can pass while the tank
// crawls. One warning per kind: the first seed's words and how many seeds
// are alike.
func gameWarnings(seeds []uint64, sums []lab.Summary) []string {
	var out []string
	for _, why := range []func(*lab.Summary) string{(*lab.Summary).NoGame, (*lab.Summary).OffPace} {
		n, first := 0, -1
		for i := range sums {
			if why(&sums[i]) != "" {
				if n++; first < 0 {
					first = i
				}
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("seed %d: %s (%d of %d seeds alike)", seeds[first], why(&sums[first]), n, len(sums)))
		}
	}
	return out
}

// Result is an assertion judged: its verdict on the figure (for
// max_worse, on the paired differences to the baseline, whose own
// interval is Base).
type Result struct {
	Gate *Gate
	Assertion
	Verdict
	Base *stats.Interval
}

// Judgement judges every assertion of g on its figures; base holds the
// baseline's per-seed figures of g (nil: no baseline, which an assertion
// against one refuses).
func Judgement(g *Gate, figs Figures, base Figures) ([]Result, error) {
	var out []Result
	for _, a := range g.Asserts {
		vs := figs[a.Metric.Name]
		r := Result{Gate: g, Assertion: a}
		if a.Relative() {
			if base == nil {
				return nil, inputErr("%s:%d: max_worse on %s needs a baseline: give --baseline FILE (saved by lab check --save-baseline)", a.File, a.Line, a.Metric.Name)
			}
			b := base[a.Metric.Name]
			if len(b) != len(vs) {
				return nil, inputErr("%s:%d: the baseline holds %d seeds of %s, the gate runs %d", a.File, a.Line, len(b), a.Metric.Name, len(vs))
			}
			iv := stats.Mean(b)
			r.Base = &iv
			vs = stats.Differences(b, vs) // B − baseline, seed by seed
		}
		r.Verdict = Judge(vs, a.Upper(), a.Limit)
		out = append(out, r)
	}
	return out, nil
}

// LoadAll loads the gates that paths name ([Files], [Load]); two files
// may not give their scenario the same name (a baseline and the JUnit
// report tell scenarios by name).
func LoadAll(paths []string) ([]*Gate, error) {
	list, err := Files(paths)
	if err != nil {
		return nil, err
	}
	var gates []*Gate
	seen := map[string]string{}
	for _, f := range list {
		g, err := Load(f)
		if err != nil {
			return nil, err
		}
		if other, ok := seen[g.Scenario.Name]; ok {
			return nil, inputErr("%s: scenario %q is also %s's name: give one of them another name = \"…\"", f, g.Scenario.Name, other)
		}
		seen[g.Scenario.Name] = f
		gates = append(gates, g)
	}
	return gates, nil
}

// Check runs every gate over its seeds and judges its assertions; bases
// are the gates' baseline figures (nil, or nil for a gate: no baseline).
// It returns the report and every figure as a baseline a later check can
// compare with.
func Check(gates []*Gate, bases []Figures, version string, workers int, strict bool) (*Report, *Baseline, error) {
	rep := &Report{Gates: gates, Strict: strict, Version: version}
	save := NewBaseline(version)
	for i, g := range gates {
		figs, warns, err := RunGate(g, version, workers)
		if err != nil {
			return nil, nil, err
		}
		if len(warns) > 0 {
			if rep.Warnings == nil {
				rep.Warnings = map[*Gate][]string{}
			}
			rep.Warnings[g] = warns
		}
		var base Figures
		if bases != nil {
			base = bases[i]
		}
		res, err := Judgement(g, figs, base)
		if err != nil {
			return nil, nil, err
		}
		rep.Results = append(rep.Results, res...)
		if err := save.Add(g, figs); err != nil {
			return nil, nil, err
		}
	}
	return rep, save, nil
}
