package proxyscreen

import (
	"testing"
	"time"
)

// relayed is a relay's copies as a delay window gets them: one received
// every 10 ms from 0 to end, each held 100 ms (oldMs) before the change
// at changeAt and newMs from it on (a change applies to the copies
// received from then on), handed over by a snapshot every 100 ms with
// the copies written since the previous one.
func relayed(w *delayWindow, changeAt, end time.Duration, oldMs, newMs float64) {
	type copyOut struct {
		out time.Duration
		ms  float64
	}
	var copies []copyOut
	for recv := time.Duration(0); recv < end; recv += 10 * time.Millisecond {
		ms := oldMs
		if recv >= changeAt {
			ms = newMs
		}
		copies = append(copies, copyOut{recv + time.Duration(ms*float64(time.Millisecond)), ms})
	}
	for s := 100 * time.Millisecond; s <= end; s += 100 * time.Millisecond {
		if s > changeAt {
			w.cutAt(changeAt)
		}
		var ms []float64
		for _, c := range copies {
			if c.out > s-100*time.Millisecond && c.out <= s {
				ms = append(ms, c.ms)
			}
		}
		w.add(s, ms)
	}
}

// The realised delays since a change are those of the copies received
// from the change on, the link they met (qa: from 100 ms to 30 ms, the
// copies in flight at the change, written in the next 100 ms with 100 ms
// of delay, were 10 of the 300 in the 3 s after it, and the realised p99
// read 100 ms for the next 10 s beside a set ≈30).
func TestRealisedDelaysSinceAChangeLeaveOutTheCopiesInFlight(t *testing.T) {
	for _, c := range []struct{ oldMs, newMs float64 }{{100, 30}, {30, 100}, {250, 40}} {
		var w delayWindow
		change := 10 * time.Second
		relayed(&w, change, 13*time.Second, c.oldMs, c.newMs)
		got := w.percentiles(change)
		if !(abs(got[0]-c.newMs) <= 0.05 && abs(got[1]-c.newMs) <= 0.05) { // NaN fails too
			t.Errorf("%g ms then %g ms: realised p50 %.2f, p99 %.2f since the change; want %g and %g", c.oldMs, c.newMs, got[0], got[1], c.newMs, c.newMs)
		}
	}
}

func abs(x float64) float64 { return max(x, -x) }

// Two changes within the old link's delay: the second waits for the
// copies of the first's old link too.
func TestRealisedDelaysAfterTwoQuickChanges(t *testing.T) {
	var w delayWindow
	relayed(&w, 10*time.Second, 10*time.Second+20*time.Millisecond, 200, 200) // 10 s at 200 ms
	w.cutAt(10 * time.Second)
	w.add(10*time.Second+50*time.Millisecond, []float64{200, 200}) // in flight
	w.cutAt(10*time.Second + 50*time.Millisecond)                  // the second change, before any copy settled
	w.add(10*time.Second+150*time.Millisecond, []float64{200, 20})
	for s := 10*time.Second + 250*time.Millisecond; s <= 11*time.Second; s += 100 * time.Millisecond {
		w.add(s, []float64{20, 20, 20})
	}
	if got := w.percentiles(0); !(abs(got[1]-20) <= 0.02) {
		t.Errorf("after two quick changes from 200 ms: realised p99 %.3f; want 20 (the copies of the first old link left out)", got[1])
	}
}
