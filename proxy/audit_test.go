package proxy

import (
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
