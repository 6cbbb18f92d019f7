package metrics

import (
	"math"
	"time"

	"jitterlab/sim"
)

// Jitter is the RFC 3550 §6.4.1 interarrival jitter estimator: for packets
// in arrival order, D is the difference of consecutive transit times
// (arrival − send) and J += (|D| − J)/16. It works in float nanoseconds.
type Jitter struct {
	j           float64
	lastTransit sim.Time
	has         bool
	ready       bool // a difference has been seen
}

// Add records one packet's send and arrival time.
func (j *Jitter) Add(sent, arrived sim.Time) {
	transit := arrived - sent
	if j.has {
		d := math.Abs(float64(transit - j.lastTransit))
		j.j += float64((d - j.j) / 16)
		j.ready = true
	}
	j.lastTransit, j.has = transit, true
}

// Value is the current estimate.
func (j *Jitter) Value() time.Duration { return time.Duration(math.Round(j.j)) }

// Ms is the current estimate in milliseconds, or NaN (no data) until two
// packets have given a transit-time difference.
func (j *Jitter) Ms() float64 {
	if !j.ready {
		return math.NaN()
	}
	return j.j / 1e6
}

// PDV is packet delay variation as RFC 5481 defines it for the lab: each
// one-way delay minus the minimum one-way delay seen so far.
type PDV struct {
	min time.Duration
	has bool
}

// Add records a one-way delay and returns its PDV.
func (p *PDV) Add(owd time.Duration) time.Duration {
	if !p.has || owd < p.min {
		p.min, p.has = owd, true
	}
	return owd - p.min
}
