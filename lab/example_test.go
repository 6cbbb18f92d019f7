package lab_test

import (
	"fmt"
	"time"

	"jitterlab/lab"
	"jitterlab/sim"
)

// Simulate a minute of the reference game on a jittery link, change the
// uplink latency live at 30 s, and read the summary: the reference server
// overwrites inputs and the tank moves slower than commanded.
func ExampleSession() {
	cfg := lab.DefaultConfig()
	for _, kv := range [][2]string{{"link.latency", "50ms"}, {"link.jitter", "20ms"}} {
		if err := lab.Set(&cfg, kv[0], kv[1]); err != nil {
			panic(err)
		}
	}
	s, _ := lab.New(cfg, 50*time.Millisecond)
	s.Schedule(sim.Time(30*time.Second), "up.latency", "80ms")
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		panic(err)
	}
	sum := s.Summary()
	fmt.Println(sum.Overwritten > 0, sum.MeanVisibleSpeedMPS < sum.CommandedSpeedMPS, len(s.Changes()))
	// Output: true true 1
}
