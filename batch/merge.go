package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// MaxLine bounds one JSON line of a shard (a run's record is about 5 kB).
const MaxLine = 1 << 20

// MaxRuns bounds the runs a merge reads, as a batch's runs are bounded.
const MaxRuns = 10000

// Merger collects shards' JSON lines and checks that they are one batch:
// the same schema, version and definition (its hash in every line), each
// run once.
type Merger struct {
	def     *Definition
	hash    string
	first   string // where the definition was first seen, for errors
	runs    map[int]Run
	targets int
}

// NewMerger returns an empty Merger.
func NewMerger() *Merger { return &Merger{runs: map[int]Run{}} }

// Read reads one shard's lines; name names it in errors ("shard-2.jsonl").
func (m *Merger) Read(r io.Reader, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	line := 0
	for sc.Scan() {
		line++
		where := fmt.Sprintf("%s:%d", name, line)
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := m.add(sc.Bytes(), where); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return fmt.Errorf("%s:%d: a line longer than %d bytes: not a shard of 'lab sweep --shard'", name, line+1, MaxLine)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if line == 0 {
		return fmt.Errorf("%s: empty: a shard has one JSON line per run ('lab sweep --shard i/n')", name)
	}
	return nil
}

func (m *Merger) add(b []byte, where string) error {
	var run Run
	if err := json.Unmarshal(b, &run); err != nil {
		return fmt.Errorf("%s: not a run of 'lab sweep --shard' or --jsonl: %v", where, err)
	}
	if run.Schema != Schema {
		return fmt.Errorf("%s: schema %d; this lab reads schema %d: merge shards with the lab that wrote them", where, run.Schema, Schema)
	}
	if run.Definition == nil {
		return fmt.Errorf("%s: the line has no batch definition", where)
	}
	if h := run.Definition.Hash(); h != run.BatchHash {
		return fmt.Errorf("%s: batch_hash %s does not match its batch definition (hash %s): the line was edited", where, run.BatchHash, h)
	}
	if m.def == nil {
		d := run.Definition
		if d.Kind != "ab" && d.Kind != "sweep" {
			return fmt.Errorf("%s: batch kind %q; want ab or sweep", where, d.Kind)
		}
		if n := d.Runs(); n > MaxRuns || n == 0 {
			return fmt.Errorf("%s: a batch of %d runs; allowed 1 to %d", where, n, MaxRuns)
		}
		m.def, m.hash, m.first, m.targets = d, run.BatchHash, where, d.Runs()
	}
	if run.Version != m.def.Version || run.Definition.Version != m.def.Version {
		return fmt.Errorf("%s: version %q, but %s is version %q: merge only shards of one lab version", where, run.Version, m.first, m.def.Version)
	}
	if run.BatchHash != m.hash {
		return fmt.Errorf("%s: batch %s, but %s is batch %s: the shards come from different sweeps (scenario, --set, --over, --seeds or --duration differ)", where, run.BatchHash, m.first, m.hash)
	}
	n := len(m.def.Seeds)
	if run.Index < 0 || run.Index >= m.targets || run.Arm != run.Index/n || run.Seed != m.def.Seeds[run.Index%n] {
		return fmt.Errorf("%s: run %d (arm %d, seed %d) is not a run of the batch's %d", where, run.Index, run.Arm, run.Seed, m.targets)
	}
	for _, mt := range Metrics {
		if _, ok := run.Metrics[mt.Name]; !ok {
			return fmt.Errorf("%s: run %d has no metric %s", where, run.Index, mt.Name)
		}
	}
	if _, dup := m.runs[run.Index]; dup {
		return fmt.Errorf("%s: run %d (seed %d) again: a shard given twice?", where, run.Index, run.Seed)
	}
	// The tables need only the metrics: the parameters and the summary
	// stay in the shard files.
	run.Definition, run.Params, run.Summary = m.def, nil, nil
	m.runs[run.Index] = run
	return nil
}

// Result is the merged batch, or an error naming the missing runs.
func (m *Merger) Result() (*Result, error) {
	if m.def == nil {
		return nil, fmt.Errorf("no runs to merge")
	}
	var missing []int
	runs := make([]Run, m.targets)
	for k := range m.targets {
		r, ok := m.runs[k]
		if !ok {
			missing = append(missing, k)
			continue
		}
		runs[k] = r
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%d of %d runs missing (the first: run %d, seed %d): is a shard missing or cut short?", len(missing), m.targets, missing[0], m.def.Seeds[missing[0]%len(m.def.Seeds)])
	}
	return NewResult(*m.def, runs)
}
