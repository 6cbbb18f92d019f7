package proxy

import (
	"testing"
	"time"
)

// fakeClock reads two clocks that agree, at the moments given: reads[k]
// is when the k-th reading took its wall clock and when its monotonic
// clock (ns after an origin; the wall clock then read wall0).
type fakeClock struct {
	origin time.Time
	reads  [][2]int64
	n      int
}

const wall0 = 1_700_000_000_000_000_000 // the wall clock at the origin, ns

func (f *fakeClock) now() clockRead {
	r := f.reads[f.n]
	f.n++
	return clockRead{wall: wall0 + r[0], mono: f.origin.Add(time.Duration(r[1]))}
}

// A kernel stamp lands on the monotonic clock where it arrived, even when
// the thread paused between a reading's wall and monotonic clocks (as
// time.Now reads them): a stamp taken 500 µs before the wall clock is
// read is placed 500 µs before the reading, at most the next reading's
// bound late. On the first reading alone (the relay until now) it lands
// late by the whole pause.
func TestAStampIsPlacedByAWholeReading(t *testing.T) {
	const stampAt = -500_000 // ns after the origin, on both clocks
	for _, c := range []struct {
		name  string
		reads [][2]int64
		want  int64 // ns after the origin: where the stamp is placed
		used  int   // readings taken
	}{
		{"a whole reading is used at once", [][2]int64{{0, 20}, {40, 60}}, stampAt + 20, 2},
		{"a reading paused 15 µs is passed over", [][2]int64{{0, 15_000}, {15_020, 15_040}, {15_060, 15_080}}, stampAt + 20, 3},
		{"a pause of 1 µs is within bound", [][2]int64{{0, 1_000}, {1_000, 1_020}}, stampAt + 1_000, 2},
		{"every reading paused: the least paused", [][2]int64{{0, 9_000}, {9_000, 12_000}, {12_000, 20_000}, {20_000, 29_000}},
			stampAt + 3_000, clockTries},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeClock{origin: time.Now(), reads: c.reads}
			got := readClock(f.now).at(wall0+stampAt, true)
			if d := got.Sub(f.origin); d != time.Duration(c.want) {
				t.Errorf("stamp at %v placed at %v, want %v", time.Duration(stampAt), d, time.Duration(c.want))
			}
			if f.n != c.used {
				t.Errorf("%d readings taken, want %d", f.n, c.used)
			}
		})
	}
}

// A reading places only a plausible stamp: one younger than a second and
// older than the reading. Otherwise (none, from the future, a wall clock
// stepped since) the datagram arrived when it was read.
func TestAnImplausibleStampIsTheReadTime(t *testing.T) {
	origin := time.Now()
	c := clockRead{wall: wall0, mono: origin}
	for _, s := range []struct {
		name  string
		stamp int64
		ok    bool
		want  time.Duration
	}{
		{"a stamp 1 ms old", wall0 - 1e6, true, -time.Millisecond},
		{"no stamp", wall0 - 1e6, false, 0},
		{"a stamp from the reading's nanosecond", wall0, true, 0},
		{"a stamp from the future", wall0 + 1e6, true, 0},
		{"a stamp a second old", wall0 - 1e9, true, 0},
	} {
		if got := c.at(s.stamp, s.ok).Sub(origin); got != s.want {
			t.Errorf("%s: placed at %v, want %v", s.name, got, s.want)
		}
	}
}
