package proxy

import (
	"math"
	"testing"
	"time"

	"jitterlab/sim"
)

// The audit tells the relay's own lateness apart from the CPU it was not
// given: stalled copies are counted, and the latest copy outside them is
// the relay's timing error.
func TestAuditCountsStalledCopiesApart(t *testing.T) {
	a := newAuditor()
	ms := sim.Time(time.Millisecond)
	for i, late := range []sim.Time{ms / 10, ms / 5, 30 * ms, ms / 20} {
		d := &Delivery{Dir: Up, Flow: 1, Arrived: sim.Time(i) * 10 * ms, Payload: []byte{1}}
		d.Due = d.Arrived + 20*ms
		a.delivered(d, d.Due+late, late > sim.Time(StallAfter))
	}
	if a.stalled[Up] != 1 || a.lateOutside[Up] != ms/5 {
		t.Errorf("stalled %d, late max outside stalls %v; want 1 and 200µs", a.stalled[Up], time.Duration(a.lateOutside[Up]))
	}
}

// The audit's jitter is the estimator's last reading per flow and, beside
// it, the mean of its readings over the run (issue 12, proxyscreen 5):
// transits alternating 20 and 24 ms make every |D| 4 ms, so the estimate
// climbs from 0 toward 4 ms (J_k = 4·(1 − (15/16)^k)) and its mean over
// the run is the mean of those readings.
func TestAuditJitterMeanIsTheMeanReading(t *testing.T) {
	a := newAuditor()
	ms := sim.Time(time.Millisecond)
	var want, j float64
	const n = 40
	for i := range n {
		d := &Delivery{Dir: Up, Flow: 1, Arrived: sim.Time(i) * 50 * ms, Payload: []byte{1}}
		d.Due = d.Arrived + 20*ms + sim.Time(i%2)*4*ms
		a.delivered(d, d.Due, false)
		if i > 0 {
			j += (4e6 - j) / 16
			want += math.Round(j)
		}
	}
	want /= n - 1
	if got := a.readings[Up].mean(); math.Abs(float64(got)-want) > 1 {
		t.Errorf("mean of the readings %v; want %v", got, time.Duration(want))
	}
}
