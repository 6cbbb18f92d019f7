package live

import (
	"fmt"
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/telemetry"
)

// A frame's point: when it arrived since the relay started, its tick
// offset and send interval as sent, and its visible error, the distance
// of its visible and predicted positions (a 3-4-5 triangle: 5 m; the
// headings do not count).
func TestGamePointsOfConstructedFrames(t *testing.T) {
	start := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	frames := []telemetry.Received[telemetry.Frame]{
		{At: start.Add(250 * time.Millisecond), D: telemetry.Frame{Frame: 7, TickOffset: -3, SendIntervalS: 0.05,
			Visible: motion.Pose{X: 1, Y: 2, Rot: 10}, Predicted: motion.Pose{X: 4, Y: 6, Rot: 100}}},
		{At: start.Add(2 * time.Second), D: telemetry.Frame{Frame: 8, TickOffset: 2, SendIntervalS: 0.0625,
			Visible: motion.Pose{X: -1, Y: 0}, Predicted: motion.Pose{X: -1, Y: 0.5}}},
	}
	prior := GamePoint{At: time.Second}
	got := GamePoints([]GamePoint{prior}, frames, start)
	want := []GamePoint{prior,
		{At: 250 * time.Millisecond, TickOffset: -3, SendIntervalS: 0.05, VisibleErrorM: 5},
		{At: 2 * time.Second, TickOffset: 2, SendIntervalS: 0.0625, VisibleErrorM: 0.5}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("points %+v\nwant %+v", got, want)
	}
	if got := GamePoints(nil, nil, start); len(got) != 0 {
		t.Fatalf("no frames: %+v", got)
	}
}
