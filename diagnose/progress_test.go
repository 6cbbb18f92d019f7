package diagnose

import (
	"errors"
	"testing"
	"time"
)

// shortOptions is jitter-fix on 2 seeds × 5 s: enough to run every arm.
func shortOptions(t *testing.T) Options {
	o := options(t, "jitter-fix")
	o.Seeds = o.Seeds[:2]
	o.Base.Duration = 5 * time.Second
	return o
}

// Progress counts every run, once, and never more than are queued; the
// last call has every queued run done.
func TestProgressCountsEveryRun(t *testing.T) {
	o := shortOptions(t)
	var calls, lastDone, lastQueued int
	o.Progress = func(done, queued int) {
		calls++
		if done != lastDone+1 || done > queued || queued < lastQueued {
			t.Errorf("call %d: done %d of %d after %d of %d", calls, done, queued, lastDone, lastQueued)
		}
		lastDone, lastQueued = done, queued
	}
	r := run(t, o)
	// The arms of the singles, the removals, the pairs when tried, then of
	// the rounds.
	arms := 2 + len(r.Changes) + len(r.Pairs) + len(r.Attribution)
	for i, s := range r.Steps {
		if i > 0 {
			arms += len(s.Tried)
		}
	}
	// Each change tried across the ensemble runs in every other cell, and
	// so does the reference, once, when any is.
	if n := len(r.Robustness); n > 0 {
		cells := len(r.Robustness[0].Cells)
		arms += (n + 1) * (cells - 1)
	}
	want := arms*len(o.Seeds) + 2
	if calls != want || lastDone != want || lastQueued != want {
		t.Fatalf("%d progress calls, last %d of %d; want %d runs (%d arms × %d seeds + 2 timelines)", calls, lastDone, lastQueued, want, arms, len(o.Seeds))
	}
}

// A closed Cancel skips the runs not started and Run says so.
func TestCancelSkipsTheRemainingRuns(t *testing.T) {
	o := shortOptions(t)
	cancel := make(chan struct{})
	o.Cancel = cancel
	runs := 0
	o.Progress = func(done, queued int) {
		runs = done
		if done == 3 {
			close(cancel)
		}
	}
	o.Workers = 1
	r, err := Run(o)
	if !errors.Is(err, ErrCanceled) || r != nil {
		t.Fatalf("Run after cancel: %v, %v; want ErrCanceled", r, err)
	}
	if runs != 3 {
		t.Fatalf("%d runs done after the cancel at 3 (one worker)", runs)
	}
}
