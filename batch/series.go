package batch

import (
	"time"

	"jitterlab/lab"
	"jitterlab/metrics"
)

// Series is one seed's timeline for a report's charts: the samples' time,
// tick offset, send interval, visible error and visible speed.
type Series struct {
	TS, TickOffset, SendIntervalS, VisibleErrorM, VisibleSpeedMPS []float64
}

// MaxPoints bounds a timeline's samples (2 min at 50 ms is 2400).
const MaxPoints = 3000

// Record has s keep its timeline in ser while it runs for duration: at
// most MaxPoints samples, evenly strided, however long the run. It sets
// s.OnSample.
func (ser *Series) Record(s *lab.Session, duration time.Duration) {
	stride := int64(duration/s.Every())/MaxPoints + 1
	var k int64
	s.OnSample = func(x *metrics.Sample) {
		k++
		if (k-1)%stride != 0 {
			return
		}
		ser.TS = append(ser.TS, x.TS)
		ser.TickOffset = append(ser.TickOffset, float64(x.TickOffset))
		ser.SendIntervalS = append(ser.SendIntervalS, x.SendIntervalS)
		ser.VisibleErrorM = append(ser.VisibleErrorM, x.VisibleErrorM)
		ser.VisibleSpeedMPS = append(ser.VisibleSpeedMPS, x.VisibleSpeedMPS)
	}
}
