package lab

import (
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	"jitterlab/server"
	"jitterlab/sim"
)

// Issue 11.1: on a lossy uplink, client.redundancy=3 lets a buffer server
// apply inputs whose packets were lost; the bigger packets reach the rate
// stage. (A queue holds no input ahead at this send rate: a lost tick's
// step passes on a guess before the next packet brings its copy.)
func TestRedundancyOnALossyUplink(t *testing.T) {
	base := []string{"up.latency=30ms", "up.loss=10%", "server.inputs=buffer", "client.sender=accumulator"}
	_, _, off := run(t, config(t, 30*time.Second, base...))
	_, _, on := run(t, config(t, 30*time.Second, append(base, "client.redundancy=3")...))
	if off.Recovered != 0 || on.Recovered == 0 {
		t.Fatalf("recovered %d off, %d on", off.Recovered, on.Recovered)
	}
	// Three losses in a row are rare at 10 %: nearly every loss is recovered.
	if on.Recovered*10 < on.Up.Lost*9 || on.Applied <= off.Applied {
		t.Fatalf("recovered %d of %d lost; applied %d with redundancy, %d without", on.Recovered, on.Up.Lost, on.Applied, off.Applied)
	}
	// Without copies every lost packet is a lost input (but the last ones,
	// after the newest tick received); with them nearly none is.
	if off.Lost+2 < off.Up.Lost || off.Lost > off.Up.Lost || on.Lost*10 > off.Lost || on.Lost+on.Recovered+2 < on.Up.Lost {
		t.Fatalf("inputs lost %d of %d packets lost without redundancy; %d lost, %d recovered of %d with", off.Lost, off.Up.Lost, on.Lost, on.Recovered, on.Up.Lost)
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
	"unacked":    {"client.redundancy=unacked", "server.inputs=buffer"},
	"auto":       {"server.inputs=buffer", "server.buffer_mode=auto", "client.corrector=dilation", "client.sender=accumulator"},
	"view":       {"view.interp=adaptive"},
	"catchup":    {"client.fps=20", "client.fixed_cost=15ms", "client.max_catchup=100ms"},
	"buffer":     {"server.inputs=buffer", "server.buffer=3", "client.corrector=dilation", "client.sender=accumulator"},
	// Issue 20.
	"predicted": {"client.smoothing=predicted", "client.fps=144"},
	"alpha_per": {"client.alpha_per=60hz", "client.fps=144"},
	"delay":     {"client.input_delay=2", "client.redundancy=3", "server.inputs=buffer", "client.sender=accumulator"},
	"unity":     {"server.inputs=buffer", "client.corrector=dilation", "client.dilation_law=unity", "client.sender=accumulator"},
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

// depthTrace runs cfg in server steps and returns the buffer depth after
// each step from `from` on, applying the changes first, and the server's
// counters at `from`.
func depthTrace(t *testing.T, cfg Config, from time.Duration, changes ...Change) ([]int, *Session, server.Counters) {
	t.Helper()
	s := scheduled(t, cfg, changes...)
	var depths []int
	var atFrom server.Counters
	for at := sim.Time(from); at <= sim.Time(cfg.Duration); at += sim.Time(cfg.Server.Tick) {
		if err := s.Run(at); err != nil {
			t.Fatal(err)
		}
		if at == sim.Time(from) {
			atFrom = s.sv.Counters()
		}
		depths = append(depths, int(s.sv.BufferDepth()))
	}
	return depths, s, atFrom
}

// scheduled is a session of cfg with the changes scheduled.
func scheduled(t *testing.T, cfg Config, changes ...Change) *Session {
	t.Helper()
	s, err := New(cfg, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if err := s.Schedule(c.At, c.Key, c.Value); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// Issue 11.2: on a link whose jitter makes latest-wins overwrite inputs, a
// buffer of D = 3 steps applies every input in order, at depth 3.
func TestBufferHoldsDepthDOnAJitteryLink(t *testing.T) {
	link := []string{"link.latency=50ms", "link.jitter=40ms", "client.sender=accumulator", "client.corrector=off", "sim.seed=3"}
	_, _, latest := run(t, config(t, 60*time.Second, link...))
	cfg := config(t, 60*time.Second, append(link, "server.inputs=buffer", "server.buffer=3")...)
	_, _, buf := run(t, cfg)
	if latest.Overwritten == 0 {
		t.Fatal("the link should make latest-wins overwrite inputs")
	}
	b := buf.Buffer
	// Every input applied, but the last D still in the buffer at the end.
	if b == nil || b.Underruns != 0 || buf.Overwritten != 0 || buf.LateDropped != 0 || buf.Applied+3 != buf.Arrived {
		t.Fatalf("buffer: %+v, applied %d of %d arrived", b, buf.Applied, buf.Arrived)
	}
	if math.Abs(float64(b.DepthMean)-3) > 0.5 || b.DepthMin < 1 || b.DepthMax > 5 {
		t.Fatalf("depth mean %.2f in [%d, %d], want 3 ± 0.5 and never empty", b.DepthMean, b.DepthMin, b.DepthMax)
	}
	depths, _, _ := depthTrace(t, cfg, 10*time.Second)
	if slices.Min(depths) < 1 || slices.Max(depths) > 5 {
		t.Fatalf("depth left [1, 5]: %v", depths)
	}
}

// Issue 11.2: time dilation brings the depth to the target from 0 and from
// 3·D and then holds it within ±1 tick: the stated bound (DilationGain's
// 2.5 s time constant is ten times the loop delay, so it does not
// overshoot; ±1 is the depth's quantisation with the arrival phase).
func TestDilationConvergesToTheTarget(t *testing.T) {
	const d = 3
	for _, start := range []int{0, 3 * d} {
		// The buffer anchors at the depth it starts with; the target then
		// moves to D, and only the client's dilation can move the depth.
		cfg := config(t, 40*time.Second, "link.latency=40ms", "link.jitter=10ms", "client.sender=accumulator",
			"server.inputs=buffer", "server.buffer="+strconv.Itoa(start), "client.corrector=dilation")
		change := Change{At: sim.Time(5 * time.Second), Key: "server.buffer", Value: strconv.Itoa(d)}
		depths, s, before := depthTrace(t, cfg, 5*time.Second, change)
		// From the change on (before it, a buffer of depth 0 resyncs on any
		// late input: 5 of 40 seeds do in the first 5 s at start 0).
		if c := s.sv.Counters(); c.Dropped != before.Dropped || c.Resyncs != before.Resyncs {
			t.Fatalf("start %d: the buffer dropped %d and resynced %d times after the target moved: the depth should move by dilation alone",
				start, c.Dropped-before.Dropped, c.Resyncs-before.Resyncs)
		}
		if depths[0] != start {
			t.Fatalf("start %d: depth %d when the target moves", start, depths[0])
		}
		reached := slices.Index(depths, d)
		if reached < 0 || time.Duration(reached)*cfg.Server.Tick > 20*time.Second {
			t.Fatalf("start %d: depth never reached %d within 20 s: %v", start, d, depths)
		}
		for i, x := range depths[reached:] {
			if x < d-1 || x > d+1 {
				t.Fatalf("start %d: depth %d at %v after reaching %d: %v", start, x, time.Duration(reached+i)*cfg.Server.Tick, d, depths[reached:])
			}
		}
		t.Logf("start %d: reached %d after %v", start, d, time.Duration(reached)*cfg.Server.Tick)
	}
}

// Issue 11.3: the death spiral in a session at 20 fps with fixed updates
// that cost 25 ms for 20 ms simulated, with and without the guard.
func TestMaxCatchupInASession(t *testing.T) {
	spiral := []string{"client.fps=20", "client.fixed_cost=25ms"}
	_, _, off := run(t, config(t, 30*time.Second, spiral...))
	_, _, on := run(t, config(t, 30*time.Second, append(spiral, "client.max_catchup=100ms")...))
	if off.Frames == nil || off.Frames.LongestFrameMs < 3000 || off.Frames.GameClockLagS != 0 {
		t.Fatalf("without the guard: %+v, want frames of seconds", off.Frames)
	}
	if on.Frames == nil || on.Frames.LongestFrameMs > 125 || on.Frames.MaxFixedPerFrame > 5 || on.Frames.GameClockLagS < 3 {
		t.Fatalf("with max_catchup=100ms: %+v, want frames ≤ 5 × 25 ms and the game clock running slow", on.Frames)
	}
	if on.MeanVisibleSpeedMPS <= off.MeanVisibleSpeedMPS {
		t.Fatalf("mean visible speed %.3f with the guard, %.3f without", on.MeanVisibleSpeedMPS, off.MeanVisibleSpeedMPS)
	}
	t.Logf("mean visible speed %.3f m/s with max_catchup=100ms, %.3f without", on.MeanVisibleSpeedMPS, off.MeanVisibleSpeedMPS)
	_, _, ref := run(t, config(t, 30*time.Second))
	if ref.Frames != nil {
		t.Fatal("the reference reports a frames section")
	}
}

// Issue 11.4: the remote player's view in a session.
func TestRemoteViewInASession(t *testing.T) {
	_, _, ref := run(t, config(t, 20*time.Second))
	if ref.View != nil {
		t.Fatal("the reference reports a remote view")
	}
	_, _, perfect := run(t, config(t, 20*time.Second, "view.interp=fixed"))
	v := perfect.View
	if v == nil || v.BehindServerMs.P50 != 100 || v.BehindServerMs.Max != 100 || v.JudderMPS > 1e-9 || v.ExtrapolatingS != 0 || v.FrozenS != 0 {
		t.Fatalf("perfect link: %+v, want exactly the 100 ms delay behind the server and no judder", v)
	}
	// 5 % downlink loss: 100 ms interpolates over single losses; 50 ms
	// extrapolates over each of them.
	lossy := []string{"down.latency=40ms", "down.loss=5%", "client.sender=accumulator", "server.inputs=queue", "view.interp=fixed"}
	_, _, at100 := run(t, config(t, 60*time.Second, lossy...))
	_, _, at50 := run(t, config(t, 60*time.Second, append(lossy, "view.interp_delay=50ms")...))
	if at100.View.FrozenS != 0 || at50.View.ExtrapolatingS <= 2*at100.View.ExtrapolatingS || at50.View.BehindServerMs.P50 >= at100.View.BehindServerMs.P50 {
		t.Fatalf("5 %% loss: 100 ms %+v; 50 ms %+v", at100.View, at50.View)
	}
	// Adaptive sizes the delay from the arrivals: more jitter, more delay.
	_, _, calm := run(t, config(t, 60*time.Second, "link.latency=40ms", "link.jitter=2ms", "view.interp=adaptive"))
	_, _, rough := run(t, config(t, 60*time.Second, "link.latency=40ms", "link.jitter=25ms", "view.interp=adaptive"))
	if calm.View.InterpDelayMs >= rough.View.InterpDelayMs || rough.View.FrozenS != 0 {
		t.Fatalf("adaptive: delay %.1f ms at ±2 ms, %.1f ms at ±25 ms (frozen %.1f s)", calm.View.InterpDelayMs, rough.View.InterpDelayMs, rough.View.FrozenS)
	}
	t.Logf("5%% loss: extrapolating %.2f s at 100 ms, %.2f s at 50 ms; adaptive delay %.1f / %.1f ms", at100.View.ExtrapolatingS, at50.View.ExtrapolatingS, calm.View.InterpDelayMs, rough.View.InterpDelayMs)
}

// Issue 20 §2.1: on a lossy uplink the buffer underruns, and with steady
// input the server's guess (the last input) is the client's input: the
// client has nothing to correct. Before the rule each underrun cost a
// 0.1 m correction and its return.
func TestBufferUnderrunGuessedRightCostsNoCorrection(t *testing.T) {
	for _, seed := range []string{"3", "4", "5"} {
		cfg := config(t, 60*time.Second, "link.latency=30ms", "up.loss=2%", "server.inputs=buffer",
			"client.sender=accumulator", "client.corrector=dilation", "sim.seed="+seed)
		_, _, sum := run(t, cfg)
		if sum.Buffer == nil || sum.Buffer.Underruns == 0 {
			t.Fatalf("seed %s: no underruns: %+v", seed, sum.Buffer)
		}
		if sum.CorrectionM.Max > 0.01 {
			t.Fatalf("seed %s: %d underruns and a correction of %.3f m: a right guess should cost none", seed, sum.Buffer.Underruns, sum.CorrectionM.Max)
		}
	}
}

// Issue 20 §3.4: a 300 ms blackout of the uplink loses 6 packets in a
// row, while a buffer of 8 steps (400 ms) still waits for their ticks.
// N = 4 repeats the 3 inputs before each packet and leaves 3 lost, which
// the buffer then guesses (underruns); unacked repeats every input since
// the last ack, so the first packet after the blackout brings all 6 in
// time.
func TestRedundancyUnackedFillsAGapLongerThanN(t *testing.T) {
	lost := func(redundancy string) Summary {
		cfg := config(t, 20*time.Second, "link.latency=30ms", "server.inputs=buffer", "server.buffer=8", "client.sender=accumulator",
			"client.redundancy="+redundancy)
		// Send times are on the client's 50 ms grid from its seeded start:
		// the window 10.000–10.300 s covers 6 of them.
		s := scheduled(t, cfg, Change{At: sim.Time(10 * time.Second), Key: "up.blackout", Value: "true"},
			Change{At: sim.Time(10300 * time.Millisecond), Key: "up.blackout", Value: "false"})
		if err := s.Run(sim.Time(cfg.Duration)); err != nil {
			t.Fatal(err)
		}
		return s.Summary()
	}
	four, unacked := lost("4"), lost("unacked")
	if four.Up.Lost != 6 || unacked.Up.Lost != 6 {
		t.Fatalf("the blackout lost %d and %d packets, want 6", four.Up.Lost, unacked.Up.Lost)
	}
	if four.Lost != 3 || four.Recovered != 3 || unacked.Lost != 0 || unacked.Recovered != 6 {
		t.Fatalf("N = 4: %d lost, %d recovered; unacked: %d lost, %d recovered; want 3 + 3 and 0 + 6", four.Lost, four.Recovered, unacked.Lost, unacked.Recovered)
	}
	if four.Buffer.Underruns != 3 || unacked.Buffer.Underruns != 0 {
		t.Fatalf("underruns %d with N = 4, %d with unacked; want 3 and 0", four.Buffer.Underruns, unacked.Buffer.Underruns)
	}
}

// Issue 20 §3.3: server.buffer_mode = auto raises the depth target while
// the uplink jitters (±60 ms: arrivals up to 120 ms apart, 2–3 steps) and
// brings it back to 0 once the jitter has left its 10 s window; time
// dilation moves the depth after it.
func TestAutoBufferFollowsTheJitterAndShrinksBack(t *testing.T) {
	cfg := config(t, 60*time.Second, "link.latency=40ms", "server.inputs=buffer", "server.buffer_mode=auto",
		"client.sender=accumulator", "client.corrector=dilation")
	s := scheduled(t, cfg, Change{At: sim.Time(15 * time.Second), Key: "up.jitter", Value: "60ms"},
		Change{At: sim.Time(30 * time.Second), Key: "up.jitter", Value: "0"})
	at := func(d time.Duration) (target, depth int) {
		if err := s.Run(sim.Time(d)); err != nil {
			t.Fatal(err)
		}
		return s.sv.BufferTarget(), int(s.sv.BufferDepth())
	}
	if target, depth := at(14 * time.Second); target != 0 || depth > 1 {
		t.Fatalf("steady link: target %d depth %d, want target 0 and depth ≤ 1", target, depth)
	}
	if target, depth := at(29 * time.Second); target < 2 || target > 3 || depth < target-1 {
		t.Fatalf("jittery link: target %d depth %d, want a target of 2–3 steps and the depth following it", target, depth)
	}
	if target, depth := at(59 * time.Second); target != 0 || depth > 1 {
		t.Fatalf("after the jitter: target %d depth %d, want both back near 0", target, depth)
	}
}
