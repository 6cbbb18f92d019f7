package proxy

import (
	"slices"
	"testing"
	"time"

	"jitterlab/netem"
	"jitterlab/sim"
)

// A client with links of its own keeps them while the defaults change,
// gets them when it first appears and when it comes back, and returns to
// the defaults when they are cleared (issue 12.2).
func TestFlowOverridesKeepTheirOwnLinks(t *testing.T) {
	c := newCore(t, netem.Params{Latency: 10 * ms}, netem.Params{Latency: 10 * ms}, DefaultLimits())
	blackout := netem.Params{Loss: 1}
	if err := c.SetFlowParams(port(5001), blackout, netem.Params{}); err != nil {
		t.Fatal(err)
	}
	plain, _, _ := c.Flow(0, port(5000))
	own, _, _ := c.Flow(0, port(5001))
	if err := c.SetParams(netem.Params{Latency: 50 * ms}, netem.Params{}); err != nil {
		t.Fatal(err)
	}
	c.Send(0, plain, Up, []byte("a"))
	c.Send(0, own, Up, []byte("b"))
	due := c.Due(sim.Time(time.Second), nil)
	if len(due) != 1 || due[0].Flow != plain || due[0].Due != sim.Time(50*ms) {
		t.Fatalf("delivered %+v; want only the default client's datagram, at the new 50ms", due)
	}
	flows := c.Flows(nil)
	if len(flows) != 2 || flows[1].Dirs[Up].Link.Lost != 1 || flows[0].Dirs[Up].Counts.Released != 1 {
		t.Fatalf("per-flow counters %+v", flows)
	}
	c.ClearFlowParams(port(5001))
	c.Send(sim.Time(time.Second), own, Up, []byte("c"))
	if due := c.Due(sim.Time(2*time.Second), nil); len(due) != 1 || due[0].Flow != own {
		t.Fatalf("after clearing: %+v", due)
	}
}

// Each flow draws from its own seeded streams (proxy.<k>.up and .down for
// the k-th client), so two clients sending the same datagrams meet
// different losses, and the same seed gives the same losses again.
func TestFlowsHaveTheirOwnSeededStreams(t *testing.T) {
	pattern := func(seed uint64) [2][]bool {
		c, err := NewCore(seed, netem.Params{Loss: 0.5}, netem.Params{}, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		var out [2][]bool
		for i, p := range []uint16{5000, 5001} {
			id, _, _ := c.Flow(0, port(p))
			for range 64 {
				out[i] = append(out[i], c.Send(0, id, Up, []byte("x")).Kept)
			}
		}
		return out
	}
	a, b := pattern(7), pattern(7)
	if !slices.Equal(a[0], b[0]) || !slices.Equal(a[1], b[1]) {
		t.Fatal("the same seed gave different losses")
	}
	if slices.Equal(a[0], a[1]) {
		t.Fatal("two clients met the same losses: their links share a stream")
	}
}

// MinDelay is a true lower bound per direction: no link of the core
// schedules a datagram sooner after its arrival, for each jitter
// distribution, with or without a client of its own; reorder and normal
// jitter make it 0.
func TestMinDelayBoundsEveryRelease(t *testing.T) {
	base := netem.Params{Latency: 20 * ms, Jitter: 8 * ms}
	for _, dist := range []netem.Dist{netem.Uniform, netem.Normal, netem.Pareto, netem.ParetoNormal, netem.Exponential} {
		up := base
		up.JitterDist = dist
		c := newCore(t, up, netem.Params{Latency: 30 * ms}, DefaultLimits())
		own := netem.Params{Latency: 15 * ms, Jitter: 2 * ms}
		if err := c.SetFlowParams(port(5001), own, own); err != nil {
			t.Fatal(err)
		}
		bound := [2]time.Duration{c.MinDelay(Up), c.MinDelay(Down)}
		if (dist == netem.Normal || dist == netem.ParetoNormal) != (bound[Up] == 0) || bound[Down] != 13*ms {
			t.Errorf("%v: bounds %v", dist, bound)
		}
		for _, p := range []uint16{5000, 5001} {
			id, _, _ := c.Flow(0, port(p))
			for i := range 20000 {
				now := sim.Time(i) * sim.Time(ms)
				c.Send(now, id, Up, []byte("x"))
				c.Send(now, id, Down, []byte("y"))
				for _, d := range c.Due(now+sim.Time(time.Hour), nil) {
					if got := time.Duration(d.Due - d.Arrived); got < bound[d.Dir] {
						t.Fatalf("%v: a copy released %v after arrival, below MinDelay(%v) %v", dist, got, d.Dir, bound[d.Dir])
					}
				}
			}
		}
	}
	c := newCore(t, netem.Params{Latency: 20 * ms, Reorder: 0.1}, netem.Params{Latency: 20 * ms}, DefaultLimits())
	if c.MinDelay(Up) != 0 || c.MinDelay(Down) != 20*ms {
		t.Fatalf("reorder sends at once: up %v; down %v, want 20ms", c.MinDelay(Up), c.MinDelay(Down))
	}
	// A client of its own, then the defaults changing, then the client
	// back on the defaults: the bound follows each change.
	if err := c.SetFlowParams(port(5001), netem.Params{Latency: 5 * ms}, netem.Params{Latency: 3 * ms}); err != nil {
		t.Fatal(err)
	}
	if err := c.SetParams(netem.Params{Latency: 40 * ms}, netem.Params{Latency: 50 * ms}); err != nil {
		t.Fatal(err)
	}
	if c.MinDelay(Up) != 5*ms || c.MinDelay(Down) != 3*ms {
		t.Fatalf("with a client of its own: up %v, down %v; want 5ms, 3ms", c.MinDelay(Up), c.MinDelay(Down))
	}
	c.ClearFlowParams(port(5001))
	if c.MinDelay(Up) != 40*ms || c.MinDelay(Down) != 50*ms {
		t.Fatalf("after clearing the client's own links: up %v, down %v; want 40ms, 50ms", c.MinDelay(Up), c.MinDelay(Down))
	}
}
