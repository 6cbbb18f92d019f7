package batch

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
)

func TestInParallelPlacesResultsByIndex(t *testing.T) {
	none := func() struct{} { return struct{}{} }
	job := func(_ struct{}, i int) (string, error) {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		return fmt.Sprintf("%d:%x", i, r.Uint64()), nil
	}
	want, _ := inParallel(50, 1, none, job)
	for _, w := range []int{2, 3, 8, 100} {
		got, err := inParallel(50, w, none, job)
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("%d workers: %v %v", w, got, err)
		}
	}
	_, err := inParallel(10, 4, none, func(_ struct{}, i int) (int, error) {
		if i == 3 || i == 7 {
			return 0, fmt.Errorf("job %d", i)
		}
		return i, nil
	})
	if err == nil || err.Error() != "job 3" {
		t.Fatalf("first error by index: %v", err)
	}
	if got, err := inParallel(0, 4, none, func(struct{}, int) (int, error) { return 0, errors.New("x") }); err != nil || len(got) != 0 {
		t.Fatalf("no jobs: %v %v", got, err)
	}
}

// Each worker makes one value and every job it runs gets that value: with
// w workers there are at most w values, no two workers share one, and the
// results are still by index.
func TestInParallelGivesEachWorkerItsOwnValue(t *testing.T) {
	for _, workers := range []int{1, 2, 5} {
		var mu sync.Mutex
		made := 0
		type worker struct {
			id   int
			busy bool
		}
		got, err := inParallel(40, workers, func() *worker {
			mu.Lock()
			defer mu.Unlock()
			made++
			return &worker{id: made}
		}, func(w *worker, i int) (int, error) {
			if w.busy {
				return 0, fmt.Errorf("job %d: worker %d's value is in use by another job", i, w.id)
			}
			w.busy = true
			runtime.Gosched() // let other workers run meanwhile
			w.busy = false
			return i * i, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if made < 1 || made > workers {
			t.Errorf("%d workers made %d values", workers, made)
		}
		for i, v := range got {
			if v != i*i {
				t.Fatalf("%d workers: result %d is %d", workers, i, v)
			}
		}
	}
}
