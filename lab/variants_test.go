package lab

import (
	"testing"
	"time"

	"jitterlab/sim"
)

// Issue 11.1: on a lossy uplink, client.redundancy=3 lets a queue server
// apply inputs whose packets were lost; the bigger packets reach the rate
// stage.
func TestRedundancyOnALossyUplink(t *testing.T) {
	base := []string{"up.latency=30ms", "up.loss=10%", "server.inputs=queue", "client.sender=accumulator"}
	_, _, off := run(t, config(t, 30*time.Second, base...))
	_, _, on := run(t, config(t, 30*time.Second, append(base, "client.redundancy=3")...))
	if off.Recovered != 0 || on.Recovered == 0 {
		t.Fatalf("recovered %d off, %d on", off.Recovered, on.Recovered)
	}
	// Three losses in a row are rare at 10 %: nearly every loss is recovered.
	if on.Recovered*10 < on.Up.Lost*9 || on.Applied <= off.Applied {
		t.Fatalf("recovered %d of %d lost; applied %d with redundancy, %d without", on.Recovered, on.Up.Lost, on.Applied, off.Applied)
	}

	// 20 MoveInputs/s of 13+28 bytes fit in 8 kbit/s (6.6 kbit/s, each
	// serialised in 41 ms); with 3 inputs each (13+1+16+28 bytes, 9.3
	// kbit/s) they queue at the rate.
	rated := []string{"up.rate=8kbit", "client.sender=accumulator", "client.corrector=off"}
	_, _, small := run(t, config(t, 20*time.Second, rated...))
	_, _, big := run(t, config(t, 20*time.Second, append(rated, "client.redundancy=3")...))
	if small.UpOWDMs.P50 > 60 || big.UpOWDMs.P50 < 200 {
		t.Fatalf("up one-way delay p50 %.1f ms with 1 input per packet, %.1f ms with 3: the rate stage should see the size", small.UpOWDMs.P50, big.UpOWDMs.P50)
	}
}

// variantSets turns each issue-11 variant on, on a jittery lossy link.
var variantSets = map[string][]string{
	"redundancy": {"client.redundancy=3", "server.inputs=queue"},
}

func TestVariantsSteadyStateDoNotAllocate(t *testing.T) {
	for name, sets := range variantSets {
		cfg := config(t, time.Hour, append([]string{jittery, "link.jitter=20ms", "link.loss=1%"}, sets...)...)
		s, err := New(cfg, 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		s.Run(sim.Time(10 * time.Second))
		if allocs := testing.AllocsPerRun(20, func() { s.Run(s.Now() + sim.Time(time.Second)) }); allocs != 0 {
			t.Errorf("%s: one simulated second allocates %v times in steady state", name, allocs)
		}
	}
}
