package sim_test

import (
	"fmt"
	"time"

	"jitterlab/sim"
)

// A client clock 100 ppm fast gains exactly 360 ms an hour; a timer set for
// local time L fires at the first true instant whose reading is ≥ L.
func ExampleClock() {
	c, _ := sim.NewClock(0, 100)
	hour := sim.Time(time.Hour)
	fmt.Println(time.Duration(c.Local(hour) - hour))
	fmt.Println(c.True(sim.Time(time.Second)))
	// Output:
	// 360ms
	// 00:00:00.999
}

// Frames of a 60 fps grid are k·1s/60 rounded, so three are exactly 50 ms.
func ExampleGridTime() {
	fmt.Println(time.Duration(sim.GridTime(1, 60)), time.Duration(sim.GridTime(3, 60)))
	// Output: 16.666667ms 50ms
}
