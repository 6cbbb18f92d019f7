package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"jitterlab/detmath"
)

// MaxDriftPPM bounds |drift|: beyond ±50 % a "clock" is no longer one.
const MaxDriftPPM = 500000

// Clock is an endpoint's local clock:
//
//	local = offset + (1 + drift_ppm·1e-6)·true
//
// computed exactly in integer nanoseconds (drift is held in parts per
// billion, so +100 ppm gains exactly 360 ms per hour). The drift may change
// over time ([Clock.SetDrift], [Clock.Walk]); the clock is then piecewise
// linear and continuous, and conversions are valid from the start of the
// latest segment on, which is all a forward-running simulation asks for.
type Clock struct {
	t0, l0 Time  // segment start in true and local time
	rate   int64 // local nanoseconds per 1e9 true nanoseconds
}

// NewClock returns a clock reading offset at true time 0 and running at
// 1+driftPPM·1e-6. driftPPM is rounded to the nearest 0.001 ppm.
func NewClock(offset time.Duration, driftPPM float64) (*Clock, error) {
	c := &Clock{l0: Time(offset), rate: 1e9}
	if err := c.SetDrift(0, driftPPM); err != nil {
		return nil, err
	}
	return c, nil
}

// DriftPPM returns the current drift in ppm.
func (c *Clock) DriftPPM() float64 { return float64(c.rate-1e9) / 1e3 }

// SetDrift changes the drift from true time at on; the local reading is
// continuous at at. at must not precede the current segment.
func (c *Clock) SetDrift(at Time, driftPPM float64) error {
	if math.IsNaN(driftPPM) || math.Abs(driftPPM) > MaxDriftPPM {
		return fmt.Errorf("clock drift %v ppm: allowed is -%d..+%d ppm", driftPPM, MaxDriftPPM, MaxDriftPPM)
	}
	if at < c.t0 {
		return fmt.Errorf("clock drift change at %v precedes the current segment at %v", at, c.t0)
	}
	l := c.Local(at)
	c.t0, c.l0 = at, l
	c.rate = 1e9 + int64(math.Round(driftPPM*1e3))
	return nil
}

// Walk is one step of random-walk wander: at true time at the drift changes
// by a normal draw of standard deviation sigmaPPM from r. A walk that would
// leave ±MaxDriftPPM is reflected back inside.
func (c *Clock) Walk(at Time, r *rand.Rand, sigmaPPM float64) error {
	d := c.DriftPPM() + float64(detmath.NormFloat64(r)*sigmaPPM)
	if d > MaxDriftPPM {
		d = 2*MaxDriftPPM - d
	} else if d < -MaxDriftPPM {
		d = -2*MaxDriftPPM - d
	}
	return c.SetDrift(at, d)
}

// Local returns the local reading at true time t (t ≥ segment start):
// l0 + floor((t−t0)·rate/1e9).
func (c *Clock) Local(t Time) Time {
	if c.rate == 1e9 {
		return c.l0 + t - c.t0
	}
	return c.localDrifting(t)
}

// localDrifting and trueDrifting are kept out of line so that Local and
// True inline with their undrifted fast paths.
//
//go:noinline
func (c *Clock) localDrifting(t Time) Time {
	return c.l0 + Time(mulDivFloor(int64(t-c.t0), c.rate, 1e9))
}

// True returns the first true instant at which the local clock reads at
// least local: the instant a timer set for local fires. For local readings
// before the segment start it extrapolates the current segment.
func (c *Clock) True(local Time) Time {
	if c.rate == 1e9 {
		return c.t0 + local - c.l0
	}
	return c.trueDrifting(local)
}

//go:noinline
func (c *Clock) trueDrifting(local Time) Time {
	return c.t0 + Time(mulDivCeil(int64(local-c.l0), 1e9, c.rate))
}
