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
	// Every arm run on every seed, and the two timelines; at least the
	// reference, the perfect link, the singles and the pairs.
	arms := r.arms
	if min := 2 + len(r.Changes) + len(r.Pairs) + len(r.Attribution); arms < min {
		t.Fatalf("%d arms counted, fewer than the %d the result shows", arms, min)
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
