package netem

import (
	"fmt"
	"testing"
	"time"
)

// A reset link is the link New returns: reset from links that ran other
// settings (shaper, slots, rate, bursts, reordering, duplicates) and left
// copies in flight, it sends and delivers exactly as a new one.
func TestResetLinkIsNew(t *testing.T) {
	params := []Params{
		{Latency: 40 * ms, Jitter: 15 * ms, JitterCorr: 0.3, Loss: 0.02, LossBurst: 3, Duplicate: 0.05, Reorder: 0.05, ReorderGap: 2},
		{Latency: 20 * ms, Jitter: 5 * ms, JitterDist: Pareto, Rate: 200_000, Overhead: 28, Queue: 20, Spike: 0.01, SpikeDelay: 300 * ms},
		{Latency: 30 * ms, Slot: Slot{Min: 5 * ms, Max: 15 * ms, Packets: 3}, ShapeRate: 300_000, KeepOrder: true},
		{Latency: 50 * ms, Jitter: 20 * ms, Loss: 0.01},
	}
	for i, p := range params {
		if err := p.Validate("up"); err != nil {
			t.Fatalf("params %d: %v", i, err)
		}
	}
	run := func(l *Link) string {
		sends, dels := drive(t, l, 300, 7*time.Millisecond, 200)
		return fmt.Sprint(sends, dels, l.Counters())
	}
	reused, err := New(1, "up", params[0])
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		for i := range params {
			p := params[(i+round)%len(params)]
			seed := uint64(10 + i)
			fresh, err := New(seed, "down", p)
			if err != nil {
				t.Fatal(err)
			}
			want := run(fresh)
			// Leave copies in flight and state in every stage.
			reused.Send(0, Packet{ID: 1, Size: 1000})
			if err := reused.Reset(seed, "down", p); err != nil {
				t.Fatal(err)
			}
			if got := run(reused); got != want {
				t.Fatalf("round %d, params %d: reset link differs from a new one", round, (i+round)%len(params))
			}
		}
	}
	if err := reused.Reset(1, "up", Params{Loss: 2}); err == nil {
		t.Fatal("Reset took a loss of 200 %")
	}
}
