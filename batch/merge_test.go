package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// shardLines is a valid two-run sweep's lines.
func shardLines() []byte {
	def := &Definition{Kind: "sweep", Version: "v", Seeds: []uint64{7}, DurationS: 1, Axes: []Axis{{"link.loss", []string{"0%", "1%"}}}}
	var b bytes.Buffer
	for k := range 2 {
		m := map[string]Value{}
		for _, mt := range Metrics {
			m[mt.Name] = Value(k)
		}
		json.NewEncoder(&b).Encode(Run{Schema: Schema, Version: "v", BatchHash: def.Hash(), Index: k, Arm: k, Seed: 7, Metrics: m, Definition: def})
	}
	return b.Bytes()
}

// shardFile is shard sh of the sweep of shardLines: its header line and
// its runs.
func shardFile(sh Shard) []byte {
	lines := bytes.SplitAfter(shardLines(), []byte("\n"))
	var run Run
	json.Unmarshal(lines[0], &run)
	b, _ := json.Marshal(sh.Header(run.Definition))
	b = append(b, '\n')
	for k, l := range lines {
		if sh.Has(k) {
			b = append(b, l...)
		}
	}
	return b
}

// TestShardCountIsItsRuns: a shard's header announces exactly the runs
// Has gives it, 0 when there are more shards than runs.
func TestShardCountIsItsRuns(t *testing.T) {
	for runs := 1; runs <= 12; runs++ {
		for n := 1; n <= 15; n++ {
			for i := 1; i <= n; i++ {
				want := 0
				for k := range runs {
					if (Shard{i, n}).Has(k) {
						want++
					}
				}
				if got := (Shard{i, n}).Count(runs); got != want {
					t.Fatalf("shard %d/%d of %d runs: Count %d, Has %d", i, n, runs, got, want)
				}
			}
		}
	}
	m := NewMerger()
	for _, sh := range []Shard{{3, 4}, {1, 4}, {2, 4}, {4, 4}} {
		if err := m.Read(bytes.NewReader(shardFile(sh)), sh.String()); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := m.Result(); err != nil || len(r.Runs) != 2 {
		t.Fatalf("four shards of two runs: %v", err)
	}
}

func TestMergerReadsItsOwnLines(t *testing.T) {
	m := NewMerger()
	if err := m.Read(bytes.NewReader(shardLines()), "s"); err != nil {
		t.Fatal(err)
	}
	r, err := m.Result()
	if err != nil || len(r.Runs) != 2 || r.Runs[1].Metrics["judder_mps"] != 1 {
		t.Fatalf("%v %+v", err, r)
	}
}

// A line whose definition claims a huge grid is refused before anything
// is built for it: the memory of a merge does not grow with what a line says.
func TestMergerRefusesHugeBatches(t *testing.T) {
	axes := ""
	for i := range 12 {
		axes += fmt.Sprintf(`{"key":"k%d","values":["1","2","3","4","5","6","7","8","9","10"]},`, i)
	}
	def := `{"kind":"sweep","version":"v","seeds":[1],"axes":[` + strings.TrimSuffix(axes, ",") + `]}`
	var d Definition
	json.Unmarshal([]byte(def), &d)
	line := fmt.Sprintf(`{"schema":2,"version":"v","batch_hash":%q,"index":0,"arm":0,"seed":1,"batch":%s}`, d.Hash(), def)
	err := NewMerger().Read(strings.NewReader(line), "big")
	if err == nil || !strings.Contains(err.Error(), "allowed 1 to 10000") {
		t.Fatalf("%v", err)
	}
}

// FuzzMergerRead: any input is read or refused with an error, never a
// panic; what is accepted gives a complete result or an error naming the
// missing runs.
func FuzzMergerRead(f *testing.F) {
	f.Add(shardLines())
	f.Add([]byte(`{"schema":1}`))
	f.Add([]byte("\n\n"))
	f.Add(shardFile(Shard{1, 1}))
	f.Add(shardFile(Shard{3, 4}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m := NewMerger()
		if err := m.Read(bytes.NewReader(b), "f"); err != nil {
			return
		}
		r, err := m.Result()
		if err == nil && len(r.Runs) != r.Def.Runs() {
			t.Fatalf("%d runs of %d", len(r.Runs), r.Def.Runs())
		}
	})
}

// FuzzParseShard: an accepted i/n reads back from its canonical form.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/4", "4/4", "0/4", " 2 / 3 ", "1/10000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		back, err := ParseShard(fmt.Sprintf("%d/%d", sh.I, sh.N))
		if err != nil || back != sh || sh.I < 1 || sh.I > sh.N {
			t.Fatalf("%q → %+v → %+v %v", s, sh, back, err)
		}
	})
}
