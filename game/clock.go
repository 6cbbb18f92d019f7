package game

import (
	"fmt"
	"math/rand/v2"
	"time"

	"jitterlab/sim"
)

// localClock maps the wall clock onto an endpoint's local clock as the
// session maps true time: true time is the wall time since start, and the
// local clock runs at the endpoint's drift_ppm, its drift walking by
// wander_ppm once a second.
type localClock struct {
	start     time.Time
	c         *sim.Clock
	r         *rand.Rand
	wanderPPM float64
	nextWalk  sim.Time // true time of the next wander step
	last      sim.Time // the latest true time seen: time never goes back
}

func newLocalClock(start time.Time, who string, driftPPM, wanderPPM float64, seed uint64) (*localClock, error) {
	c, err := sim.NewClock(0, driftPPM)
	if err != nil {
		return nil, fmt.Errorf("%s.drift_ppm: %w", who, err)
	}
	return &localClock{start: start, c: c, r: sim.NewRand(seed, who+".clock"), wanderPPM: wanderPPM, nextWalk: sim.Time(time.Second)}, nil
}

// local is the local reading at wall time at (at least the latest one).
func (l *localClock) local(at time.Time) sim.Time {
	t := max(sim.Time(at.Sub(l.start)), l.last)
	l.last = t
	for l.wanderPPM > 0 && l.nextWalk <= t {
		// Walk fails only beyond ±MaxDriftPPM, which it reflects back.
		_ = l.c.Walk(l.nextWalk, l.r, l.wanderPPM)
		l.nextWalk += sim.Time(time.Second)
	}
	return l.c.Local(t)
}

// wall is the wall time at which the local clock reads local.
func (l *localClock) wall(local sim.Time) time.Time {
	t := l.c.True(local)
	if l.wanderPPM > 0 {
		t = min(t, l.nextWalk) // the drift may change there: look again
	}
	return l.start.Add(time.Duration(t))
}
