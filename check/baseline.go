package check

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"jitterlab/batch"
	"jitterlab/lab"
)

// Baseline is 'lab check --save-baseline': every gate's figures per seed,
// with the model that gave them and the conditions they were measured on,
// so a later build is compared paired over the same seeds and only on the
// same conditions ([Gate.Conditions]) and model ([lab.ModelVersion]).
type Baseline struct {
	Schema    int                 `json:"schema"`
	Kind      string              `json:"kind"` // "baseline"
	Model     string              `json:"model"`
	Version   string              `json:"version"` // the build that saved it (not compared)
	Scenarios []*BaselineScenario `json:"scenarios"`
}

// BaselineScenario is one gate's figures in a baseline.
type BaselineScenario struct {
	Name       string                   `json:"name"`
	File       string                   `json:"file"`
	Seeds      []uint64                 `json:"seeds"`
	Conditions map[string]string        `json:"conditions"`
	Figures    map[string][]batch.Value `json:"figures"` // per seed, in Seeds' order
}

// NewBaseline starts an empty baseline of this model, saved by version.
func NewBaseline(version string) *Baseline {
	return &Baseline{Schema: batch.Schema, Kind: "baseline", Model: lab.ModelVersion, Version: version}
}

// Add records g's figures.
func (b *Baseline) Add(g *Gate, figs Figures) error {
	cond, err := g.Conditions()
	if err != nil {
		return err
	}
	s := &BaselineScenario{Name: g.Scenario.Name, File: g.File, Seeds: g.Seeds, Conditions: cond, Figures: map[string][]batch.Value{}}
	for name, vs := range figs {
		for _, v := range vs {
			s.Figures[name] = append(s.Figures[name], batch.Value(v))
		}
	}
	b.Scenarios = append(b.Scenarios, s)
	return nil
}

// Write writes the baseline as indented JSON.
func (b *Baseline) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(b)
}

// maxBaselineSize bounds a baseline file: 1000 seeds × every figure of
// many gates stays far below it.
const maxBaselineSize = 64 << 20

// ReadBaseline reads a baseline saved by --save-baseline; file names it in
// errors. It refuses one of another model: its figures are not comparable.
func ReadBaseline(file string, r io.Reader) (*Baseline, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBaselineSize+1))
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", file, err)
	}
	if len(data) > maxBaselineSize {
		return nil, inputErr("baseline %s: more than %d bytes; a baseline is lab check --save-baseline's JSON", file, maxBaselineSize)
	}
	var b Baseline
	if err := json.Unmarshal(data, &b); err != nil || b.Kind != "baseline" {
		return nil, inputErr("baseline %s: not a baseline saved by lab check --save-baseline (want JSON with \"kind\": \"baseline\")", file)
	}
	if b.Schema != batch.Schema {
		return nil, inputErr("baseline %s: schema %d, this build reads schema %d; save a new baseline with lab check --save-baseline", file, b.Schema, batch.Schema)
	}
	if b.Model != lab.ModelVersion {
		return nil, inputErr("baseline %s: saved by model %q, this build's model is %q: its figures are not comparable; save a new baseline with lab check --save-baseline", file, b.Model, lab.ModelVersion)
	}
	for _, s := range b.Scenarios {
		for name, vs := range s.Figures {
			if len(vs) != len(s.Seeds) {
				return nil, inputErr("baseline %s: scenario %s: %s has %d values for %d seeds", file, s.Name, name, len(vs), len(s.Seeds))
			}
		}
	}
	return &b, nil
}

// For is the baseline's per-seed figures of g, refused with an error
// naming the first condition that differs (only the client's and the
// server's settings may: they are the build under test).
func (b *Baseline) For(file string, g *Gate) (Figures, error) {
	var names []string
	for _, s := range b.Scenarios {
		names = append(names, s.Name)
		if s.Name != g.Scenario.Name {
			continue
		}
		cond, err := g.Conditions()
		if err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(cond))
		for k := range cond {
			keys = append(keys, k)
		}
		for k := range s.Conditions {
			if _, ok := cond[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			if cond[k] != s.Conditions[k] {
				return nil, inputErr("baseline %s: scenario %s was saved with %s = %q, %s has %q: a baseline compares builds on the same conditions (only client.* and server.* settings may differ); save a new one with lab check --save-baseline", file, s.Name, k, s.Conditions[k], g.File, cond[k])
			}
		}
		if !slices.Equal(s.Seeds, g.Seeds) {
			return nil, inputErr("baseline %s: scenario %s was saved on seeds %s, %s runs %s", file, s.Name, batch.FormatSeeds(s.Seeds), g.File, batch.FormatSeeds(g.Seeds))
		}
		figs := Figures{}
		for name, vs := range s.Figures {
			for _, v := range vs {
				figs[name] = append(figs[name], float64(v))
			}
		}
		return figs, nil
	}
	return nil, inputErr("baseline %s: no scenario %s (it holds %s); save a new one with lab check --save-baseline", file, g.Scenario.Name, strings.Join(names, ", "))
}

// Baselines are the baseline figures of every gate (file names b in
// errors; b nil: none given), found before anything runs so bad input is
// refused at once: a gate with max_worse needs one, and b must hold every
// gate on the same conditions ([Baseline.For]).
func Baselines(gates []*Gate, b *Baseline, file string) ([]Figures, error) {
	out := make([]Figures, len(gates))
	for i, g := range gates {
		if b == nil {
			for _, a := range g.Asserts {
				if a.Relative() {
					return nil, inputErr("%s:%d: max_worse on %s needs a baseline: give --baseline FILE (saved by lab check --save-baseline)", a.File, a.Line, a.Metric.Name)
				}
			}
			continue
		}
		figs, err := b.For(file, g)
		if err != nil {
			return nil, err
		}
		out[i] = figs
	}
	return out, nil
}
