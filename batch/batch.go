package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"jitterlab/lab"
	"jitterlab/scenarios"
)

// Schema is the version of every JSON and JSON-lines output's layout
// (docs/reference/json.md). It changes when a field changes meaning or goes.
const Schema = 2

// Setting is one key and its value as the command line writes it.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Axis is one --over of a sweep: a key and its values.
type Axis struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// Definition is everything that decides a batch's runs and how its tables
// read: two batches with the same Definition give the same runs. Its
// [Definition.Hash] ties shards to the batch they come from.
type Definition struct {
	Kind            string   `json:"kind"` // "ab" or "sweep"
	Version         string   `json:"version"`
	Scenario        string   `json:"scenario"`      // "default" without --scenario
	ScenarioFile    string   `json:"scenario_file"` // "" without --scenario
	TimelineChanges int      `json:"timeline_changes"`
	Overrides       []string `json:"overrides"`
	Overridden      []string `json:"timeline_overridden,omitempty"` // the timeline's changes --set pins away
	// ArmsOverridden are, per arm (Arms), the timeline's changes the arm's
	// own settings pin away (--a, --b, --over pin their keys as --set
	// does); absent when no arm pins any.
	ArmsOverridden [][]string `json:"arms_timeline_overridden,omitempty"`
	Seeds          []uint64   `json:"seeds"`
	DurationS      float64    `json:"duration_s"`
	Link           []Setting  `json:"link"` // the link as the runs start
	A              []string   `json:"a,omitempty"`
	B              []string   `json:"b,omitempty"`
	Axes           []Axis     `json:"axes,omitempty"`
}

// Hash is the first 16 hex digits of the SHA-256 of the definition's JSON.
func (d *Definition) Hash() string {
	b, _ := json.Marshal(d)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// Duration is the simulated length of every run.
func (d *Definition) Duration() time.Duration {
	return time.Duration(math.Round(d.DurationS * 1e9))
}

// Arms lists the settings of every arm on top of the scenario and the
// overrides: A and B, or every combination of the axes (the last fastest).
func (d *Definition) Arms() [][]string {
	if d.Kind == "ab" {
		return [][]string{append([]string{}, d.A...), append([]string{}, d.B...)}
	}
	arms := [][]string{{}}
	for _, a := range d.Axes {
		var next [][]string
		for _, c := range arms {
			for _, v := range a.Values {
				next = append(next, append(append([]string{}, c...), a.Key+"="+v))
			}
		}
		arms = next
	}
	return arms
}

// Runs is the number of runs, arms × seeds, counted without building the
// arms; any count above MaxRuns is MaxRuns + 1.
func (d *Definition) Runs() int {
	n := len(d.Seeds)
	if d.Kind == "ab" {
		n *= 2
	}
	for _, a := range d.Axes {
		if n > 0 && len(a.Values) > (MaxRuns+1)/n {
			return MaxRuns + 1
		}
		n *= len(a.Values)
	}
	return min(n, MaxRuns+1)
}

// Value is a metric's value; no data (NaN) is null in JSON.
type Value float64

// MarshalJSON writes the shortest decimal that reads back as the same
// float64, or null for NaN and infinities.
func (v Value) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, or null as NaN.
func (v *Value) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = Value(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*v = Value(f)
	return err
}

// Run is one run of a batch: one line of --jsonl and of a shard.
type Run struct {
	Schema     int               `json:"schema"`
	Version    string            `json:"version"`
	BatchHash  string            `json:"batch_hash"`
	Index      int               `json:"index"` // arm × seeds + the seed's position
	Arm        int               `json:"arm"`
	Sets       []string          `json:"sets"` // the arm's settings
	Scenario   string            `json:"scenario"`
	Seed       uint64            `json:"seed"`
	Params     map[string]string `json:"params"` // every registry key as the run starts
	Metrics    map[string]Value  `json:"metrics"`
	Summary    json.RawMessage   `json:"summary"` // the run's full summary ('lab run --json')
	Definition *Definition       `json:"batch"`
}

// ShardHeader is the first line of a shard's file ('lab sweep --shard'):
// the batch it belongs to and how many run lines follow, so a shard with
// no runs (more shards than runs) is still a valid shard of its batch and
// a shard cut short is told from a whole one.
type ShardHeader struct {
	Schema     int         `json:"schema"`
	Version    string      `json:"version"`
	BatchHash  string      `json:"batch_hash"`
	Shard      string      `json:"shard"` // "i/n"
	Runs       int         `json:"runs"`  // the run lines that follow
	Definition *Definition `json:"batch"`
}

// Header is the header line of shard s of the batch d.
func (s Shard) Header(d *Definition) ShardHeader {
	return ShardHeader{Schema: Schema, Version: d.Version, BatchHash: d.Hash(), Shard: s.String(), Runs: s.Count(d.Runs()), Definition: d}
}

// String is "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// Count is the number of the shard's runs in a batch of runs runs.
func (s Shard) Count(runs int) int {
	if s.N == 0 {
		return runs
	}
	if runs < s.I {
		return 0
	}
	return (runs-s.I)/s.N + 1
}

// Shard is the i-th of n shares of a batch (1 ≤ I ≤ N): the runs whose
// index is I−1 modulo N, so every shard gets every arm's seeds in turn.
// The zero Shard is the whole batch.
type Shard struct{ I, N int }

// ParseShard reads "i/n".
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || n > 10000 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("--shard %q: allowed i/n with 1 ≤ i ≤ n ≤ 10000, e.g. --shard 1/4 (with Slurm: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)", s)
	}
	return Shard{i, n}, nil
}

// Has reports whether run index k belongs to the shard.
func (s Shard) Has(k int) bool { return s.N == 0 || k%s.N == s.I-1 }

// Plan is a batch ready to run: its definition, every arm's configuration
// (the seed is set per run) and the scenario whose timeline every run
// follows (nil: none), without the changes to the keys --set pins.
type Plan struct {
	Def      Definition
	Configs  []lab.Config // one per arm, as Def.Arms()
	Scenario *scenarios.Scenario

	// Progress, if not nil, is told after every run how many of the
	// shard's runs are done and how many it has. Calls come from the
	// workers, one at a time.
	Progress func(done, total int)
	// Cancel, if not nil, ends Execute early once closed: the runs not
	// started yet are skipped and Execute returns ErrCanceled.
	Cancel <-chan struct{}
}

// ErrCanceled is Execute's error when Plan.Cancel was closed.
var ErrCanceled = errors.New("canceled")

// ScenarioOf is the scenario as arm a runs it: an arm's settings pin their
// keys for the whole run as --set does (lab.Unpinned), so its runs are
// 'lab run --set' of them. Nil without a scenario.
func (p *Plan) ScenarioOf(a int) (*scenarios.Scenario, error) {
	if p.Scenario == nil {
		return nil, nil
	}
	keys, err := lab.PinKeys(p.Def.Arms()[a])
	if err != nil {
		return nil, err
	}
	sc := *p.Scenario
	sc.Pinned = append(slices.Clone(sc.Pinned), keys...)
	return &sc, nil
}

// ArmsOverridden lists, per arm, the timeline changes the arm's own
// settings pin away over a run of the definition's duration; nil when no
// arm pins any.
func (p *Plan) ArmsOverridden() ([][]string, error) {
	if p.Scenario == nil {
		return nil, nil
	}
	var out [][]string
	pins := false
	for a, sets := range p.Def.Arms() {
		keys, err := lab.PinKeys(sets)
		if err != nil {
			return nil, err
		}
		sc := *p.Scenario
		sc.Pinned = keys
		dropped, err := scenarios.Overridden(&sc, p.Def.Duration())
		if err != nil {
			return nil, fmt.Errorf("arm %d: %w", a, err)
		}
		pins = pins || len(dropped) > 0
		out = append(out, dropped)
	}
	if !pins {
		return nil, nil
	}
	return out, nil
}

// Execute runs the shard's runs of the plan on up to workers goroutines
// and returns them in index order; the records do not depend on workers.
func (p *Plan) Execute(shard Shard, workers int) ([]Run, error) {
	n := len(p.Def.Seeds)
	var idx []int
	for k := range len(p.Configs) * n {
		if shard.Has(k) {
			idx = append(idx, k)
		}
	}
	hash, arms := p.Def.Hash(), p.Def.Arms()
	r := &Runner{Workers: workers, Progress: p.Progress, Cancel: p.Cancel}
	return Each(r, len(idx), func(w *Worker, i int) (Run, error) {
		k := idx[i]
		w.Config = p.Configs[k/n]
		w.Config.Seed = p.Def.Seeds[k%n]
		sc, err := p.ScenarioOf(k / n)
		if err != nil {
			return Run{}, err
		}
		sum, err := w.Run(sc)
		if err != nil {
			return Run{}, fmt.Errorf("%s seed %d: %w", strings.Join(arms[k/n], " "), w.Config.Seed, err)
		}
		raw, err := json.Marshal(sum)
		if err != nil {
			return Run{}, err
		}
		r := Run{Schema: Schema, Version: p.Def.Version, BatchHash: hash, Index: k, Arm: k / n, Sets: arms[k/n],
			Scenario: p.Def.Scenario, Seed: w.Config.Seed, Params: Params(&w.Config), Metrics: map[string]Value{}, Summary: raw, Definition: &p.Def}
		for _, m := range Metrics {
			r.Metrics[m.Name] = Value(m.Get(&sum))
		}
		return r, nil
	})
}

// LinkOf is the link of cfg as the conditions show it: latency, jitter,
// its distribution, loss, bursts, duplicates, reordering, rate and queue
// (the link.* keys: up/down where they differ).
func LinkOf(cfg *lab.Config) []Setting {
	var link []Setting
	for _, k := range []string{"latency", "jitter", "jitter_dist", "loss", "loss_burst", "duplicate", "reorder", "rate", "queue"} {
		p, _ := lab.Lookup("link." + k)
		link = append(link, Setting{Key: k, Value: p.Get(cfg)})
	}
	return link
}

// Params is every registry key's value in cfg.
func Params(cfg *lab.Config) map[string]string {
	out := map[string]string{}
	for _, p := range lab.Params() {
		out[p.Key] = p.Get(cfg)
	}
	return out
}

// RunSummary is 'lab run --json': the schema, the version, the scenario
// and the full effective parameter set as the run started, then the
// summary's fields.
type RunSummary struct {
	Schema       int               `json:"schema"`
	Kind         string            `json:"kind"` // "run"
	Version      string            `json:"version"`
	Scenario     string            `json:"scenario"`      // "default" without --scenario
	ScenarioFile string            `json:"scenario_file"` // "" without --scenario
	Params       map[string]string `json:"params"`
	*lab.Summary
}

// NewRunSummary describes a run of cfg (as it started) on scenario sc (nil:
// none) with its summary.
func NewRunSummary(version string, cfg *lab.Config, sc *scenarios.Scenario, sum *lab.Summary) RunSummary {
	r := RunSummary{Schema: Schema, Kind: "run", Version: version, Scenario: "default", Params: Params(cfg), Summary: sum}
	if sc != nil {
		r.Scenario, r.ScenarioFile = sc.Name, sc.File
	}
	return r
}
