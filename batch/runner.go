package batch

import (
	"sync"

	"jitterlab/lab"
	"jitterlab/scenarios"
	"jitterlab/sim"
)

// Runner runs arms over seeds on up to Workers goroutines: a round of n
// runs ([Each]) gives run i its result's place i, so the results do not
// depend on the number of workers when each run is a deterministic
// function of i. Each goroutine runs on a [Worker] it takes from the
// runner and gives back when the round ends, so the rounds of one runner
// (a diagnosis has dozens) reset a few sessions instead of allocating one
// per worker per round. A Runner must not be copied after first use.
type Runner struct {
	// Workers is the most goroutines a round runs on (≤ 0: 1).
	Workers int
	// Progress, if not nil, is told after every run how many runs are
	// done and how many the rounds so far have queued. Calls come from
	// the workers, one at a time.
	Progress func(done, queued int)
	// Cancel, if not nil, ends a round early once closed: the runs not
	// started yet are skipped and Each returns ErrCanceled.
	Cancel <-chan struct{}

	mu           sync.Mutex // guards done, queued and idle
	done, queued int
	idle         []*Worker // the workers no round holds
}

// Worker is what one goroutine of a [Runner] reuses from run to run: a
// session to reset and the configuration it is reset to (built in place:
// lab.Set keeps its argument, so a local one would be allocated per run).
type Worker struct {
	Session lab.Session
	Config  lab.Config
}

// Start resets w's session to w.Config with sc's timeline (nil: none),
// exactly as 'lab run' schedules it; the session's callbacks are cleared.
func (w *Worker) Start(sc *scenarios.Scenario) error {
	if err := w.Session.Reset(w.Config, 0); err != nil {
		return err
	}
	if sc == nil {
		return nil
	}
	return w.Session.ScheduleTimeline(sc)
}

// Run starts w's session as [Worker.Start] does, runs it for the
// configuration's duration and returns its summary.
func (w *Worker) Run(sc *scenarios.Scenario) (lab.Summary, error) {
	if err := w.Start(sc); err != nil {
		return lab.Summary{}, err
	}
	if err := w.Session.Run(sim.Time(w.Config.Duration)); err != nil {
		return lab.Summary{}, err
	}
	return w.Session.Summary(), nil
}

// Each runs run(w, i) for every i in [0, n) on r's workers and returns the
// results in index order; w is the worker the run has to itself. The first
// error by index is returned. Once r.Cancel is closed a run not started
// returns ErrCanceled without calling run (nor Progress).
func Each[T any](r *Runner, n int, run func(w *Worker, i int) (T, error)) ([]T, error) {
	r.mu.Lock()
	r.queued += n
	r.mu.Unlock()
	var taken []*Worker
	defer func() { r.mu.Lock(); r.idle = append(r.idle, taken...); r.mu.Unlock() }()
	return inParallel(n, r.Workers, r.take(&taken), func(w *Worker, i int) (T, error) {
		select {
		case <-r.Cancel: // a nil channel never receives
			var zero T
			return zero, ErrCanceled
		default:
		}
		defer r.finished()
		return run(w, i)
	})
}

// take is a round's newWorker: an idle worker, or a new one, noted in
// *taken to be given back.
func (r *Runner) take(taken *[]*Worker) func() *Worker {
	return func() *Worker {
		r.mu.Lock()
		defer r.mu.Unlock()
		var w *Worker
		if k := len(r.idle); k > 0 {
			w, r.idle = r.idle[k-1], r.idle[:k-1]
		} else {
			w = new(Worker)
		}
		*taken = append(*taken, w)
		return w
	}
}

// finished counts a run done and tells Progress.
func (r *Runner) finished() {
	if r.Progress == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done++
	r.Progress(r.done, r.queued)
}
