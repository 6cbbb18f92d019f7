package stats

import (
	"sync"
)

// Parallel runs job(i) for i in [0, n) on up to workers goroutines and
// returns the results in index order, so the output is the same for any
// number of workers when each job is a deterministic function of i. The
// first error by index is returned (all jobs still run).
func Parallel[T any](n, workers int, job func(i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	errs := make([]error, n)
	workers = max(1, min(workers, n))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = job(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
