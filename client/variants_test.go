package client

import (
	"math"
	"testing"
	"time"

	"jitterlab/detmath"
	"jitterlab/motion"
	"jitterlab/proto"
	"jitterlab/sim"
)

func still(sim.Time) motion.Input { return motion.Input{} }

// correct runs frames to at least `after`, hands the client a PlayerState
// that acknowledges every input sent and puts the tank at x, and returns
// the time of the last frame before the one that applies it.
func correct(t *testing.T, c *Client, after sim.Time, serverTick uint32, x float64) sim.Time {
	t.Helper()
	runFrames(c, after)
	before := c.LastFrame()
	c.OnPlayerState(proto.PlayerState{ServerTick: serverTick, Pose: motion.Pose{X: x}, AckTick: c.Tick()})
	return before
}

// Issue 20 §3.1: with no correction, client.smoothing=predicted shows the
// prediction interpolated between its 50 ms units: at constant speed the
// visible pose moves exactly speed·dt every frame (the units step 0.1 m
// every 50 ms), and trails the newest unit by less than one unit.
func TestPredictedShowsTheInterpolatedPrediction(t *testing.T) {
	for _, fps := range []int{60, 144, 45} {
		cfg := DefaultConfig
		cfg.FPS, cfg.Smoothing, cfg.Sender = fps, Predicted, SenderAccumulator
		c := newClient(t, cfg, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{Throttle: 1} }))
		runFrames(c, sim.Time(500*ms))
		for range 3 * fps {
			y := c.Visible().Y
			runFrames(c, c.NextFrame())
			dt := c.Stats().Dt.Seconds()
			if d := c.Visible().Y - y; math.Abs(d-2*dt) > 1e-9 {
				t.Fatalf("%d fps: the visible pose moved %.6f m in %.6f s, want 2 m/s exactly", fps, d, dt)
			}
			// One unit (0.1 m) behind at most, and up to one fixed update
			// (0.04 m) ahead while a due unit waits for its fixed update.
			if lag := c.Predicted().Y - c.Visible().Y; lag < -0.04-1e-12 || lag > 0.1+1e-12 {
				t.Fatalf("%d fps: visible %.4f m behind the prediction, want within [−0.04, 0.1]", fps, lag)
			}
		}
		if c.Visible().X != 0 || c.Counters().Snaps != 0 {
			t.Fatalf("%d fps: visible %+v, snaps %d", fps, c.Visible(), c.Counters().Snaps)
		}
	}
}

// Issue 20 §3.1, §3.2: a correction moves the prediction at once and the
// visible pose not at all; the offset between them then decays as
// exp(−t/τ), τ = −(1/60 s)/ln(1 − α) = 102.6 ms at α 0.15, the same at
// 30, 60 and 144 fps; past client.snap it snaps.
func TestPredictedDecaysTheCorrectionWithATimeConstant(t *testing.T) {
	tau := -1 / (60 * math.Log(1-0.15))
	if got := SmoothingTau(0.15).Seconds(); math.Abs(got-tau) > 1e-9 || math.Abs(tau-0.1026) > 1e-4 {
		t.Fatalf("τ %v s, want %v ≈ 0.1026", got, tau)
	}
	for _, fps := range []int{30, 60, 144} {
		cfg := DefaultConfig
		cfg.FPS, cfg.Smoothing = fps, Predicted
		c := newClient(t, cfg, ScriptFunc(still))
		t0 := correct(t, c, sim.Time(200*ms), 1, 0.3)
		for c.LastFrame() < t0+sim.Time(time.Second) {
			runFrames(c, c.NextFrame())
			if c.Predicted().X != 0.3 {
				t.Fatalf("%d fps: prediction %v, want the corrected 0.3", fps, c.Predicted().X)
			}
			el := c.LastFrame().Sub(t0).Seconds()
			want := -0.3 * math.Exp(-el/tau)
			if got := c.Visible().X - 0.3; math.Abs(got-want) > 1e-12 {
				t.Fatalf("%d fps: offset %.9f m after %.4f s, want −0.3·exp(−t/τ) = %.9f", fps, got, el, want)
			}
		}
		if c.Counters().Snaps != 0 {
			t.Fatalf("%d fps: %d snaps", fps, c.Counters().Snaps)
		}
		// 0.6 m is past the 0.5 m threshold: the offset is dropped.
		correct(t, c, c.LastFrame(), 2, 0.9)
		runFrames(c, c.NextFrame())
		if c.Counters().Snaps != 1 || c.Visible().X != 0.9 {
			t.Fatalf("%d fps: snaps %d, visible %+v after a 0.6 m correction", fps, c.Counters().Snaps, c.Visible())
		}
	}
}

// Issue 20 §3.2: with client.alpha_per=60hz the lerp removes the same
// share of an error in the same time at 30, 60 and 144 fps; per frame (the
// reference) 144 fps smooths 2.4 times as fast.
func TestAlphaPer60HzSmoothsTheSameAtEveryFrameRate(t *testing.T) {
	left := func(fps int, per AlphaPer) float64 {
		cfg := DefaultConfig
		cfg.FPS, cfg.AlphaPer = fps, per
		c := newClient(t, cfg, ScriptFunc(still))
		t0 := correct(t, c, sim.Time(200*ms), 1, 0.4)
		for range fps / 6 { // 5, 10 and 24 frames: 1/6 s
			runFrames(c, c.NextFrame())
		}
		if el := c.LastFrame().Sub(t0); el < time.Second/6-1 || el > time.Second/6+1 {
			t.Fatalf("%d fps: last frame %v after the correction", fps, el)
		}
		return 0.4 - c.Visible().X
	}
	want := 0.4 * math.Pow(0.85, 10)
	for _, fps := range []int{30, 60, 144} {
		if got := left(fps, Per60Hz); math.Abs(got-want) > 1e-9 {
			t.Errorf("60hz at %d fps: %.9f m left after 1/6 s, want 0.4·0.85^10 = %.9f", fps, got, want)
		}
	}
	if f30, f144 := left(30, PerFrame), left(144, PerFrame); math.Abs(f30-0.4*math.Pow(0.85, 5)) > 1e-9 || math.Abs(f144-0.4*math.Pow(0.85, 24)) > 1e-9 {
		t.Errorf("per frame: %.6f m left at 30 fps, %.6f at 144, want 0.4·0.85^5 and 0.4·0.85^24", f30, f144)
	}
}

// Issue 20 §3.5: with client.input_delay=N an input sampled when tick k is
// sent goes out at once tagged k + N, and prediction applies it only when
// the client's tick reaches k + N.
func TestInputDelayTagsAndPredictsNTicksLater(t *testing.T) {
	press := sim.Time(time.Second)
	script := ScriptFunc(func(now sim.Time) motion.Input {
		if now >= press {
			return motion.Input{Throttle: 1}
		}
		return motion.Input{}
	})
	for _, n := range []InputDelay{0, 2, 3} {
		cfg := DefaultConfig
		cfg.Sender, cfg.InputDelay, cfg.Redundancy = SenderAccumulator, n, 2
		c := newClient(t, cfg, script)
		var pressed uint32 // the client tick at which the pressed input was sent
		for c.NextFrame() <= sim.Time(3*time.Second) {
			c.Frame(c.NextFrame())
			for _, m := range c.Outbox() {
				switch m.Kind {
				case MsgLogin:
					c.OnLoginAck(0)
				case MsgMoveInput:
					if m.Move.Tick != c.Tick()+uint32(n) {
						t.Fatalf("delay %d: tick %d sent tagged %d", n, c.Tick(), m.Move.Tick)
					}
					if m.Move.Input.Throttle == 1 && pressed == 0 {
						pressed = c.Tick()
					}
					// Redundancy repeats the inputs tagged before it.
					if m.Move.Redundant > 0 && m.Move.Tick > pressed+uint32(n) && pressed > 0 && m.Earlier[0].Throttle != 1 {
						t.Fatalf("delay %d: the earlier input of tag %d is %+v", n, m.Move.Tick, m.Earlier[0])
					}
				}
			}
			if moving := c.Predicted().Y > 0; moving != (pressed > 0 && c.Tick() >= pressed+uint32(n)) {
				// A unit may run in the frame the tick advances: allow the
				// unit to come after it, never before.
				if moving || c.Tick() > pressed+uint32(n) {
					t.Fatalf("delay %d: at tick %d (pressed at %d) prediction at %.3f m", n, c.Tick(), pressed, c.Predicted().Y)
				}
			}
		}
		if pressed == 0 || c.Predicted().Y == 0 {
			t.Fatalf("delay %d: the press never reached the prediction", n)
		}
		// Live and replayed poses agree: the steps tagged ahead have not
		// been predicted yet.
		if got := ReplayPending(motion.Pose{}, c.Pending(), Substep, cfg.Cadence, cfg.Tuning); got != c.Predicted() {
			t.Fatalf("delay %d: replay %+v, live %+v", n, got, c.Predicted())
		}
	}
	cfg := DefaultConfig
	c := newClient(t, cfg, script)
	runFrames(c, sim.Time(time.Second))
	cfg.InputDelay = 1
	if err := c.SetConfig(cfg); err == nil {
		t.Fatal("the input delay changed after the client had sent")
	}
}

// Issue 20 §2.5: client.dilation_law=unity is Unity Netcode for Entities'
// defaults: filter 1/8, gain 0.1 per tick, clamp ±10 %, less the ticks sent
// extra within the round trip.
func TestDilationUnityLaw(t *testing.T) {
	cfg := DefaultConfig
	cfg.Corrector, cfg.BufferTarget, cfg.Sender, cfg.Law = Dilation, 3, SenderAccumulator, LawUnity
	c := newClient(t, cfg, turning)
	runFrames(c, sim.Time(time.Second))
	state := func(tick uint32, depth int16, ack uint32) {
		c.OnPlayerState(proto.PlayerState{ServerTick: tick, BufferDepth: depth, HasDepth: true, AckTick: ack})
		runFrames(c, c.NextFrame())
	}
	const later = 1 << 20 // an ack beyond every send: no in-flight correction
	state(1, 3, later)
	if c.Dilation() != 1 {
		t.Fatalf("depth at the target: scale %v", c.Dilation())
	}
	// f = 3 + (2 − 3)/8 = 2.875: scale 1 + 0.1·0.125.
	state(2, 2, later)
	if got := c.Dilation(); math.Abs(got-1.0125) > 1e-12 {
		t.Fatalf("filtered depth 2.875 of 3: scale %v, want 1.0125", got)
	}
	for k := uint32(3); k < 40; k++ {
		state(k, -5, later)
	}
	if c.Dilation() != 1.1 || c.SendInterval() != 45454545 {
		t.Fatalf("depth −5 of 3: scale %v interval %v, want 1.1 (Unity's PredictionTimeScaleMax)", c.Dilation(), c.SendInterval())
	}
	// At 1.1 the last 20 sends took 20/1.1 base intervals: 1.82 ticks
	// extra that a depth reported for the input 20 sends back cannot show.
	runFrames(c, c.LastFrame()+sim.Time(2*time.Second))
	if got, want := c.inflight(c.Tick()-20), 20-20/1.1; math.Abs(got-want) > 1e-3 {
		t.Fatalf("in flight %v ticks, want %v", got, want)
	}
	if c.inflight(c.Tick()+1) != 0 || c.inflight(c.Tick()-sentRing) != 0 {
		t.Fatal("in flight for a tick not sent or out of the ring")
	}
}

// keep gives the formula's bits, (1 − α)^(60·dt) as Exp(60·dt·Log(1 − α)),
// whatever it remembers: frames of two alternating lengths, jittered
// lengths, a length seen three frames ago, an alpha changed between two
// frames of the same length, and the edges (dt ≤ 0, alpha 1).
func TestKeepIsTheFormula(t *testing.T) {
	var c Client
	c.cfg.Alpha = 0.15
	check := func(dt float64) {
		t.Helper()
		want := detmath.Exp(float64(60*dt) * detmath.Log(1-c.cfg.Alpha))
		if dt <= 0 {
			want = 1
		} else if c.cfg.Alpha >= 1 {
			want = 0
		}
		if got := c.keep(dt); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("keep(%v) at alpha %v = %v, want %v", dt, c.cfg.Alpha, got, want)
		}
	}
	a, b := 0.016666667, 0.016666666
	for _, dt := range []float64{a, a, b, a, a, b, 0.0069444, a, b} {
		check(dt)
	}
	for i := range 50 {
		check(0.016 + 0.0001*float64(i%7)) // jittered
	}
	c.cfg.Alpha = 0.3
	check(a)
	check(b)
	c.cfg.Alpha = 0.15
	check(b)
	check(0)
	check(-0.01)
	c.cfg.Alpha = 1
	check(a)
}
