package stats

import (
	"sync"
)

// Parallel runs job(i) for i in [0, n) on up to workers goroutines and
// returns the results in index order, so the output is the same for any
// number of workers when each job is a deterministic function of i. The
// first error by index is returned (all jobs still run).
func Parallel[T any](n, workers int, job func(i int) (T, error)) ([]T, error) {
	return ParallelWith(n, workers, func() struct{} { return struct{}{} }, func(_ struct{}, i int) (T, error) { return job(i) })
}

// ParallelWith is Parallel with one value per worker goroutine: each worker
// makes its own with newWorker, once, and passes it to every job it runs,
// so jobs reuse memory (a simulation to reset, a buffer) without sharing
// it. A job must leave nothing in w that changes the next job's result.
func ParallelWith[W, T any](n, workers int, newWorker func() W, job func(w W, i int) (T, error)) ([]T, error) {
	out := make([]T, n)
	errs := make([]error, n)
	workers = max(1, min(workers, n))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker()
			for i := range next {
				out[i], errs[i] = job(w, i)
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
