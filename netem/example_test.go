package netem_test

import (
	"fmt"
	"time"

	"jitterlab/netem"
	"jitterlab/sim"
)

// A link with 50 ms latency and a 1 Mbit/s rate: a 100-byte packet plus 28
// bytes of UDP/IPv4 overhead takes 1.024 ms on the wire, so two sent at
// once arrive 1.024 ms apart.
func ExampleLink() {
	l, _ := netem.New(1, "up", netem.Params{Latency: 50 * time.Millisecond, Rate: 1_000_000, Overhead: 28})
	a := l.Send(0, netem.Packet{ID: 1, Size: 100})
	b := l.Send(0, netem.Packet{ID: 2, Size: 100})
	fmt.Println(a.At[0], b.At[0])
	d, _ := l.Deliver(sim.Time(time.Second))
	fmt.Println(d.ID, d.At.Sub(d.SentAt))
	// Output:
	// 00:00:00.051 00:00:00.052
	// 1 51.024ms
}

// "Loss 5 % in bursts of 4 packets" as a Gilbert-Elliott model.
func ExampleBurstLoss() {
	g, _ := netem.BurstLoss(0.05, 4)
	fmt.Printf("p=%.4f r=%.2f loss=%.2f\n", g.P, g.R, g.LossRate())
	// Output: p=0.0132 r=0.25 loss=0.05
}
