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
// it, the mean |D| over the run, the value the estimator tends to (issue
// 12, proxyscreen 5): transits alternating 20 and 24 ms make every |D|
// 4 ms while the estimate is still climbing toward it (J_k = 4·(1 −
// (15/16)^k) ms).
func TestAuditJitterMeanIsTheMeanTransitChange(t *testing.T) {
	a := newAuditor()
	ms := sim.Time(time.Millisecond)
	for i := range 40 {
		d := &Delivery{Dir: Up, Flow: 1, Arrived: sim.Time(i) * 50 * ms, Payload: []byte{1}}
		d.Due = d.Arrived + 20*ms + sim.Time(i%2)*4*ms
		a.delivered(d, d.Due, false)
	}
	j := 4 * (1 - math.Pow(15.0/16, 39))
	if got, last := a.absD[Up].mean(), a.flows[1].jitter[Up].Value(); got != 4*time.Millisecond || math.Abs(float64(last)/1e6-j) > 1e-5 {
		t.Errorf("mean |D| %v, last reading %v; want 4ms and %.4fms", got, last, j)
	}
}
