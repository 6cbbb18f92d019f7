package netem

import (
	"math"
	"testing"

	"jitterlab/sim"
)

// A spike holds one packet back by spike_delay and leaves every other
// packet's delay exactly as without spikes (same seed: the spike has its
// own stream), even behind a rate; later packets overtake the spiked one.
// The share of spiked packets is the spike probability.
func TestSpikeDelaysOnlyItsPacket(t *testing.T) {
	const n, p, spikeDelay = 200000, 0.01, 500 * ms
	base := Params{Latency: 50 * ms, Jitter: 5 * ms, Rate: 2_000_000, Overhead: 28}
	spiky := base
	spiky.Spike, spiky.SpikeDelay = p, spikeDelay
	plain, _ := drive(t, newLink(t, base), n, 2*ms, 100)
	l := newLink(t, spiky)
	sends, _ := drive(t, l, n, 2*ms, 100)
	spiked := 0
	for i := range sends {
		switch d := sends[i].At[0].Sub(plain[i].At[0]); d {
		case 0:
		case spikeDelay:
			spiked++
		default:
			t.Fatalf("packet %d moved by %v: want 0 or the spike delay %v", i, d, spikeDelay)
		}
	}
	within(t, "spiked share", float64(spiked)/n, p, 5*math.Sqrt(p*(1-p)/n))
	c := l.Counters()
	if c.Spiked != uint64(spiked) {
		t.Fatalf("Spiked counter %d, want %d", c.Spiked, spiked)
	}
	// Each spiked packet is overtaken by the packets sent in the next 500 ms,
	// so nearly every spike shows up as a reordered arrival.
	if c.Reordered < uint64(spiked)*9/10 {
		t.Fatalf("%d reordered arrivals for %d spikes", c.Reordered, spiked)
	}
}

// With keep_order, the packets behind a spiked one wait for it: delivery
// stays in send order.
func TestSpikeWithKeepOrderHoldsLaterPackets(t *testing.T) {
	l := newLink(t, Params{Latency: 50 * ms, Spike: 0.01, SpikeDelay: 300 * ms, KeepOrder: true})
	sends, dels := drive(t, l, 20000, 5*ms, 100)
	for i := 1; i < len(dels); i++ {
		if dels[i].Seq < dels[i-1].Seq || dels[i].At < dels[i-1].At {
			t.Fatalf("keep_order broke behind a spike at delivery %d", i)
		}
	}
	// The packet right after a spike waits for it.
	found := false
	for i := 1; i < len(sends); i++ {
		prev := sends[i-1].At[0].Sub(sim.Time(int64(i-1) * int64(5*ms)))
		own := sends[i].At[0].Sub(sim.Time(int64(i) * int64(5*ms)))
		if prev == 350*ms && own != 350*ms { // i−1 spiked, i not
			found = true
			if sends[i].At[0] != sends[i-1].At[0] {
				t.Fatalf("packet %d after a spike arrives at %v, want with the spiked one at %v", i, sends[i].At[0], sends[i-1].At[0])
			}
		}
	}
	if !found || l.Counters().Spiked == 0 {
		t.Fatal("no spike in 20000 packets at 1 %")
	}
}
