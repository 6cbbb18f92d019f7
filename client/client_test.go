package client

import (
	"math"
	"slices"
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/proto"
	"jitterlab/sim"
)

const ms = time.Millisecond

// turning varies turn and throttle over time, so heading feeds forward.
var turning = ScriptFunc(func(t sim.Time) motion.Input {
	s := t.Seconds()
	return motion.Input{Turn: 0.5 + 0.5*float64(int(s*3)%3-1), Throttle: 1 - 0.25*float64(int(s*2)%2)}
})

func newClient(t *testing.T, cfg Config, s Script) *Client {
	t.Helper()
	c, err := New(cfg, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runFrames runs frames up to local time until, acknowledging the login
// with start tick 0 at the first frame.
func runFrames(c *Client, until sim.Time) (sends []proto.MoveInput) {
	for c.NextFrame() <= until {
		now := c.NextFrame()
		c.Frame(now)
		for _, m := range c.Outbox() {
			switch m.Kind {
			case MsgLogin:
				c.OnLoginAck(0)
			case MsgMoveInput:
				sends = append(sends, m.Move)
			}
		}
	}
	return sends
}

func TestReplayPending(t *testing.T) {
	k := motion.DefaultTuning
	in := motion.Input{Turn: 0.5, Throttle: 1}
	steps := []PredictedMoveStep{{Tick: 1, Input: in, Duration: 100 * ms}, {Tick: 2, Input: motion.Input{Throttle: 1}, Duration: 120 * ms}}
	want := motion.Pose{}
	for _, st := range []struct {
		in motion.Input
		dt time.Duration
	}{{in, 50 * ms}, {in, 50 * ms}, {steps[1].Input, 50 * ms}, {steps[1].Input, 50 * ms}, {steps[1].Input, 20 * ms}} {
		want = motion.Step(want, st.in, st.dt, k)
	}
	if got := ReplayPending(motion.Pose{}, steps, Substep, 50*ms, k); got != want {
		t.Fatalf("substep replay %+v, want 50+50 then 50+50+20: %+v", got, want)
	}
	single := motion.Step(motion.Step(motion.Pose{}, in, 100*ms, k), steps[1].Input, 120*ms, k)
	if got := ReplayPending(motion.Pose{}, steps, Single, 50*ms, k); got != single {
		t.Fatalf("single replay %+v, want one integration per step %+v", got, single)
	}
	if single == want {
		t.Fatal("single and substep replay should differ when turning (spec 004)")
	}
}

func TestLiveAndReplayedPosesAreBitIdentical(t *testing.T) {
	for _, p := range []Predict{Attribute, Consume} {
		t.Run(PredictNames[p], func(t *testing.T) {
			cfg := DefaultConfig
			cfg.Predict = p
			c := newClient(t, cfg, turning)
			runFrames(c, sim.Time(3*time.Second))
			// No PlayerState has arrived: every sent step is pending and
			// the live pose is the replay of all of them from the origin.
			if len(c.Pending()) < 40 {
				t.Fatalf("only %d pending steps", len(c.Pending()))
			}
			for _, s := range c.Pending() {
				if s.Duration%(50*ms) != 0 {
					t.Fatalf("step %d has duration %v, not a multiple of 50ms", s.Tick, s.Duration)
				}
			}
			replayed := ReplayPending(motion.Pose{}, c.Pending(), Substep, cfg.Cadence, cfg.Tuning)
			if replayed != c.Predicted() {
				t.Fatalf("live %+v != replayed %+v", c.Predicted(), replayed)
			}
			if again := ReplayPending(motion.Pose{}, c.Pending(), Substep, cfg.Cadence, cfg.Tuning); again != replayed {
				t.Fatal("replay is not stable across repeated replays")
			}
			if p == Attribute {
				// Attribute gives some steps 0 and some 100ms (spec 004).
				var zero, double int
				for _, s := range c.Pending() {
					switch s.Duration {
					case 0:
						zero++
					case 100 * ms:
						double++
					}
				}
				t.Logf("attribute: %d steps of 0ms, %d of 100ms among %d", zero, double, len(c.Pending()))
			}
		})
	}
}

func TestRepeatedRebuildsKeepUnacknowledgedInputs(t *testing.T) {
	c := newClient(t, DefaultConfig, turning)
	runFrames(c, sim.Time(time.Second))
	all := append([]PredictedMoveStep(nil), c.Pending()...)
	if len(all) < 10 {
		t.Fatalf("only %d steps", len(all))
	}
	base1 := motion.Pose{X: 1, Y: 2, Rot: 10}
	base2 := motion.Pose{X: 1.5, Y: 2.5, Rot: 20}
	n1, n2 := all[2].Tick, all[5].Tick

	for _, st := range []struct {
		serverTick uint32
		base       motion.Pose
		ack        uint32
	}{{3, base1, n1}, {4, base2, n2}} {
		c.OnPlayerState(proto.PlayerState{ServerTick: st.serverTick, Pose: st.base, AckTick: st.ack})
		// Process it at the next frame without letting prediction run.
		c.reconcile(&c.inbox[0])
		c.inbox = c.inbox[:0]
		// Only steps with tick ≤ ack are pruned; the rest stay for later.
		var want []PredictedMoveStep
		for _, s := range all {
			if s.Tick > st.ack {
				want = append(want, s)
			}
		}
		got := c.Pending()
		if len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
			t.Fatalf("after ack %d: pending %d steps from tick %d, want %d from %d", st.ack, len(got), got[0].Tick, len(want), want[0].Tick)
		}
		// The prediction is rebuilt from this snapshot's own baseline.
		if p := ReplayPending(st.base, want, Substep, 50*ms, motion.DefaultTuning); c.Predicted() != p || c.Target() != p {
			t.Fatalf("predicted %+v target %+v, want replay from baseline %+v", c.Predicted(), c.Target(), p)
		}
		if b, ack := c.Baseline(); b != st.base || ack != st.ack {
			t.Fatalf("baseline %+v ack %d", b, ack)
		}
	}
	// An older PlayerState is ignored.
	before := c.Predicted()
	c.OnPlayerState(proto.PlayerState{ServerTick: 3, Pose: motion.Pose{X: 99}, AckTick: n2 + 3})
	c.reconcile(&c.inbox[0])
	if c.Predicted() != before || c.Counters().StaleStates != 1 || c.ServerTick() != 4 {
		t.Fatal("an older PlayerState changed the prediction")
	}
}

func TestTargetChangesOnlyOnPlayerState(t *testing.T) {
	c := newClient(t, DefaultConfig, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{Throttle: 1} }))
	runFrames(c, sim.Time(500*ms))
	c.OnPlayerState(proto.PlayerState{ServerTick: 1, Pose: motion.Pose{Y: 0.2}, AckTick: 1})
	runFrames(c, c.NextFrame())
	target, pred := c.Target(), c.Predicted()
	runFrames(c, c.LastFrame()+sim.Time(300*ms))
	if c.Target() != target {
		t.Fatal("the presentation target moved without a PlayerState")
	}
	if c.Predicted() == pred {
		t.Fatal("live prediction did not move between PlayerStates")
	}
	// The visible pose converges toward the same target.
	if d := motion.Distance(c.Visible(), target); d > 1e-3 {
		t.Fatalf("visible is %v m from the stable target after 300ms of lerp", d)
	}
}

func TestSmallErrorLerpsLargeErrorSnaps(t *testing.T) {
	c := newClient(t, DefaultConfig, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{} }))
	runFrames(c, sim.Time(100*ms))
	// Small residual: interpolation across frames, no snap.
	c.OnPlayerState(proto.PlayerState{ServerTick: 1, Pose: motion.Pose{X: 0.4}})
	runFrames(c, c.NextFrame())
	if c.Counters().Snaps != 0 || c.Visible().X != 0.4*0.15 {
		t.Fatalf("small error: snaps %d visible %+v, want one lerp step of α=0.15", c.Counters().Snaps, c.Visible())
	}
	if c.Predicted().X != 0.4 {
		t.Fatal("the rebuilt pose stays gameplay truth while smoothing converges")
	}
	// Large divergence: the visible pose snaps to the rebuilt pose.
	c.OnPlayerState(proto.PlayerState{ServerTick: 2, Pose: motion.Pose{X: 3, Rot: 40}})
	runFrames(c, c.NextFrame())
	if c.Counters().Snaps != 1 || c.Visible() != c.Predicted() {
		t.Fatalf("large error: snaps %d visible %+v predicted %+v", c.Counters().Snaps, c.Visible(), c.Predicted())
	}
}

func TestDeadbandCorrector(t *testing.T) {
	newDB := func() *Corrector {
		return NewCorrector(Corrector{Mode: Deadband, Band: 2, Base: 50 * ms, Fast: 48 * ms, Slow: 52 * ms})
	}
	t.Run("no correction within the band", func(t *testing.T) {
		c := newDB()
		for _, o := range []int{0, 2, -2, 1, -1, 2, -2, 0} {
			if c.Update(o) != 50*ms {
				t.Fatalf("offset %d changed the interval", o)
			}
		}
	})
	t.Run("offset > +2 → 0.048, < −2 → 0.052", func(t *testing.T) {
		c := newDB()
		if c.Update(3) != 48*ms {
			t.Fatal("offset 3 should set 48ms")
		}
		if c.Update(-3) != 52*ms {
			t.Fatal("offset -3 should set 52ms")
		}
	})
	t.Run("latch holds inside the band for any sign changes", func(t *testing.T) {
		c := newDB()
		c.Update(5)
		for _, o := range []int{6, 9, 2, 0, -1, 1, -2, 2, 0} {
			if c.Update(o) != 48*ms {
				t.Fatalf("offset %d released the 48ms latch", o)
			}
		}
		if c.Update(-3) != 52*ms {
			t.Fatal("crossing −2 should flip to 52ms")
		}
		for _, o := range []int{-9, -2, 0, 2} {
			if c.Update(o) != 52*ms {
				t.Fatalf("offset %d released the 52ms latch", o)
			}
		}
	})
	t.Run("signflip toggles on every sign change", func(t *testing.T) {
		c := NewCorrector(Corrector{Mode: SignFlip, Base: 50 * ms, Fast: 48 * ms, Slow: 52 * ms})
		if c.Update(1) != 48*ms || c.Update(-1) != 52*ms || c.Update(0) != 52*ms {
			t.Fatal("signflip")
		}
	})
	t.Run("proportional scales 0.05 by 1/clamp(1+0.1·offset)", func(t *testing.T) {
		c := NewCorrector(Corrector{Mode: Proportional, Base: 50 * ms})
		for o, want := range map[int]time.Duration{0: 50 * ms, 1: 45454545, -1: 55555556, 5: 45454545, -7: 55555556} {
			if got := c.Update(o); got != want {
				t.Errorf("offset %d: %v, want %v", o, got, want)
			}
		}
	})
	t.Run("off", func(t *testing.T) {
		c := NewCorrector(Corrector{Mode: Off, Base: 50 * ms, Fast: 48 * ms})
		if c.Update(10) != 50*ms {
			t.Fatal("off corrected")
		}
	})
}

func sendGaps(sends []sim.Time) map[time.Duration]int {
	gaps := map[time.Duration]int{}
	for i := 1; i < len(sends); i++ {
		gaps[sends[i].Sub(sends[i-1])]++
	}
	return gaps
}

func TestSenders(t *testing.T) {
	run := func(s Sender, iv time.Duration) map[time.Duration]int {
		cfg := DefaultConfig
		cfg.Sender, cfg.SendInterval, cfg.Corrector = s, iv, Off
		c := newClient(t, cfg, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{} }))
		var at []sim.Time
		for c.NextFrame() <= sim.Time(10*time.Second) {
			now := c.NextFrame()
			c.Frame(now)
			for _, m := range c.Outbox() {
				if m.Kind == MsgLogin {
					c.OnLoginAck(0)
				} else {
					at = append(at, now)
				}
			}
		}
		return sendGaps(at)
	}
	// Frame sender: now − last_send > 50ms is first true at the 4th frame
	// (3 frames are exactly 50ms), so it sends every 66.7ms: 15 Hz.
	for gap := range run(SenderFrame, 50*ms) {
		if d := gap - sim.GridTime(4, 60).Sub(0); d < -1 || d > 1 {
			t.Fatalf("frame sender at 50ms: gap %v, want every 4 frames (66.67ms ± 1ns of rounding)", gap)
		}
	}
	if g := run(SenderFrame, 48*ms); len(g) != 1 || g[50*ms] == 0 {
		t.Fatalf("frame sender at 48ms: gaps %v, want every 3 frames = 50ms", g)
	}
	// Accumulator: no overshoot lost, exactly 50ms.
	if g := run(SenderAccumulator, 50*ms); len(g) != 1 || g[50*ms] == 0 {
		t.Fatalf("accumulator at 50ms: gaps %v, want exactly 50ms", g)
	}
	// Accumulator at 48ms: mean gap 48ms from 3- and 2-frame gaps.
	g := run(SenderAccumulator, 48*ms)
	var n, sum int64
	for d, k := range g {
		n += int64(k)
		sum += int64(d) * int64(k)
	}
	if mean := time.Duration(sum / n); mean < 47900*time.Microsecond || mean > 48100*time.Microsecond {
		t.Fatalf("accumulator at 48ms: mean gap %v (%v)", mean, g)
	}
}

func TestTickOffset(t *testing.T) {
	c := newClient(t, DefaultConfig, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{} }))
	c.OnLoginAck(40)
	runFrames(c, sim.Time(time.Second))
	ticks := c.Tick()
	c.OnPlayerState(proto.PlayerState{ServerTick: 40 + ticks + 3})
	c.reconcile(&c.inbox[0])
	if c.Offset() != 3 || c.SendInterval() != 48*ms {
		t.Fatalf("offset %d interval %v, want server − client − start = 3 → 48ms", c.Offset(), c.SendInterval())
	}
}

func TestFixedUpdatesAndUnitsFollowTheLocalClock(t *testing.T) {
	c := newClient(t, DefaultConfig, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{Throttle: 1} }))
	runFrames(c, sim.Time(2*time.Second))
	// 2 s of 20ms fixed updates = 100; spent in 50ms units = 40 units, all
	// but those before the first send predicting motion at 2 m/s.
	units := 40 - int(c.Counters().UnitsDropped)
	want := float64(units) * 0.05 * 2
	if got := c.Predicted().Y; got < want-1e-9 || got > want+1e-9 {
		t.Fatalf("predicted y %v, want %d units × 0.1 m = %v", got, units, want)
	}
}

func TestConfigValidation(t *testing.T) {
	bad := DefaultConfig
	bad.FrameJitter = 20 * ms
	if err := bad.Validate(); err == nil {
		t.Fatal("frame jitter longer than a frame accepted")
	}
	bad = DefaultConfig
	bad.Snap = 0
	if err := bad.Validate(); err == nil {
		t.Fatal("snap 0 accepted")
	}
}

// movetowards caps the visible step at the speed of the current input,
// throttle × move_speed (the user's code: MoveTowards(visible, target,
// speed·dt) with the tank's current speed), and the turn at turn_speed.
func TestMoveTowardsLimitsSpeedPerFrame(t *testing.T) {
	for _, throttle := range []float64{1, 0.5, -0.25} {
		cfg := DefaultConfig
		cfg.Smoothing = MoveTowards
		c := newClient(t, cfg, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{Throttle: throttle} }))
		runFrames(c, sim.Time(100*ms))
		// Everything sent is acknowledged: the target is the state's pose.
		c.OnPlayerState(proto.PlayerState{ServerTick: 1, Pose: motion.Pose{X: 0.4, Rot: 90}, AckTick: c.Tick()})
		speed := math.Abs(throttle) * cfg.Tuning.MoveSpeed
		prev, atCap := c.Visible(), 0
		for range 10 {
			runFrames(c, c.NextFrame())
			st := c.Stats()
			step := motion.Distance(c.Visible(), prev)
			maxStep := speed * st.Dt.Seconds()
			if step > maxStep+1e-12 {
				t.Fatalf("throttle %v: moved %v m in a frame of %v, limit %v", throttle, step, st.Dt, maxStep)
			}
			if step > maxStep-1e-12 {
				atCap++
			}
			if d := motion.AngleDiff(c.Visible().Rot, prev.Rot); d > cfg.Tuning.TurnSpeed*st.Dt.Seconds()+1e-9 {
				t.Fatalf("turned %v° in a frame", d)
			}
			prev = c.Visible()
		}
		if atCap != 10 {
			t.Fatalf("throttle %v: %d of 10 frames moved at throttle × move_speed, want every one (0.4 m is not reached)", throttle, atCap)
		}
		// 0.4 m at `speed` takes 0.4/speed s; 90° at 180 °/s takes 0.5 s.
		frames := int(math.Ceil(max(0.4/speed, 0.5)*60)) + 1
		for range frames {
			runFrames(c, c.NextFrame())
		}
		if c.Visible().X != 0.4 || c.Visible().Rot != 90 {
			t.Fatalf("throttle %v: movetowards did not arrive after %d frames: %+v", throttle, frames, c.Visible())
		}
	}
	// Standing still, the visible pose does not move at all.
	cfg := DefaultConfig
	cfg.Smoothing = MoveTowards
	c := newClient(t, cfg, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{} }))
	runFrames(c, sim.Time(100*ms))
	c.OnPlayerState(proto.PlayerState{ServerTick: 1, Pose: motion.Pose{X: 0.4}, AckTick: c.Tick()})
	runFrames(c, c.NextFrame()+sim.Time(time.Second))
	if c.Visible().X != 0 {
		t.Fatalf("throttle 0: the visible pose moved to %+v", c.Visible())
	}
}

func TestFrameJitterKeepsFramesOrderedAndOnAverageOnTheGrid(t *testing.T) {
	cfg := DefaultConfig
	cfg.FrameJitter = 8 * ms
	c, err := New(cfg, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{} }), sim.NewRand(1, "client.frames"))
	if err != nil {
		t.Fatal(err)
	}
	var last sim.Time = -1
	var n int
	var offGrid int
	for c.NextFrame() <= sim.Time(10*time.Second) {
		at := c.NextFrame()
		if at <= last {
			t.Fatalf("frame at %v after %v", at, last)
		}
		if at != sim.GridTime(int64(n), 60) {
			offGrid++
		}
		c.Frame(at)
		last = at
		n++
	}
	if n < 600 || n > 601 || offGrid < 500 {
		t.Fatalf("%d frames in 10 s (%d off the grid): jitter should delay frames within their slot", n, offGrid)
	}
	if _, err := New(cfg, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{} }), nil); err == nil {
		t.Fatal("frame jitter without a random stream accepted")
	}
}

func TestLiveFPSChangeStartsANewGrid(t *testing.T) {
	c := newClient(t, DefaultConfig, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{} }))
	runFrames(c, sim.Time(time.Second))
	base := c.LastFrame()
	cfg := DefaultConfig
	cfg.FPS = 30
	if err := c.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if next := c.NextFrame(); next != base+sim.GridTime(1, 30) {
		t.Fatalf("next frame at %v, want %v + 1/30 s", next, base)
	}
	runFrames(c, base+sim.Time(time.Second))
	if c.LastFrame() != base+sim.Time(time.Second) {
		t.Fatalf("30 frames at 30 fps end at %v, want %v", c.LastFrame(), base+sim.Time(time.Second))
	}
}

func TestConsumeGivesEveryPredictedStepExactlyOneUnit(t *testing.T) {
	// With the frame sender at 15 Hz and units at 20 Hz, consume predicts
	// each sent step once for 50 ms and drops the surplus units.
	cfg := DefaultConfig
	cfg.Predict, cfg.Corrector = Consume, Off
	c := newClient(t, cfg, turning)
	runFrames(c, sim.Time(3*time.Second))
	for _, s := range c.Pending() {
		if s.Predicted != (s.Duration == 50*ms) || (!s.Predicted && s.Duration != 0) {
			t.Fatalf("step %+v", s)
		}
	}
	if c.Counters().UnitsDropped == 0 {
		t.Fatal("units beyond the sent steps should be dropped")
	}
}

func TestRedundancyCarriesTheLastNInputs(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		cfg := DefaultConfig
		cfg.Redundancy = Redundancy(n - 1)
		c := newClient(t, cfg, turning)
		var sends []Message
		for c.NextFrame() <= sim.Time(3*time.Second) {
			c.Frame(c.NextFrame())
			for _, m := range c.Outbox() {
				if m.Kind == MsgLogin {
					c.OnLoginAck(0)
				} else {
					m.Earlier = slices.Clone(m.Earlier) // valid until the next frame
					sends = append(sends, m)
				}
			}
		}
		for k, msg := range sends {
			m, want := msg.Move, min(n-1, k)
			if int(m.Redundant) != want {
				t.Fatalf("N=%d: tick %d carries %d earlier inputs, want %d", n, m.Tick, m.Redundant, want)
			}
			for i := range want {
				if prev := sends[k-1-i].Move; msg.Earlier[i] != prev.Input || prev.Tick != m.Tick-1-uint32(i) {
					t.Fatalf("N=%d: tick %d earlier[%d] = %+v, want tick %d's %+v", n, m.Tick, i, msg.Earlier[i], prev.Tick, prev.Input)
				}
			}
			if size := proto.MoveInputSize + min(want, 1) + want*proto.RedundantInputSize; m.Size() != size {
				t.Fatalf("N=%d: size %d, want %d", n, m.Size(), size)
			}
		}
	}
}

func TestDilationControlLaw(t *testing.T) {
	cfg := DefaultConfig
	cfg.Corrector, cfg.BufferTarget, cfg.Sender = Dilation, 3, SenderAccumulator
	c := newClient(t, cfg, turning)
	runFrames(c, sim.Time(time.Second))
	state := func(tick uint32, depth int16, has bool) {
		c.OnPlayerState(proto.PlayerState{ServerTick: tick, BufferDepth: depth, HasDepth: has})
		runFrames(c, c.NextFrame())
	}
	state(1, 0, false)
	if c.Dilation() != 1 || c.SendInterval() != 50*ms {
		t.Fatal("without a reported depth the rates changed")
	}
	// Depth 0 of 3: 0.02·3 = 6 % clamps to +5 %: faster by 1.05.
	state(2, 0, true)
	if c.Dilation() != 1.05 || c.SendInterval() != 47619048 || c.fixedStep != 19047619 {
		t.Fatalf("depth 0: scale %v interval %v fixed %v, want 1.05, 50ms/1.05, 20ms/1.05", c.Dilation(), c.SendInterval(), c.fixedStep)
	}
	// The filter: f = 0 + 0.2·(3 − 0) = 0.6, scale 1 + 0.02·2.4 = 1.048.
	state(3, 3, true)
	if got := c.Dilation(); math.Abs(got-1.048) > 1e-12 {
		t.Fatalf("filtered depth: scale %v, want 1.048", got)
	}
	// Long buffer: slower, clamped at −5 %.
	for k := uint32(4); k < 40; k++ {
		state(k, 9, true)
	}
	if c.Dilation() != 0.95 {
		t.Fatalf("depth 9 of 3: scale %v, want 0.95", c.Dilation())
	}
	// Leaving dilation restores the base rates.
	cfg.Corrector = Off
	if err := c.SetConfig(cfg); err != nil || c.Dilation() != 1 || c.SendInterval() != 50*ms || c.fixedStep != 20*ms {
		t.Fatalf("after leaving dilation: scale %v interval %v fixed %v", c.Dilation(), c.SendInterval(), c.fixedStep)
	}
}

// Issue 11.3: at 20 fps with fixed updates that cost more CPU time (25 ms)
// than they simulate (20 ms), every frame has more to catch up than the
// last: without a bound the frames grow without limit (the death spiral);
// client.max_catchup bounds each frame's catch-up and the game clock runs
// slow instead.
func TestMaxCatchupStopsTheDeathSpiral(t *testing.T) {
	run := func(m MaxCatchup) (maxDt time.Duration, frames int, c *Client) {
		cfg := DefaultConfig
		cfg.FPS, cfg.FixedCost, cfg.MaxCatchup = 20, 25*ms, m
		c = newClient(t, cfg, turning)
		for c.NextFrame() <= sim.Time(20*time.Second) {
			c.Frame(c.NextFrame())
			maxDt = max(maxDt, c.Stats().Dt)
			frames++
		}
		return maxDt, frames, c
	}
	offDt, offFrames, off := run(CatchupOff)
	if offDt < 3*time.Second || offFrames > 60 {
		t.Fatalf("without a bound: longest frame %v, %d frames in 20 s: want the spiral (frames of seconds)", offDt, offFrames)
	}
	if off.Counters().CatchupLost != 0 {
		t.Fatal("without a bound the game clock lost time")
	}
	for _, c := range []struct {
		m     MaxCatchup
		maxDt time.Duration // ⌈bound ÷ 20 ms⌉ fixed updates × 25 ms
	}{{CatchupUnity, 17 * 25 * ms}, {Catchup100ms, 5 * 25 * ms}} {
		dt, frames, cl := run(c.m)
		if dt > c.maxDt || cl.Counters().MaxFixedPerFrame > int(c.maxDt/(25*ms)) {
			t.Errorf("max_catchup %v: longest frame %v (%d fixed updates), want ≤ %v", c.m.Duration(), dt, cl.Counters().MaxFixedPerFrame, c.maxDt)
		}
		// The game runs at 20/25 of real time: it lost about a fifth.
		if lost := cl.Counters().CatchupLost; lost < 3*time.Second || lost > 5*time.Second {
			t.Errorf("max_catchup %v: game clock lost %v of 20 s, want about 4 s", c.m.Duration(), lost)
		}
		t.Logf("max_catchup %v: longest frame %v, %d frames, game clock %v behind", c.m.Duration(), dt, frames, cl.Counters().CatchupLost)
	}
	t.Logf("off: longest frame %v, %d frames", offDt, offFrames)
}

// A snap is part of the frame's visible motion: MovedM is the distance from
// the pose drawn in the previous frame to the pose drawn in this one, the
// snap's jump included (docs/explanation/report-card.md: one visible speed).
func TestMovedCountsTheSnapJump(t *testing.T) {
	c := newClient(t, DefaultConfig, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{} }))
	runFrames(c, sim.Time(100*ms))
	drawn := c.Visible()
	c.OnPlayerState(proto.PlayerState{ServerTick: 1, Pose: motion.Pose{X: 3, Rot: 40}})
	runFrames(c, c.NextFrame())
	if c.Counters().Snaps != 1 {
		t.Fatalf("no snap: %d", c.Counters().Snaps)
	}
	want := motion.Distance(c.Visible(), drawn)
	if st := c.Stats(); math.Abs(st.MovedM-want) > 1e-12 || math.Abs(st.SpeedMPS()-want/st.Dt.Seconds()) > 1e-9 {
		t.Errorf("moved %.4f m (%.3f m/s) in the snap's frame; the pose drawn moved %.4f m", st.MovedM, st.SpeedMPS(), want)
	}
}

// Issue 20 §2.4: Unity's Time.maximumDeltaTime "limits the increase of
// Time.time between two frames", and a sender in Update reads Time.time: so
// with max_catchup cutting the game clock, the sender sends by the game
// clock, not by local time. At 20 fps with fixed updates that cost 25 ms
// (frames up to 125 ms) and a 250 ms send interval, the game runs at about
// 20/25 of local time and so do the sends.
func TestMaxCatchupSenderFollowsTheGameClock(t *testing.T) {
	cfg := DefaultConfig
	cfg.FPS, cfg.FixedCost, cfg.MaxCatchup = 20, 25*ms, Catchup100ms
	cfg.Sender, cfg.SendInterval = SenderAccumulator, 250*ms
	c := newClient(t, cfg, turning)
	sends := runFrames(c, sim.Time(20*time.Second))
	game := time.Duration(c.LastFrame()) - c.Counters().CatchupLost
	local := time.Duration(c.LastFrame())
	if lost := c.Counters().CatchupLost; lost < 3*time.Second {
		t.Fatalf("the game clock lost %v: want a slow game", lost)
	}
	want := int(game / cfg.SendInterval)
	if n := len(sends); n < want-2 || n > want+1 {
		t.Fatalf("%d sends in %v of game time (%v local): want %d, one per 250 ms of game time (local time would give %d)",
			n, game, local, want, int(local/cfg.SendInterval))
	}
}

// Issue 20 §3.4: client.redundancy=unacked repeats every input not yet
// acknowledged, newest first, up to what one packet of
// proto.MaxMoveInputPayload bytes holds: with no acknowledgement tick k
// carries k − 1 earlier inputs until the packet is full; an ack of tick
// 70 leaves ticks 71 … k − 1.
func TestRedundancyUnackedCarriesEveryUnacknowledgedInput(t *testing.T) {
	cfg := DefaultConfig
	cfg.Redundancy, cfg.Sender = RedundancyUnacked, SenderAccumulator
	c := newClient(t, cfg, turning)
	inputs := map[uint32]motion.Input{}
	check := func(m Message, oldest uint32) {
		t.Helper()
		want := int(min(m.Move.Tick-oldest, proto.MaxEarlier))
		if int(m.Move.Redundant) != want || len(m.Earlier) != want || m.Move.Size() > proto.MaxMoveInputPayload {
			t.Fatalf("tick %d carries %d earlier inputs (%d bytes), want %d (oldest unacknowledged %d, at most %d)",
				m.Move.Tick, m.Move.Redundant, m.Move.Size(), want, oldest, proto.MaxEarlier)
		}
		for i, in := range m.Earlier {
			if in != inputs[m.Move.Tick-1-uint32(i)] {
				t.Fatalf("tick %d earlier[%d] = %+v, want tick %d's %+v", m.Move.Tick, i, in, m.Move.Tick-1-uint32(i), inputs[m.Move.Tick-1-uint32(i)])
			}
		}
	}
	oldest := uint32(1)
	for c.NextFrame() <= sim.Time(6*time.Second) {
		now := c.NextFrame()
		if now >= sim.Time(5*time.Second) && oldest == 1 {
			c.OnPlayerState(proto.PlayerState{ServerTick: 1, AckTick: 70})
			oldest = 71
		}
		c.Frame(now)
		for _, m := range c.Outbox() {
			if m.Kind == MsgLogin {
				c.OnLoginAck(0)
				continue
			}
			inputs[m.Move.Tick] = m.Move.Input
			check(m, oldest)
		}
	}
	if c.Tick() < 90 {
		t.Fatalf("sent %d ticks: the packet bound (%d) and the ack were not both reached", c.Tick(), proto.MaxEarlier)
	}
}

// A reset client is the client New returns: one reset after a run with
// other settings (another frame rate, a corrector, redundancy) sends the
// same inputs and shows the same poses as a new one.
func TestResetClientRunsAsNew(t *testing.T) {
	cfg := DefaultConfig
	other := cfg
	other.FPS, other.Corrector, other.Redundancy = 144, Dilation, 3
	run := func(c *Client) ([]proto.MoveInput, motion.Pose, Counters) {
		sends := runFrames(c, sim.Time(3*time.Second))
		for k := uint32(1); k <= 20; k++ {
			c.OnPlayerState(proto.PlayerState{ServerTick: k + 2, AckTick: k, Pose: motion.Pose{X: float64(k) / 10}})
			sends = append(sends, runFrames(c, c.NextFrame()+sim.Time(50*ms))...)
		}
		return sends, c.Visible(), c.Counters()
	}
	wantSends, wantPose, wantCounters := run(newClient(t, cfg, turning))
	c := newClient(t, other, turning)
	run(c)
	if err := c.Reset(cfg, turning, nil); err != nil {
		t.Fatal(err)
	}
	sends, pose, counters := run(c)
	if !slices.EqualFunc(sends, wantSends, func(a, b proto.MoveInput) bool {
		return a.Tick == b.Tick && a.Input == b.Input && a.Redundant == b.Redundant
	}) ||
		pose != wantPose || counters != wantCounters {
		t.Fatalf("after Reset: %d sends, pose %+v, %+v; new: %d sends, pose %+v, %+v", len(sends), pose, counters, len(wantSends), wantPose, wantCounters)
	}
	other.FPS = 0
	if err := c.Reset(other, turning, nil); err == nil {
		t.Fatal("Reset accepted client.fps=0")
	}
}
