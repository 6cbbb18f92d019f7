package sim

import (
	"fmt"
	"math/bits"
	"time"
)

// Time is true (simulation) time in nanoseconds since the session start.
// Durations between Times are time.Duration; neither is ever accumulated in
// floating point.
type Time int64

// Add returns t+d.
func (t Time) Add(d time.Duration) Time { return t + Time(d) }

// Sub returns the duration t−u.
func (t Time) Sub(u Time) time.Duration { return time.Duration(t - u) }

// Seconds returns t in seconds, for display and CSV only.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// Seconds is d.Seconds(), bit for bit, without its split into whole
// seconds and nanoseconds below one second (there Seconds adds
// float64(d)/1e9 to 0): the model's per-step conversion.
func Seconds(d time.Duration) float64 {
	if d > -time.Second && d < time.Second {
		return float64(d) / 1e9
	}
	return d.Seconds()
}

// String formats t as hh:mm:ss.mmm.
func (t Time) String() string {
	sign := ""
	if t < 0 {
		sign, t = "-", -t
	}
	ms := int64(t) / 1e6
	return fmt.Sprintf("%s%02d:%02d:%02d.%03d", sign, ms/3600000, ms/60000%60, ms/1000%60, ms%1000)
}

// GridTime returns the k-th instant of a grid of n ticks per second,
// k·1s/n rounded to the nearest nanosecond (never an accumulated step), so
// three frames of a 60 fps grid are exactly 50ms.
func GridTime(k int64, perSecond int64) Time {
	// k·1e9/n with rounding, in 128-bit to avoid overflow for long runs.
	return Time(mulDivRound(k, 1e9, perSecond))
}

// Grid gives GridTime(k, perSecond) for a k that mostly counts up by one
// (a client's frames): the next instant is the last one plus 1s/n in
// whole nanoseconds and a carried remainder, not a 128-bit division. The
// result is GridTime's, bit for bit. The zero Grid is ready.
type Grid struct {
	n     int64  // ticks per second of the instant kept; 0 when none is
	k     int64  // its index (≥ 0)
	t     Time   // GridTime(k, n)
	r, n2 uint64 // t is (2·k·1e9 + n) div 2n, r the remainder; n2 = 2n
	q, d  uint64 // 2e9 = 2n·q + d: the numerator's step
}

// Time returns GridTime(k, perSecond).
func (g *Grid) Time(k, perSecond int64) Time {
	if g.n == perSecond && k == g.k+1 { // inlined: the next instant
		g.k++
		g.t += Time(g.q)
		g.r += g.d
		if g.r >= g.n2 {
			g.t++
			g.r -= g.n2
		}
		return g.t
	}
	return g.at(k, perSecond)
}

// at is Time for any k, out of line.
func (g *Grid) at(k, perSecond int64) Time {
	if g.n == perSecond && k == g.k {
		return g.t
	}
	if k < 0 || perSecond <= 0 {
		g.n = 0
		return GridTime(k, perSecond)
	}
	// GridTime rounds halves away from zero: for k ≥ 0 that is
	// floor((2·k·1e9 + n) / 2n), kept with its remainder.
	n2 := 2 * uint64(perSecond)
	hi, lo := bits.Mul64(uint64(k), 2e9)
	var carry uint64
	lo, carry = bits.Add64(lo, uint64(perSecond), 0)
	q, r := bits.Div64(hi+carry, lo, n2)
	*g = Grid{n: perSecond, k: k, t: Time(q), r: r, n2: n2, q: 2e9 / n2, d: 2e9 % n2}
	return g.t
}
