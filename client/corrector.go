package client

import "time"

// Corrector turns the tick offset into the send interval.
type Corrector struct {
	Mode CorrectorMode
	Band int           // dead band half-width in ticks (2)
	Base time.Duration // interval with no correction (50ms)
	Fast time.Duration // interval when the client is behind (48ms)
	Slow time.Duration // interval when the client is ahead (52ms)

	interval time.Duration
}

// NewCorrector returns a corrector at its base interval.
func NewCorrector(c Corrector) *Corrector {
	c.interval = c.Base
	return &c
}

// Interval is the send interval in force.
func (c *Corrector) Interval() time.Duration { return c.interval }

// Update applies one tick offset (server_tick − client_tick − start_tick;
// positive: the client is behind and must send faster) and returns the
// interval in force after it.
//
// Deadband: offset in [−Band, +Band] keeps the interval whatever its sign;
// offset > +Band sets Fast, offset < −Band sets Slow, and a set value
// latches until the opposite threshold is crossed.
func (c *Corrector) Update(offset int) time.Duration {
	switch c.Mode {
	case Deadband:
		if offset > c.Band {
			c.interval = c.Fast
		} else if offset < -c.Band {
			c.interval = c.Slow
		}
	case Off:
		c.interval = c.Base
	case SignFlip:
		if offset > 0 {
			c.interval = c.Fast
		} else if offset < 0 {
			c.interval = c.Slow
		}
	case Proportional:
		f := min(max(1+float64(0.1*float64(offset)), 0.9), 1.1)
		c.interval = time.Duration(float64(c.Base)/f + 0.5)
	}
	return c.interval
}
