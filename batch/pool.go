package batch

import "sync"

// inParallel runs job(w, i) for i in [0, n) on up to workers goroutines
// and returns the results in index order, so the output is the same for
// any number of workers when each job is a deterministic function of i.
// Each goroutine makes its own w with newWorker, once, and passes it to
// every job it runs, so jobs reuse memory (a session to reset) without
// sharing it; a job must leave nothing in w that changes the next job's
// result. The first error by index is returned (all jobs still run).
func inParallel[W, T any](n, workers int, newWorker func() W, job func(w W, i int) (T, error)) ([]T, error) {
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
