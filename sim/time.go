package sim

import (
	"fmt"
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
