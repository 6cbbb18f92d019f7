package proxy

import (
	"math"
	"time"
)

// clockRead is one reading of the two clocks the relay joins: the wall
// clock, in nanoseconds since the Unix epoch (the clock of the kernel's
// arrival stamps), and the monotonic clock the relay schedules by, held
// in a time.Time.
type clockRead struct {
	wall int64
	mono time.Time
}

// readNow is the real clock: time.Now reads the wall clock first and the
// monotonic clock second, in two calls.
func readNow() clockRead {
	t := time.Now()
	return clockRead{wall: t.UnixNano(), mono: t}
}

// Bounds on readClock. A pause of the thread between a reading's two
// clocks (preempted, or its virtual CPU descheduled) lasts microseconds to
// milliseconds; two uninterrupted reads take tens of nanoseconds.
const (
	maxClockPause = time.Microsecond // a reading is taken whole within this
	clockTries    = 4                // readings compared at most
)

// readClock takes one reading of both clocks from now (readNow outside
// tests), for placing kernel stamps on the monotonic clock. A reading's
// monotonic part is later than its wall part by any pause between the two
// reads, and a stamp placed by its wall-clock age (at) is late by as
// much. The wall clock of the next reading bounds that pause: it was read
// after the first reading's monotonic clock. readClock returns the first
// reading so bounded within maxClockPause, else, after clockTries
// readings, the one with the smallest bound.
func readClock(now func() clockRead) clockRead {
	c := now()
	best, bound := c, int64(math.MaxInt64)
	for range clockTries - 1 {
		next := now()
		if b := next.wall - c.wall; b < bound {
			best, bound = c, b
		}
		if bound <= int64(maxClockPause) {
			break
		}
		c = next
	}
	return best
}

// at is when a datagram read at reading c arrived: its kernel stamp
// (wall-clock nanoseconds; ok when it has one) placed on the monotonic
// clock by its age, when that age is plausible (between 0 and a second:
// a wall clock stepped since the stamp makes it implausible), else the
// reading itself.
func (c clockRead) at(stamp int64, ok bool) time.Time {
	if age := c.wall - stamp; ok && age > 0 && age < int64(time.Second) {
		return c.mono.Add(-time.Duration(age))
	}
	return c.mono
}
