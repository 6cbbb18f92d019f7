package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// MaxLine bounds one JSON line of a shard (a run's record is about 5 kB).
const MaxLine = 1 << 20

// MaxRuns bounds the runs a merge reads, as a batch's runs are bounded.
const MaxRuns = 10000

// Merger collects shards' JSON lines and checks that they are one batch:
// the same schema, version and definition (its hash in every line), each
// run once. A shard's file starts with its header line ([ShardHeader]); a
// --jsonl file has run lines only.
type Merger struct {
	def     *Definition
	hash    string
	first   string // where the definition was first seen, for errors
	runs    map[int]Run
	targets int
	n       int            // the shards' n, from their headers (0: none)
	shards  map[int]string // shard i → where its header was read
}

// NewMerger returns an empty Merger.
func NewMerger() *Merger { return &Merger{runs: map[int]Run{}, shards: map[int]string{}} }

// section is a shard's header and the run lines read after it.
type section struct {
	where string
	shard Shard
	want  int
	runs  int
}

// Read reads one shard's lines; name names it in errors ("shard-2.jsonl").
// Shards joined into one file (cat shard-*.jsonl) read as well: each
// header starts its shard.
func (m *Merger) Read(r io.Reader, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLine)
	line := 0
	var cur *section
	end := func() error {
		if cur != nil && cur.runs != cur.want {
			return fmt.Errorf("%s: shard %v announces %d runs, %d follow: cut short?", cur.where, cur.shard, cur.want, cur.runs)
		}
		return nil
	}
	for sc.Scan() {
		line++
		where := fmt.Sprintf("%s:%d", name, line)
		b := sc.Bytes()
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var probe struct {
			Shard *string `json:"shard"`
		}
		if json.Unmarshal(b, &probe) == nil && probe.Shard != nil {
			if err := end(); err != nil {
				return err
			}
			sh, want, err := m.addHeader(b, where)
			if err != nil {
				return err
			}
			cur = &section{where: where, shard: sh, want: want}
			continue
		}
		k, err := m.add(b, where)
		if err != nil {
			return err
		}
		if cur != nil {
			if !cur.shard.Has(k) {
				return fmt.Errorf("%s: run %d is not a run of shard %v (%s)", where, k, cur.shard, cur.where)
			}
			cur.runs++
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return fmt.Errorf("%s:%d: a line longer than %d bytes: not a shard of 'lab sweep --shard'", name, line+1, MaxLine)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if line == 0 {
		return fmt.Errorf("%s: empty: a shard starts with its header line ('lab sweep --shard i/n'), a --jsonl file has one line per run", name)
	}
	return end()
}

// addHeader checks a shard's header line and returns its shard and the
// number of runs it announces.
func (m *Merger) addHeader(b []byte, where string) (Shard, int, error) {
	var h ShardHeader
	if err := json.Unmarshal(b, &h); err != nil {
		return Shard{}, 0, fmt.Errorf("%s: not a shard header of 'lab sweep --shard': %v", where, err)
	}
	if err := m.batch(h.Schema, h.Version, h.BatchHash, h.Definition, where); err != nil {
		return Shard{}, 0, err
	}
	sh, err := ParseShard(h.Shard)
	if err != nil {
		return Shard{}, 0, fmt.Errorf("%s: shard %q: allowed i/n with 1 ≤ i ≤ n ≤ 10000", where, h.Shard)
	}
	if m.n != 0 && sh.N != m.n {
		return Shard{}, 0, fmt.Errorf("%s: shard %v, but the shards before are of %d: merge the shards of one split", where, sh, m.n)
	}
	if prev, dup := m.shards[sh.I]; dup {
		return Shard{}, 0, fmt.Errorf("%s: shard %v again (first at %s): a shard given twice?", where, sh, prev)
	}
	if want := sh.Count(m.targets); h.Runs != want {
		return Shard{}, 0, fmt.Errorf("%s: shard %v announces %d runs; it has %d of the batch's %d: the line was edited", where, sh, h.Runs, want, m.targets)
	}
	m.n, m.shards[sh.I] = sh.N, where
	return sh, h.Runs, nil
}

// batch checks that a line's schema, version and definition are the
// batch's; the first line's define it.
func (m *Merger) batch(schema int, version, hash string, def *Definition, where string) error {
	if schema != Schema {
		return fmt.Errorf("%s: schema %d; this lab reads schema %d: merge shards with the lab that wrote them", where, schema, Schema)
	}
	if def == nil {
		return fmt.Errorf("%s: the line has no batch definition", where)
	}
	if h := def.Hash(); h != hash {
		return fmt.Errorf("%s: batch_hash %s does not match its batch definition (hash %s): the line was edited", where, hash, h)
	}
	if m.def == nil {
		if def.Kind != "ab" && def.Kind != "sweep" {
			return fmt.Errorf("%s: batch kind %q; want ab or sweep", where, def.Kind)
		}
		if n := def.Runs(); n > MaxRuns || n == 0 {
			return fmt.Errorf("%s: a batch of %d runs; allowed 1 to %d", where, n, MaxRuns)
		}
		m.def, m.hash, m.first, m.targets = def, hash, where, def.Runs()
	}
	if version != m.def.Version || def.Version != m.def.Version {
		return fmt.Errorf("%s: version %q, but %s is version %q: merge only shards of one lab version", where, version, m.first, m.def.Version)
	}
	if hash != m.hash {
		return fmt.Errorf("%s: batch %s, but %s is batch %s: the shards come from different sweeps (scenario, --set, --over, --seeds or --duration differ)", where, hash, m.first, m.hash)
	}
	return nil
}

// add checks one run line and returns its index.
func (m *Merger) add(b []byte, where string) (int, error) {
	var run Run
	if err := json.Unmarshal(b, &run); err != nil {
		return 0, fmt.Errorf("%s: not a run of 'lab sweep --shard' or --jsonl: %v", where, err)
	}
	if err := m.batch(run.Schema, run.Version, run.BatchHash, run.Definition, where); err != nil {
		return 0, err
	}
	n := len(m.def.Seeds)
	if run.Index < 0 || run.Index >= m.targets || run.Arm != run.Index/n || run.Seed != m.def.Seeds[run.Index%n] {
		return 0, fmt.Errorf("%s: run %d (arm %d, seed %d) is not a run of the batch's %d", where, run.Index, run.Arm, run.Seed, m.targets)
	}
	for _, mt := range Metrics {
		if _, ok := run.Metrics[mt.Name]; !ok {
			return 0, fmt.Errorf("%s: run %d has no metric %s", where, run.Index, mt.Name)
		}
	}
	if _, dup := m.runs[run.Index]; dup {
		return 0, fmt.Errorf("%s: run %d (seed %d) again: a shard given twice?", where, run.Index, run.Seed)
	}
	// The tables need only the metrics: the parameters and the summary
	// stay in the shard files.
	run.Definition, run.Params, run.Summary = m.def, nil, nil
	m.runs[run.Index] = run
	return run.Index, nil
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
		hint := "is a shard missing or cut short?"
		if m.n != 0 {
			var absent []string
			for i := 1; i <= m.n && len(absent) < 10; i++ {
				sh := Shard{i, m.n}
				if _, ok := m.shards[i]; !ok && sh.Count(m.targets) > 0 {
					absent = append(absent, sh.String())
				}
			}
			if len(absent) > 0 {
				hint = "not given: shard " + strings.Join(absent, ", ")
			}
		}
		return nil, fmt.Errorf("%d of %d runs missing (the first: run %d, seed %d): %s", len(missing), m.targets, missing[0], m.def.Seeds[missing[0]%len(m.def.Seeds)], hint)
	}
	return NewResult(*m.def, runs)
}
