package server

import (
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/proto"
	"jitterlab/sim"
)

// Issue 20 §3.3: server.buffer_mode = auto. Ticks sent every 50 ms arrive
// 30 ms later, every 10th one 120 ms later still. 10 % of the arrivals
// need a depth of ⌈120 / 50 − ½⌉ = 2, more than the 5 % the 95th
// percentile leaves out: the target is 2. Then the jitter stops: the window of 200
// arrivals holds 20 − ⌊j / 10⌋ late ones after j steady arrivals, 5 %
// (10) first at j = 100, so the target drops to 0 at arrival 300 and not
// before. A spike of 5 arrivals 300 ms late in the next 200 (2.5 %)
// leaves it at 0.
func TestAutoDepthFollowsTheArrivalJitterQuantile(t *testing.T) {
	const step = 50 * time.Millisecond
	var e depthEstimator
	e.reset(3)
	if e.target != 3 {
		t.Fatalf("target %d before any arrival, want the starting depth 3", e.target)
	}
	arrive := func(k int, late time.Duration) {
		e.add(sim.Time(time.Duration(k)*step+30*time.Millisecond+late), uint32(k), step)
	}
	for k := 1; k <= 200; k++ {
		late := time.Duration(0)
		if k%10 == 0 {
			late = 120 * time.Millisecond
		}
		arrive(k, late)
		if k >= 20 && e.target != 2 {
			t.Fatalf("arrival %d: target %d, want 2 (10 %% of arrivals 120 ms late)", k, e.target)
		}
	}
	for k := 201; k <= 400; k++ {
		arrive(k, 0)
		if want := map[bool]int{true: 2, false: 0}[k < 300]; e.target != want {
			t.Fatalf("arrival %d: target %d, want %d", k, e.target, want)
		}
	}
	for k := 401; k <= 600; k++ {
		late := time.Duration(0)
		if k%40 == 0 {
			late = 300 * time.Millisecond
		}
		arrive(k, late)
		if e.target != 0 {
			t.Fatalf("arrival %d: a spike of 2.5 %% of arrivals moved the target to %d", k, e.target)
		}
	}
}

// The base is the fastest arrival of the last 500 ms. A lasting latency
// step of 120 ms makes only the 7 arrivals within 500 ms after it late
// (3.5 % of the window): the target stays 0. A client sending 5 % slower
// (time dilation) drifts 25 ms over the window, half a step: no depth
// needed. Arrivals 60 ms late on alternate ticks need ⌈1.2 − ½⌉ = 1.
func TestAutoDepthIsNotMovedByALatencyStepOrDilation(t *testing.T) {
	const step = 50 * time.Millisecond
	for _, c := range []struct {
		name   string
		at     func(k int) time.Duration // arrival of tick k
		target int
	}{
		{"latency step", func(k int) time.Duration {
			if k > 200 {
				return time.Duration(k)*step + 120*time.Millisecond
			}
			return time.Duration(k) * step
		}, 0},
		{"5 % slower", func(k int) time.Duration { return time.Duration(k) * step * 21 / 20 }, 0},
		{"5 % faster", func(k int) time.Duration { return time.Duration(k) * step * 19 / 20 }, 0},
		{"alternate 60 ms", func(k int) time.Duration { return time.Duration(k)*step + time.Duration(k%2)*60*time.Millisecond }, 1},
	} {
		var e depthEstimator
		e.reset(0)
		for k := 1; k <= 400; k++ {
			e.add(sim.Time(c.at(k)), uint32(k), step)
			if k > 20 && e.target != c.target {
				t.Fatalf("%s: arrival %d: target %d, want %d", c.name, k, e.target, c.target)
			}
		}
	}
}

// A server in auto mode reports its target beside the depth, anchors at
// it and skips above 3·target + 2.
func TestAutoBufferReportsItsTarget(t *testing.T) {
	cfg := DefaultConfig
	cfg.Inputs, cfg.Buffer, cfg.BufferMode = Buffer, 4, BufferAuto
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const step = 50 * time.Millisecond
	for k := uint32(1); k <= 2; k++ {
		s.OnMoveInputAt(sim.Time(time.Duration(k)*step), proto.MoveInput{Tick: k, Input: motion.Input{Throttle: 1}}, nil)
	}
	ps, _ := s.Step()
	if !ps.HasTarget || ps.BufferTarget != 0 || ps.Size() != proto.PlayerStateSize+4 {
		t.Fatalf("state %+v (size %d): want target 0 (steady arrivals) and 4 more bytes", ps, ps.Size())
	}
	if ps.AckTick != 1 {
		t.Fatalf("ack %d: anchored at the starting depth 4 the buffer would wait; at target 0 tick 1 applies at once", ps.AckTick)
	}
}
