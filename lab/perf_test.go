package lab

import (
	"math"
	"testing"
	"time"
)

func TestSecondsIsDurationSeconds(t *testing.T) {
	for _, d := range []time.Duration{0, 1, -1, 16666667, -16666667, time.Second - 1, -time.Second + 1, time.Second, -time.Second, 1<<62 + 12345, -1 << 63, 1<<63 - 1, 33333333} {
		if got, want := seconds(d), d.Seconds(); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("seconds(%d) = %v, Seconds() = %v", int64(d), got, want)
		}
	}
}
