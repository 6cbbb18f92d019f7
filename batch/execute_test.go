package batch

import (
	"errors"
	"slices"
	"testing"
	"time"

	"jitterlab/lab"
)

// smallAB is an A/B of 2 arms × 3 seeds of 2 s each on the defaults.
func smallAB() *Plan {
	def := Definition{Kind: "ab", B: []string{"server.inputs=queue"}, Seeds: []uint64{1, 2, 3}, DurationS: 2}
	p := &Plan{Def: def}
	for _, sets := range def.Arms() {
		cfg := lab.DefaultConfig()
		cfg.Duration = 2 * time.Second
		for _, s := range sets {
			k, v, _ := lab.ParseAssignment(s)
			if err := lab.Set(&cfg, k, v); err != nil {
				panic(err)
			}
		}
		p.Configs = append(p.Configs, cfg)
	}
	return p
}

// Progress counts every run of the shard once, 1 to the shard's size.
func TestExecuteReportsProgress(t *testing.T) {
	for _, c := range []struct {
		shard Shard
		runs  int
	}{{Shard{}, 6}, {Shard{I: 1, N: 2}, 3}} {
		p := smallAB()
		var got []int
		p.Progress = func(done, total int) {
			if total != c.runs {
				t.Errorf("shard %v: total %d, want %d", c.shard, total, c.runs)
			}
			got = append(got, done) // calls come one at a time
		}
		if _, err := p.Execute(c.shard, 2); err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		want := make([]int, c.runs)
		for i := range want {
			want[i] = i + 1
		}
		if !slices.Equal(got, want) {
			t.Errorf("shard %v: progress %v, want %v", c.shard, got, want)
		}
	}
}

// A closed Cancel skips every run not started: ErrCanceled, no progress.
func TestExecuteCancels(t *testing.T) {
	p := smallAB()
	cancel := make(chan struct{})
	close(cancel)
	p.Cancel = cancel
	n := 0
	p.Progress = func(done, total int) { n++ }
	runs, err := p.Execute(Shard{}, 2)
	if !errors.Is(err, ErrCanceled) || runs != nil || n != 0 {
		t.Fatalf("canceled before it started: %d runs, %d progress calls, error %v", len(runs), n, err)
	}
}
