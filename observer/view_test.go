package observer

import (
	"math"
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/sim"
)

const ms = time.Millisecond

// poseAt is the tank driving along +y at 2 m/s: server step k's pose.
func poseAt(k uint32) motion.Pose { return motion.Pose{Y: 0.1 * float64(k)} }

// stream feeds snapshots 1..n at 20 Hz after a one-way delay, skipping the
// lost ones and adding delay(k) to each, and renders at 60 fps; it returns
// each frame's state and pose error from WarmUp on (the true pose at the
// render time is known: constant speed).
func stream(t *testing.T, cfg Config, n uint32, lost map[uint32]bool, extra func(k uint32) time.Duration) (states map[State]int, maxErr float64, v *Viewer) {
	t.Helper()
	v, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	type arrival struct {
		at sim.Time
		k  uint32
	}
	var arrivals []arrival
	for k := uint32(1); k <= n; k++ {
		if !lost[k] {
			arrivals = append(arrivals, arrival{sim.Time(time.Duration(k)*50*ms + 30*ms + extra(k)), k})
		}
	}
	states = map[State]int{}
	next := 0
	for f := int64(0); ; f++ {
		now := sim.GridTime(f, 60)
		if now > sim.Time(time.Duration(n)*50*ms) {
			break
		}
		for next < len(arrivals) && arrivals[next].at <= now {
			v.OnSnapshot(arrivals[next].at, arrivals[next].k, poseAt(arrivals[next].k))
			next++
		}
		p, st := v.Render(now)
		if now < sim.Time(time.Second) {
			continue // warm-up
		}
		states[st]++
		if st == Interpolating {
			want := 2 * v.RenderTime(now).Seconds()
			maxErr = max(maxErr, math.Abs(p.Y-want))
		}
	}
	return states, maxErr, v
}

var noExtra = func(uint32) time.Duration { return 0 }

// Issue 11.4: at 20 Hz, 100 ms of interpolation delay spans two snapshot
// intervals, so one lost snapshot is interpolated over: no frame
// extrapolates or freezes, and the pose is exact (constant speed).
func TestInterpolationAt100msSurvivesOneLostSnapshot(t *testing.T) {
	lost := map[uint32]bool{40: true}
	fixed := Config{Mode: Fixed, Delay: DefaultDelay, Tick: 50 * ms}
	states, maxErr, _ := stream(t, fixed, 80, lost, noExtra)
	if states[Extrapolating] != 0 || states[Frozen] != 0 || states[Waiting] != 0 || maxErr > 1e-9 {
		t.Fatalf("100 ms with snapshot 40 lost: states %v, max error %v m", states, maxErr)
	}
	// 50 ms covers one interval only: the same loss extrapolates.
	fixed.Delay = 50 * ms
	if states, _, _ := stream(t, fixed, 80, lost, noExtra); states[Extrapolating] == 0 {
		t.Fatalf("50 ms with snapshot 40 lost: states %v, want some extrapolation", states)
	}
	// Five lost in a row outrun the 250 ms of extrapolation: frozen.
	fixed.Delay = DefaultDelay
	five := map[uint32]bool{40: true, 41: true, 42: true, 43: true, 44: true, 45: true, 46: true, 47: true}
	if states, _, _ := stream(t, fixed, 80, five, noExtra); states[Frozen] == 0 || states[Extrapolating] == 0 {
		t.Fatalf("400 ms without snapshots: states %v, want extrapolation then frozen", states)
	}
}

func TestAdaptiveDelayFollowsTheArrivals(t *testing.T) {
	cfg := Config{Mode: Adaptive, Delay: DefaultDelay, Tick: 50 * ms}
	_, _, v := stream(t, cfg, 200, nil, noExtra)
	if v.Delay() != 50*ms {
		t.Fatalf("steady 20 Hz: delay %v, want the 50 ms gap (σ = 0)", v.Delay())
	}
	// Arrivals jittered by a seeded 0..40 ms: mean gap 50 ms, σ of the
	// gap = 40/√6 ≈ 16 ms, so about 50 + 4·16 = 115 ms.
	r := sim.NewRand(1, "test")
	jit := make([]time.Duration, 401)
	for i := range jit {
		jit[i] = time.Duration(r.Int64N(int64(40 * ms)))
	}
	states, _, v := stream(t, cfg, 400, nil, func(k uint32) time.Duration { return jit[k] })
	if d := v.Delay(); d < 90*ms || d > 150*ms {
		t.Fatalf("jittered arrivals: delay %v, want about 115 ms", d)
	}
	if states[Frozen] != 0 {
		t.Fatalf("adaptive delay froze: %v", states)
	}
}

func TestSnapshotsOutOfOrderAndDuplicatesKeepTheRingSorted(t *testing.T) {
	v, _ := New(Config{Mode: Fixed, Delay: DefaultDelay, Tick: 50 * ms})
	for i, k := range []uint32{3, 1, 2, 2, 5, 4} {
		v.OnSnapshot(sim.Time(time.Duration(i)*ms), k, poseAt(k))
	}
	if v.n != 5 {
		t.Fatalf("%d snapshots kept, want 5", v.n)
	}
	for i := 1; i < v.n; i++ {
		if v.snaps[i-1].at >= v.snaps[i].at {
			t.Fatalf("ring out of order: %+v", v.snaps[:v.n])
		}
	}
	for k := uint32(6); k < 6+2*ringSize; k++ {
		v.OnSnapshot(sim.Time(time.Duration(k)*ms), k, poseAt(k))
	}
	v.OnSnapshot(sim.Time(time.Second), 2, poseAt(2)) // older than every kept one
	if v.n != ringSize || v.snaps[0].at != sim.Time(time.Duration(6+ringSize)*50*ms) {
		t.Fatalf("ring holds %d, oldest %v", v.n, v.snaps[0].at)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, c := range []Config{{Mode: 3, Tick: 50 * ms}, {Delay: -1, Tick: 50 * ms}, {Delay: 2 * time.Second, Tick: 50 * ms}, {}} {
		if _, err := New(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}
