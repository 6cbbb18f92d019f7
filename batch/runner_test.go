package batch

import (
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"jitterlab/lab"
)

// Run i's result is in place i, whatever the number of workers: 3 arms ×
// 2 seeds of 1 s, each arm a different queue, give the same summaries on
// 1, 2 and 5 workers, in arm-major order.
func TestEachPlacesResultsByIndex(t *testing.T) {
	seeds := []uint64{7, 8}
	arms := []string{"server.inputs=latest", "server.inputs=queue", "server.inputs=buffer"}
	var first []lab.Summary
	for _, workers := range []int{1, 2, 5} {
		got, err := Each(&Runner{Workers: workers}, len(arms)*len(seeds), func(w *Worker, i int) (lab.Summary, error) {
			w.Config = lab.DefaultConfig()
			w.Config.Duration, w.Config.Seed = time.Second, seeds[i%len(seeds)]
			k, v, _ := lab.ParseAssignment(arms[i/len(seeds)])
			if err := lab.Set(&w.Config, k, v); err != nil {
				return lab.Summary{}, err
			}
			return w.Run(nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = got
			continue
		}
		if jsonOf(t, got) != jsonOf(t, first) {
			t.Errorf("%d workers: the summaries differ from 1 worker's", workers)
		}
	}
	if first[0].Seed != 7 || first[1].Seed != 8 || first[0].Card.ServerInputOverwrittenShare == first[2].Card.ServerInputOverwrittenShare {
		t.Errorf("run 0 seed %d, run 1 seed %d, arm 1 the same card as arm 0: not arm-major", first[0].Seed, first[1].Seed)
	}
}

// A Worker's Run after other runs is the run on a new session: a worker
// reset from a long run with another configuration and another timeline
// gives the summary a fresh session gives.
func TestWorkerRunIsAFreshRun(t *testing.T) {
	cfg := lab.DefaultConfig()
	sc, err := lab.LoadScenario("latency-spike")
	if err == nil {
		err = lab.ApplyScenario(&cfg, sc)
	}
	if err != nil {
		t.Fatal(err)
	}
	cfg.Duration, cfg.Seed = 3*time.Second, 4
	fresh := new(Worker)
	fresh.Config = cfg
	want, err := fresh.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	w := new(Worker)
	w.Config = lab.DefaultConfig()
	w.Config.Duration, w.Config.Seed, w.Config.Up.Jitter = 5*time.Second, 9, 30*time.Millisecond
	if _, err := w.Run(nil); err != nil {
		t.Fatal(err)
	}
	w.Config = cfg
	got, err := w.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, got) != jsonOf(t, want) {
		t.Errorf("reused worker: %+v\nfresh session: %+v", got.Card, want.Card)
	}
}

// The rounds of one runner share its workers: a second round runs on
// workers of the first, never more than Workers in all.
func TestRoundsShareTheRunnersWorkers(t *testing.T) {
	r := &Runner{Workers: 2}
	var mu sync.Mutex
	seen := map[int][]*Worker{}
	round := func(k int) {
		if _, err := Each(r, 8, func(w *Worker, i int) (int, error) {
			mu.Lock()
			defer mu.Unlock()
			if !slices.Contains(seen[k], w) {
				seen[k] = append(seen[k], w)
			}
			return i, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	round(1)
	idle := slices.Clone(r.idle)
	round(2)
	for _, w := range seen[2] {
		if !slices.Contains(idle, w) {
			t.Errorf("round 2 ran on a worker round 1 did not have")
		}
	}
	if len(idle) == 0 || len(idle) > 2 || len(seen[1]) > len(idle) || len(r.idle) != len(idle) {
		t.Errorf("round 1 ran on %d workers, %d idle after it, %d after round 2; want at most 2, all idle", len(seen[1]), len(idle), len(r.idle))
	}
}

// jsonOf is v's JSON, to compare summaries: one without data has NaN,
// which reflect.DeepEqual never finds equal and JSON writes as null.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Progress counts every run of every round against what the rounds so far
// queued; a closed Cancel skips the runs not started: ErrCanceled, the
// skipped runs neither run nor counted.
func TestRunnerProgressAndCancel(t *testing.T) {
	cancel := make(chan struct{})
	var got [][2]int
	r := &Runner{Workers: 1, Cancel: cancel, Progress: func(done, queued int) { got = append(got, [2]int{done, queued}) }}
	ran := 0
	job := func(w *Worker, i int) (int, error) {
		ran++
		if ran == 4 {
			close(cancel)
		}
		return i, nil
	}
	if _, err := Each(r, 2, job); err != nil {
		t.Fatal(err)
	}
	out, err := Each(r, 3, job)
	if !errors.Is(err, ErrCanceled) || out != nil {
		t.Fatalf("canceled in round 2: %v, %v; want ErrCanceled", out, err)
	}
	want := [][2]int{{1, 2}, {2, 2}, {3, 5}, {4, 5}}
	if ran != 4 || !slices.Equal(got, want) {
		t.Errorf("%d runs, progress %v; want 4 runs, %v", ran, got, want)
	}
}
