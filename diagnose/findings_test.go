package diagnose

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"jitterlab/batch"
	"jitterlab/client"
	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/motion"
	"jitterlab/sim"
	"jitterlab/stats"
)

// Each rule states a mechanism; these tests prove the mechanism in the
// model, not only that the rule fires.

func session(t *testing.T, cfg lab.Config, onSample func(*metrics.Sample)) lab.Summary {
	t.Helper()
	s, err := lab.New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.OnSample = onSample
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	return s.Summary()
}

func configOf(t *testing.T, sets ...string) lab.Config {
	t.Helper()
	cfg := lab.DefaultConfig()
	for _, a := range sets {
		k, v, _ := lab.ParseAssignment(a)
		if err := lab.Set(&cfg, k, v); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

// The frame sender sends every ⌊iv·fps⌋+1 frames, and the model does: on a
// perfect link with the corrector off, 0.050 s at 60 fps is 15 Hz, 0.048 s
// is 20 Hz, 0.052 s is 15 Hz, and 0.050 s at 50 fps is 3 frames = 16.7 Hz.
func TestFramesPerSendIsWhatTheModelSends(t *testing.T) {
	for _, c := range []struct {
		iv   time.Duration
		fps  int
		want int64
	}{{50 * time.Millisecond, 60, 4}, {48 * time.Millisecond, 60, 3}, {52 * time.Millisecond, 60, 4}, {50 * time.Millisecond, 50, 3}} {
		if got := FramesPerSend(c.iv, c.fps); got != c.want {
			t.Errorf("FramesPerSend(%v, %d) = %d, want %d", c.iv, c.fps, got, c.want)
		}
		cfg := configOf(t, "client.corrector=off", "client.send_interval="+c.iv.String(), "client.fps="+strconv.Itoa(c.fps), "client.start=0")
		cfg.Duration = time.Minute
		sum := session(t, cfg, nil)
		hz := float64(c.fps) / float64(c.want)
		// Sending starts at login (a round trip and a frame after the start).
		if got := float64(sum.InputsSent) / 60; math.Abs(got-hz) > 0.05 {
			t.Errorf("%v at %d fps: the model sends %.3f Hz, the rule says %.3f", c.iv, c.fps, got, hz)
		}
	}
}

// Latest-wins: every overwritten input's motion is lost, so the visible
// speed is the commanded speed times the share of arrived inputs applied;
// with the queue server nothing is overwritten and the deficit is gone.
func TestOverwriteCostsExactlyTheOverwrittenShare(t *testing.T) {
	o := options(t, "jitter-fix")
	var most float64
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		cfg := o.Base
		cfg.Seed = seed
		sum := session(t, cfg, nil)
		share := float64(sum.Overwritten) / float64(sum.Arrived)
		most = max(most, share)
		want := sum.CommandedSpeedMPS * (1 - share)
		if math.Abs(sum.MeanVisibleSpeedMPS-want) > 0.03 {
			t.Errorf("seed %d: visible %.3f m/s, commanded × applied share %.3f", seed, sum.MeanVisibleSpeedMPS, want)
		}
		if err := lab.Set(&cfg, "server.inputs", "queue"); err != nil {
			t.Fatal(err)
		}
		q := session(t, cfg, nil)
		if q.Overwritten != 0 || math.Abs(q.Card.ProgressDeficitMPS) > 0.01 {
			t.Errorf("seed %d, queue: %d overwritten, deficit %.4f m/s", seed, q.Overwritten, q.Card.ProgressDeficitMPS)
		}
	}
	if most < 0.1 {
		t.Errorf("at most %.3f overwritten: the test shows nothing", most)
	}
}

// The 0.048 s latch at 60 fps is one send per 3 frames = 20 Hz, the
// server's rate: once the offset is above the band it stays there; the
// accumulator sender (0.048 s exactly, 20.8 Hz) brings it back.
func TestLatchAtTickRateNeverReturnsIntoTheBand(t *testing.T) {
	for _, sender := range []string{"frame", "accumulator"} {
		cfg := configOf(t, "client.sender="+sender)
		cfg.Duration = time.Minute
		var above, after int
		sum := session(t, cfg, func(x *metrics.Sample) {
			if x.TS >= 10 {
				after++
				if x.TickOffset > cfg.Client.Band {
					above++
				}
			}
		})
		switch sender {
		case "frame":
			if above != after || sum.TimeFastS < 0.95*sum.SimS {
				t.Errorf("frame sender: offset above the band in %d of %d samples, fast %.1f s", above, after, sum.TimeFastS)
			}
		case "accumulator":
			if above != 0 || sum.FinalOffset > cfg.Client.Band {
				t.Errorf("accumulator: offset above the band in %d samples, final %d", above, sum.FinalOffset)
			}
		}
	}
}

// A slow client clock: the frame sender's fastest rate in true time is
// fps/m·(1+drift); the offset grows by the rate difference every second
// (the rule's prediction), and the accumulator keeps it bounded.
func TestSlowClockOffsetGrowsAtTheRateDifference(t *testing.T) {
	cfg := configOf(t, "client.drift_ppm=-5000ppm")
	cfg.Duration = 5 * time.Minute
	var at60 int
	sum := session(t, cfg, func(x *metrics.Sample) {
		if math.Abs(x.TS-60) < 1e-6 {
			at60 = x.TickOffset
		}
	})
	_, clientHz, serverHz := senderRates(&cfg)
	want := (serverHz - clientHz) * 240
	if got := float64(sum.FinalOffset - at60); math.Abs(got-want) > 1.5 {
		t.Errorf("offset grew %+.0f from 60 s to 300 s, the rates predict %+.1f", got, want)
	}
	if err := lab.Set(&cfg, "client.sender", "accumulator"); err != nil {
		t.Fatal(err)
	}
	if acc := session(t, cfg, nil); acc.FinalOffset > cfg.Client.Band {
		t.Errorf("accumulator: final offset %d", acc.FinalOffset)
	}
}

// Replay in substeps equals one integration of the whole step when the
// step is a whole number of units and the input does not turn; a turn or a
// 120 ms step tells them apart, and then the rule does not fire.
func TestSubstepsEqualOneStepOnlyForWholeUnitsWithoutTurning(t *testing.T) {
	k := motion.DefaultTuning
	unit := 50 * time.Millisecond
	replay := func(in motion.Input, d time.Duration) (motion.Pose, motion.Pose) {
		steps := []client.PredictedMoveStep{{Tick: 1, Input: in, Duration: d}, {Tick: 2, Input: in, Duration: 2 * unit}}
		base := motion.Pose{X: 1, Y: 2, Rot: 30}
		return client.ReplayPending(base, steps, client.Substep, unit, k), client.ReplayPending(base, steps, client.Single, unit, k)
	}
	sub, one := replay(motion.Input{Throttle: 1}, 3*unit)
	if motion.Distance(sub, one) > 1e-12 || sub.Rot != one.Rot {
		t.Errorf("straight, whole units: %+v vs %+v", sub, one)
	}
	if sub, one := replay(motion.Input{Throttle: 1, Turn: 0.5}, 3*unit); motion.Distance(sub, one) < 1e-6 {
		t.Errorf("turning: substeps and one step agree: %+v", sub)
	}
	o := options(t, "jitter-fix", "input.script=zigzag")
	o.Seeds, o.Base.Duration = o.Seeds[:3], 20*time.Second
	r := run(t, o)
	if f, ok := finding(r, "substep-changes-nothing"); ok {
		t.Errorf("the rule fires on a turning script: %s", f.Text)
	}
	o = options(t, "jitter-fix")
	o.Seeds, o.Base.Duration = o.Seeds[:3], 20*time.Second
	if _, ok := finding(run(t, o), "substep-changes-nothing"); !ok {
		t.Error("the rule does not fire on the steady script")
	}
}

func TestTracerFromTheFirstQuarter(t *testing.T) {
	tr := tracer{from: 10, band: 2}
	for i, off := range []int{9, 9, 3, 2, 3, 5} { // at 0, 5, 10, 15, 20, 25 s
		tr.sample(&metrics.Sample{TS: float64(5 * i), TickOffset: off})
	}
	got := tr.trace()
	if got.AboveBand != 75 || got.OffsetSlope != 2.0/15 {
		t.Errorf("%+v, want 75 %% above the band and a slope of 2/15 per second", got)
	}
}

// The slow sender's cause is named by what causes it: the frame rate's
// quantisation (30 fps), the client's slow clock, the server's fast one;
// never "the client clock runs slower" for a server that drifts.
func TestSlowSenderNamesItsCause(t *testing.T) {
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"client.fps=30"}, "the frame rate quantises the sends: at 30 fps a 48 ms interval needs 2 frames (66.7 ms), 15.00 Hz against the server's 20 Hz"},
		{[]string{"client.drift_ppm=-5000ppm"}, "the client clock runs 0.50 % slow"},
		{[]string{"server.drift_ppm=5000ppm"}, "the server clock runs 0.50 % fast"},
	} {
		o := options(t, "", c.sets...)
		o.Seeds, o.Base.Duration = o.Seeds[:4], time.Minute
		o.Offsets, o.Inputs = []time.Duration{0}, []string{"steady"}
		r := run(t, o)
		f, ok := finding(r, "frame-sender-slow-clock")
		if !ok || !strings.HasPrefix(f.Text, c.want+": the frame sender cannot send faster") {
			t.Errorf("%v: finding %q, want it to start %q", c.sets, f.Text, c.want)
		}
		if strings.Contains(f.Text, "client clock") != strings.Contains(c.want, "client clock") {
			t.Errorf("%v: names the client clock: %q", c.sets, f.Text)
		}
	}
}

// A fixed update that costs more CPU time than the game time it simulates
// (client.fixed_cost 25 ms against client.fixed_dt 20 ms) delays every
// frame a little more: the frames stretch, the frame sender sends once a
// frame, and the offset grows far faster than the frame rate's
// quantisation predicts (+17.6 ticks/s against +5 at 30 fps). The cost is
// a condition removed in turn (client.fixed_cost=0) and a finding of its
// own; the slow sender says how much of the growth its rates leave
// unexplained rather than claim all of it.
func TestFixedCostIsAConditionAndTheSlowSenderSaysWhatItLeaves(t *testing.T) {
	o := options(t, "", "client.fps=30", "client.fixed_cost=25ms", "client.max_catchup=333ms", "link.latency=50ms")
	o.Seeds, o.Base.Duration = o.Seeds[:4], 30*time.Second
	o.Offsets, o.Inputs = []time.Duration{0}, []string{"steady"}
	r := run(t, o)
	i := slices.IndexFunc(r.Attribution, func(a Attribution) bool { return slices.Equal(a.Sets, []string{"client.fixed_cost=0"}) })
	if i < 0 {
		t.Fatalf("no removal of the fixed updates' cost: %+v", r.Attribution)
	}
	if a := r.Attribution[i]; !a.TieBreak.Significant || a.TieBreak.Mean > -1 {
		t.Errorf("without the cost the progress deficit: %v, want over 1 m/s less", a.TieBreak)
	}
	f, ok := finding(r, "fixed-cost")
	if !ok || !strings.Contains(f.Text, "client.fixed_cost") || !strings.Contains(f.Text, "behind true time") {
		t.Errorf("fixed-cost finding %v: %q", ok, f.Text)
	}
	s, ok := finding(r, "frame-sender-slow-clock")
	if !ok || !strings.Contains(s.Text, "the rates predict +5.000") || !strings.Contains(s.Text, "not explained by this rule") {
		t.Errorf("slow sender %v: %q", ok, s.Text)
	}
	// A slow sender whose offset grows as its rates predict says nothing
	// is left.
	o = options(t, "", "client.fps=30")
	o.Seeds, o.Base.Duration = o.Seeds[:4], 30*time.Second
	o.Offsets, o.Inputs = []time.Duration{0}, []string{"steady"}
	if s, ok := finding(run(t, o), "frame-sender-slow-clock"); !ok || strings.Contains(s.Text, "not explained") {
		t.Errorf("slow sender at 30 fps %v: %q", ok, s.Text)
	}
}

// Loss is named by direction and by what redundancy does with the server
// in force: a latest-wins server applies no redundant copy; a queue's fix
// is redundancy; the downlink's loss is corrections the client never got.
func TestLossNamedByDirectionAndRedundancy(t *testing.T) {
	for _, c := range []struct {
		sets       []string
		rule, want string
		fix        string
	}{
		{[]string{"up.loss=10%"}, "uplink-loss", "the tank stops for it; redundant inputs would carry it again, but a latest-wins server applies one input per step whatever arrives", ""},
		{[]string{"up.loss=10%", "server.inputs=queue"}, "uplink-loss", "the server applies its last input again for that step, so the tank moves on as before and differs only where the input changed; with client.redundancy=2 the next packet carries it again", "client.redundancy=2"},
		{[]string{"up.loss=10%", "client.redundancy=2"}, "uplink-loss", "with client.redundancy=2 the next packet carries the lost inputs again", ""},
		{[]string{"down.loss=10%"}, "downlink-loss", "of the server's PlayerStates: the client predicts on without a correction", ""},
	} {
		o := options(t, "", append([]string{"link.latency=40ms"}, c.sets...)...)
		o.Seeds, o.Base.Duration = o.Seeds[:5], time.Minute
		o.Offsets, o.Inputs = []time.Duration{0}, []string{"steady"}
		r := run(t, o)
		f, ok := finding(r, c.rule)
		if !ok || !strings.Contains(f.Text, c.want) || f.Fix != c.fix {
			t.Errorf("%v: %s %v: %q (change %q), want %q (change %q)", c.sets, c.rule, ok, f.Text, f.Fix, c.want, c.fix)
		}
		if other := map[string]string{"uplink-loss": "downlink-loss", "downlink-loss": "uplink-loss"}[c.rule]; func() bool { _, ok := finding(r, other); return ok }() {
			t.Errorf("%v: names %s too", c.sets, other)
		}
	}
}

// The lerp's constant is per frame: at 30 fps alpha 0.15 is a time
// constant of −1/(30·ln 0.85) = 205 ms against 103 ms at 60 fps, and
// 1 − 0.85² = 0.2775 per frame keeps 103 ms. The finding says so and its
// change is that alpha.
func TestSmoothingPerFrameNamesTheTimeConstant(t *testing.T) {
	if got := SameSmoothing(0.15, 30); math.Abs(got-0.2775) > 1e-12 {
		t.Errorf("SameSmoothing(0.15, 30) = %v, want 0.2775", got)
	}
	if got := smoothingTimeMs(0.15, 60); math.Abs(got-102.55) > 0.01 {
		t.Errorf("time constant at 60 fps %v ms, want 102.55", got)
	}
	o := options(t, "", "client.fps=30")
	o.Seeds, o.Base.Duration = o.Seeds[:4], 30*time.Second
	o.Offsets, o.Inputs = []time.Duration{0}, []string{"steady"}
	r := run(t, o)
	f, ok := finding(r, "smoothing-per-frame")
	if !ok || f.Fix != "client.alpha=0.278" || !strings.Contains(f.Text, "a time constant of 205 ms at 30 fps against 103 ms at the 60 fps it is tuned at") {
		t.Errorf("finding %v: %q (change %q)", ok, f.Text, f.Fix)
	}
	if _, ok := finding(run(t, func() Options {
		o := options(t, "")
		o.Seeds, o.Base.Duration = o.Seeds[:2], 10*time.Second
		o.Offsets, o.Inputs = []time.Duration{0}, []string{"steady"}
		return o
	}()), "smoothing-per-frame"); ok {
		t.Error("at the tuned 60 fps the smoothing is named")
	}
}

// Findings rank the problems first, then the mechanisms with a measured
// effect (jitter-fix at 30 fps: the frame rate's quantisation, whose
// change takes 0.094 m/s off the progress deficit and adds judder), and
// only then what changes nothing here (replay substeps, +0.000 ± 0.000):
// that one ranked first there, above every mechanism with an effect,
// because a cost of zero is more than a negative one.
func TestFindingsThatChangeNothingRankLast(t *testing.T) {
	diff := func(mean, half float64) stats.Diff { return knownDiff(20, mean, half) }
	fs := []Finding{
		{Rule: "substeps", Cost: diff(0, 0), FixTie: diff(0, 0)},
		{Rule: "latest-wins-overwrite", Cost: diff(-0.009, 0.004), FixTie: diff(-0.039, 0.002)},
		{Rule: "frame-sender-slow-clock", Cost: diff(-0.032, 0.016), FixTie: diff(-0.094, 0.067)},
		{Rule: "problem", Problem: true, Cost: diff(0.05, 0.01)},
	}
	rank(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule)
	}
	want := []string{"problem", "latest-wins-overwrite", "frame-sender-slow-clock", "substeps"}
	if !slices.Equal(got, want) {
		t.Errorf("ranked %v, want %v", got, want)
	}
}

// The presentation rule's mechanism: a lerp chasing a prediction that
// moves in steps pulses with them. On jitter-fix's latency without jitter
// and with nothing to correct (the queue server, the prediction consuming
// its inputs, the accumulator sender), at 10 fps every frame sees the
// prediction move two 50 ms steps and the lerp is nearly smooth; at
// 60 fps it moves every third frame, the lerp chases a pose that stands
// still for two frames and jumps, and it judders; drawing the prediction
// moved on between its steps is smooth, with the same game underneath.
func TestLerpJudderComesFromThePredictionsSteps(t *testing.T) {
	run := func(fps, smoothing string) lab.Summary {
		cfg := configOf(t, "link.latency=50ms", "client.fixed_dt=50ms", "client.fps="+fps, "server.inputs=queue",
			"client.predict=consume", "client.sender=accumulator", "client.smoothing="+smoothing)
		cfg.Duration = time.Minute
		return session(t, cfg, nil)
	}
	everyFrame, everyThird, drawn := run("10", "lerp"), run("60", "lerp"), run("60", "predicted")
	for _, s := range []lab.Summary{everyFrame, everyThird, drawn} {
		if n := s.Card.CorrectionsSmallPerMin + s.Card.CorrectionsMediumPerMin + s.Card.CorrectionsLargePerMin; n != 0 {
			t.Fatalf("%v corrections a minute, want none: the case must have nothing to correct", n)
		}
	}
	if everyThird.JudderMPS < 0.2 || everyFrame.JudderMPS > everyThird.JudderMPS/4 {
		t.Errorf("lerp judder %.3f m/s with a step every third frame, %.3f with two steps every frame: want above 0.2, "+
			"and at most a quarter of it", everyThird.JudderMPS, everyFrame.JudderMPS)
	}
	if drawn.JudderMPS > 0.001 {
		t.Errorf("the prediction drawn between its steps: judder %.3f m/s, want 0", drawn.JudderMPS)
	}
	if underneathOf(&everyThird) != underneathOf(&drawn) {
		t.Errorf("the smoothing changed the game underneath: %+v against %+v", underneathOf(&everyThird), underneathOf(&drawn))
	}
}

// The presentation rule names its mechanism only when the counterfactual
// confirms it: the run drawing the prediction must be the same game
// underneath on every seed. One seed whose server overwrote one more
// input (the smoothing reached the game) and the rule names nothing; a
// base that draws the prediction already has no such change to try.
func TestPresentationNamedOnlyWhenTheGameUnderneathIsTheSame(t *testing.T) {
	judder, _ := LookupMetric("judder_mps")
	d := &diag{o: options(t, ""), primary: judder}
	runs := []lab.Summary{{Seed: 1, Overwritten: 10}, {Seed: 2, Overwritten: 12}}
	card := func(judders ...float64) []batch.MetricStat {
		return []batch.MetricStat{{Name: "judder_mps", Mean: stats.Mean(judders), PerSeed: judders}}
	}
	ref := &Arm{Runs: runs, Card: card(0.50, 0.51)}
	drawn := &Arm{Runs: slices.Clone(runs), Card: card(0.30, 0.30)}
	r := &Result{Reference: ref, Changes: []Change{{Set: drawPrediction, arm: drawn}}}
	if f, ok := presentationRule(d, r); !ok || !strings.Contains(f.Text, "the same game underneath on 2 of 2 seeds") {
		t.Errorf("the same game underneath: named %v, %q", ok, f.Text)
	}
	drawn.Runs[1].Overwritten++
	if f, ok := presentationRule(d, r); ok {
		t.Errorf("one seed's server differs, yet the rule names the presentation: %q", f.Text)
	}
	drawn.Runs[1].Overwritten--
	d.o.Base.Client.Smoothing = client.Predicted
	if f, ok := presentationRule(d, r); ok {
		t.Errorf("a base that draws the prediction: %q", f.Text)
	}
}

// The predict-latest rule's mechanism: with a server that applies every
// input once, in order (queue), a client predicting each step with the
// latest input it sent is corrected on jitter-fix's link (on the seeds
// whose phase makes its latest input differ from the step's), and the
// same runs predicting with the next input not yet predicted are never
// corrected: what the server corrects is the prediction's choice of
// input.
func TestPredictingWithTheLatestInputIsWhatTheServerCorrects(t *testing.T) {
	o := options(t, "jitter-fix")
	corrected := 0
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		run := func(predict string) lab.Summary {
			cfg := o.Base
			cfg.Seed, cfg.Duration = seed, time.Minute
			for _, a := range []string{"server.inputs=queue", "client.predict=" + predict} {
				k, v, _ := lab.ParseAssignment(a)
				if err := lab.Set(&cfg, k, v); err != nil {
					t.Fatal(err)
				}
			}
			return session(t, cfg, nil)
		}
		latest, consume := run("attribute"), run("consume")
		if correctionsPerMin(&latest) >= 10*correctionFloor() {
			corrected++
		}
		if n := correctionsPerMin(&consume); n != 0 {
			t.Errorf("seed %d: predicting with the next input, %.1f corrections a minute; want none", seed, n)
		}
	}
	t.Logf("%d of 8 seeds corrected", corrected)
	if corrected < 4 {
		t.Errorf("predicting with the latest input: %d of 8 seeds corrected %v times a minute or more; want most", corrected, 10*correctionFloor())
	}
}

// The rule names the mechanism only when predicting with the next input
// lowers the corrections significantly.
func TestPredictLatestNamedOnlyWhenConsumeLowersTheCorrections(t *testing.T) {
	d := &diag{o: options(t, "")}
	mk := func(perMin ...float64) *Arm {
		a := &Arm{}
		for i, n := range perMin {
			s := lab.Summary{Seed: uint64(i + 1)}
			s.Card.CorrectionsMediumPerMin = n
			a.Runs = append(a.Runs, s)
		}
		return a
	}
	ref := mk(500, 520, 480, 510, 490)
	r := &Result{Reference: ref, Changes: []Change{{Set: consumeChange, arm: mk(250, 260, 240, 255, 245)}}}
	if f, ok := predictLatestRule(d, r); !ok || !strings.Contains(f.Text, "500.0 ± ") {
		t.Errorf("corrections halved: named %v, %q", ok, f.Text)
	}
	r.Changes[0].arm = mk(500, 521, 479, 511, 489)
	if f, ok := predictLatestRule(d, r); ok {
		t.Errorf("corrections unchanged, yet named: %q", f.Text)
	}
	r.Reference, r.Changes[0].arm = mk(1, 0, 2, 1, 0), mk(0, 0, 0, 0, 0)
	if f, ok := predictLatestRule(d, r); ok {
		t.Errorf("a correction a minute, yet named: %q", f.Text)
	}
}

// The prediction moves in steps of the server's tick (lab.Config hands
// server.tick to the client as its cadence), so the findings that name
// the step name server.tick, not the client's own default of 50 ms: on a
// 33 ms server the presentation's lerp chases 33 ms steps and the
// prediction is corrected per 33 ms step.
func TestFindingsNameTheServerTickAsThePredictionStep(t *testing.T) {
	judder, _ := LookupMetric("judder_mps")
	d := &diag{o: options(t, "", "server.tick=33ms"), primary: judder}
	mk := func(judders, perMin []float64) *Arm {
		a := &Arm{}
		for i := range judders {
			s := lab.Summary{Seed: uint64(i + 1)}
			s.Card.CorrectionsMediumPerMin = perMin[i]
			a.Runs = append(a.Runs, s)
		}
		a.Card = []batch.MetricStat{{Name: "judder_mps", Mean: stats.Mean(judders), PerSeed: judders}}
		return a
	}
	ref := mk([]float64{0.50, 0.52, 0.48, 0.51, 0.49}, []float64{500, 520, 480, 510, 490})
	drawn := mk([]float64{0.30, 0.31, 0.29, 0.30, 0.30}, []float64{500, 520, 480, 510, 490})
	consume := mk([]float64{0.40, 0.41, 0.39, 0.40, 0.40}, []float64{250, 260, 240, 255, 245})
	r := &Result{Reference: ref, Changes: []Change{{Set: drawPrediction, arm: drawn}, {Set: consumeChange, arm: consume}}}
	f, ok := presentationRule(d, r)
	if !ok || !strings.Contains(f.Text, "moves only in 33 ms steps") {
		t.Errorf("presentation on a 33 ms server: named %v, %q; want the 33 ms steps", ok, f.Text)
	}
	f, ok = predictLatestRule(d, r)
	if !ok || !strings.Contains(f.Text, "predicts each 33 ms step") {
		t.Errorf("predict-latest on a 33 ms server: named %v, %q; want each 33 ms step", ok, f.Text)
	}
}

// The presentation rule says the lerp's chase makes the drawn speed
// pulse; the counterfactual confirms it only when drawing the prediction,
// the same game underneath, has significantly less judder. At 30 fps on a
// 33 ms server drawing the prediction judders more (0.18 → 0.30 m/s):
// the rule must not name a mechanism its counterfactual contradicts, nor
// one it does not show (the same judder).
func TestPresentationNamedOnlyWhenDrawingThePredictionJuddersLess(t *testing.T) {
	judder, _ := LookupMetric("judder_mps")
	d := &diag{o: options(t, ""), primary: judder}
	mk := func(judders ...float64) *Arm {
		a := &Arm{}
		for i := range judders {
			a.Runs = append(a.Runs, lab.Summary{Seed: uint64(i + 1)})
		}
		a.Card = []batch.MetricStat{{Name: "judder_mps", Mean: stats.Mean(judders), PerSeed: judders}}
		return a
	}
	ref := mk(0.18, 0.17, 0.19, 0.18, 0.18)
	for _, c := range []struct {
		name  string
		drawn *Arm
		want  bool
	}{
		{"less judder", mk(0.10, 0.09, 0.11, 0.10, 0.10), true},
		{"more judder", mk(0.30, 0.29, 0.31, 0.30, 0.30), false},
		{"the same judder", mk(0.18, 0.17, 0.19, 0.18, 0.18), false},
	} {
		r := &Result{Reference: ref, Changes: []Change{{Set: drawPrediction, arm: c.drawn}}}
		if f, ok := presentationRule(d, r); ok != c.want {
			t.Errorf("%s when drawn: named %v (%q), want %v", c.name, ok, f.Text, c.want)
		}
	}
}

// A send interval longer than the server's tick is a slow sender at any
// frame rate: 48 ms against a 33 ms tick is 20.8 Hz against 30.3 Hz, and
// 48 ms against 16 ms is 20.8 against 62.5. The cause is the interval,
// not the frame rate's quantisation (at 60 fps 48 ms needs 3 frames,
// 50 ms: 2 ms more than the interval, while the tick is 15 ms shorter);
// and the accumulator, which sends once per interval, cannot keep pace
// either, so the finding must not leave its change as the fix.
func TestSlowSenderNamesAnIntervalLongerThanTheTick(t *testing.T) {
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"server.tick=33ms"}, "the send interval is longer than the server's tick: at its fastest, 48 ms, " +
			"it is 20.83 Hz against the server's 30.30 Hz (server.tick=33ms)"},
		{[]string{"server.tick=16ms", "client.fps=144"}, "the send interval is longer than the server's tick: at its fastest, 48 ms, " +
			"it is 20.83 Hz against the server's 62.50 Hz (server.tick=16ms)"},
		{[]string{"server.tick=33ms", "client.corrector=off"}, "the send interval is longer than the server's tick: at its fastest, 50 ms, " +
			"it is 20.00 Hz against the server's 30.30 Hz (server.tick=33ms)"},
		{[]string{"server.tick=33ms", "client.fps=30"}, "the send interval is longer than the server's tick: at its fastest, 48 ms, " +
			"it is 20.83 Hz against the server's 30.30 Hz (server.tick=33ms)"},
	} {
		cfg := configOf(t, c.sets...)
		if got := SlowSenderCause(&cfg); !strings.HasPrefix(got, c.want) || strings.Contains(got, "quantises") {
			t.Errorf("%v: cause %q, want it to start %q and not blame the frame rate", c.sets, got, c.want)
		}
		d := &diag{o: options(t, "", c.sets...)}
		runs := []lab.Summary{{Seed: 1, FinalOffset: 900}, {Seed: 2, FinalOffset: 910}, {Seed: 3, FinalOffset: 905}}
		traces := []Trace{{OffsetSlope: 15.3}, {OffsetSlope: 15.4}, {OffsetSlope: 15.3}}
		r := &Result{Reference: &Arm{Runs: runs, Traces: traces}}
		f, ok := slowClockRule(d, r)
		if !ok || !strings.Contains(f.Text, "the accumulator cannot keep pace either: it sends at most once per") {
			t.Errorf("%v: named %v, %q; want it to say the accumulator cannot keep pace", c.sets, ok, f.Text)
		}
		// Its change sends at the tick rate instead.
		if want := "client.send_interval=" + cfg.Server.Tick.String() + ","; !strings.HasPrefix(f.Fix, want) {
			t.Errorf("%v: the finding's change is %q, want the tick rate's (%s…)", c.sets, f.Fix, want)
		}
		// At 30 fps one send a frame is 30 Hz, short of a 33 ms tick's 30.3.
		if frames := strings.Contains(f.Text, "at most once a frame (30.000 Hz of true time at 30 fps)"); frames != (cfg.Client.FPS == 30) {
			t.Errorf("%v: names the frame rate's limit %v: %q", c.sets, frames, f.Text)
		}
	}
}

// Frame jitter (or a clock's wander) varies the frame sender's rate about
// its nominal value; it does not remove a sender that is slower than the
// ticks. At 30 fps with 10 ms of frame jitter on a 33 ms server the
// nominal 15 Hz against 30.3 Hz and an offset measured to grow name the
// slow sender; a sender whose nominal rate keeps pace is not named for a
// growing offset (another mechanism's), jitter or not.
func TestSlowSenderNamedThroughFrameJitter(t *testing.T) {
	runs := []lab.Summary{{Seed: 1, FinalOffset: 900}, {Seed: 2, FinalOffset: 910}, {Seed: 3, FinalOffset: 905}}
	traces := []Trace{{OffsetSlope: 15.3}, {OffsetSlope: 15.4}, {OffsetSlope: 15.3}}
	r := &Result{Reference: &Arm{Runs: runs, Traces: traces}}
	for _, c := range []struct {
		sets []string
		want string // "": not named
	}{
		{[]string{"client.fps=30", "client.frame_jitter=10ms", "server.tick=33ms"}, "; frame jitter varies them)"},
		{[]string{"client.fps=30", "client.wander_ppm=100ppm"}, "; clock wander varies them)"},
		{[]string{"client.fps=30", "client.frame_jitter=1ms", "server.wander_ppm=50ppm"}, "; frame jitter and clock wander vary them)"},
		{[]string{"client.frame_jitter=5ms"}, ""},
		{[]string{"client.fps=30", "client.frame_jitter=10ms", "server.tick=33ms", "client.sender=accumulator"}, ""},
	} {
		d := &diag{o: options(t, "", c.sets...)}
		f, ok := slowClockRule(d, r)
		if ok != (c.want != "") || ok && !strings.Contains(f.Text, "(the nominal rates predict +") || !strings.Contains(f.Text, c.want) {
			t.Errorf("%v: named %v (%q), want it named %v, with the nominal rates and %q", c.sets, ok, f.Text, c.want != "", c.want)
		}
	}
	// At the tick rate (60 fps, 3 frames per 48 ms send, 20 Hz) frame
	// jitter can take at most one frame more per send (15 Hz): a growth of
	// +2.1 ticks/s is the sender's, +15.3 (above) is not.
	runs = []lab.Summary{{Seed: 1, FinalOffset: 126}, {Seed: 2, FinalOffset: 126}, {Seed: 3, FinalOffset: 132}}
	traces = []Trace{{OffsetSlope: 2.1}, {OffsetSlope: 2.1}, {OffsetSlope: 2.2}}
	r = &Result{Reference: &Arm{Runs: runs, Traces: traces}}
	f, ok := slowClockRule(&diag{o: options(t, "", "client.frame_jitter=8ms")}, r)
	if want := "the frame rate leaves no margin: at 60 fps a 48 ms interval needs 3 frames (50.0 ms), 20.00 Hz, the server's 20 Hz, and a frame " +
		"late past the interval (client.frame_jitter=8ms) takes its send one frame later (at most once per 4 frames, 15.00 Hz)"; !ok || !strings.HasPrefix(f.Text, want) {
		t.Errorf("at the tick rate with frame jitter: named %v, %q\nwant it to start %q", ok, f.Text, want)
	}
	if _, ok := slowClockRule(&diag{o: options(t, "")}, r); ok {
		t.Error("at the tick rate without frame jitter: named (the latch's rule names it)")
	}
}

// In the model, 60 fps with 8 ms of frame jitter on a 20 Hz server: the
// frame sender's nominal rate is the server's, but a late frame takes a
// send a frame later and nothing makes it up, so the offset grows
// (+126 after 60 s on seed 1); the accumulator keeps it bounded.
func TestFrameJitterAtTheTickRateSlowsTheFrameSender(t *testing.T) {
	for _, sender := range []string{"frame", "accumulator"} {
		cfg := configOf(t, "client.frame_jitter=8ms", "client.sender="+sender)
		cfg.Duration = time.Minute
		sum := session(t, cfg, func(*metrics.Sample) {})
		switch {
		case sender == "frame" && sum.FinalOffset < 60:
			t.Errorf("frame sender: final offset %d, want it grown past 60", sum.FinalOffset)
		case sender == "accumulator" && sum.FinalOffset > cfg.Client.Band:
			t.Errorf("accumulator: final offset %d, want it within the band", sum.FinalOffset)
		}
	}
}

// The overwrite rule's mechanism is motion lost: of two inputs in one
// server step the first one's motion is never applied, so the tank moves
// at about commanded × the share applied. When it moves faster than that
// by more than the progress deficit's floor (a 100 ms server fed inputs
// at 20 Hz overwrites 46 % of them and the tank still moves at 2.04 of
// 2.00 m/s: each applied input moves it a whole step), the overwrites
// lose no such motion and the rule names nothing; it never says that
// they account for a deficit there is not.
func TestOverwriteNamedOnlyWhenItsMotionIsLost(t *testing.T) {
	d := &diag{o: options(t, "")}
	mk := func(overwritten uint64, speeds ...float64) *Result {
		a := &Arm{}
		for i, v := range speeds {
			a.Runs = append(a.Runs, lab.Summary{Seed: uint64(i + 1), Arrived: 1000, Overwritten: overwritten + uint64(i),
				CommandedSpeedMPS: 2, MeanVisibleSpeedMPS: v})
		}
		return &Result{Reference: a}
	}
	if f, ok := overwriteRule(d, mk(215, 1.57, 1.58, 1.56, 1.57)); !ok || !strings.Contains(f.Text, "which accounts for the deficit") {
		t.Errorf("21.5 %% overwritten, the tank at 1.57 of 2 m/s: named %v, %q", ok, f.Text)
	}
	if f, ok := overwriteRule(d, mk(457, 2.04, 2.05, 2.03, 2.04)); ok {
		t.Errorf("45.7 %% overwritten, the tank at 2.04 of 2 m/s: named %q", f.Text)
	}
	if f, ok := overwriteRule(d, mk(457, 1.90, 1.91, 1.89, 1.90)); ok {
		t.Errorf("45.7 %% overwritten, the tank at 1.90 of 2 m/s (1.09 if the overwrites lost motion): named %q", f.Text)
	}
}

// A mechanism whose removal only makes the player's figures worse (its
// change adds 0.213 m/s of judder and moves the tie-break by nothing, as
// client.alpha=0.278 does at 30 fps on a 100 ms uplink) costs less than
// one that costs nothing significant: "ranked by what each costs" puts
// it last, not first for having "an effect".
func TestFindingWhoseRemovalOnlyHarmsRanksLast(t *testing.T) {
	diff := func(mean, half float64) stats.Diff { return knownDiff(10, mean, half) }
	fs := []Finding{
		{Rule: "smoothing-per-frame", Cost: diff(-0.213, 0.050), FixTie: diff(-0.002, 0.003)},
		{Rule: "predict-latest-input", Cost: diff(0.053, 0.072), FixTie: diff(0, 0.002)},
		{Rule: "substeps", Cost: diff(0, 0), FixTie: diff(0, 0)},
	}
	rank(fs)
	var got []string
	for _, f := range fs {
		got = append(got, f.Rule)
	}
	want := []string{"predict-latest-input", "substeps", "smoothing-per-frame"}
	if !slices.Equal(got, want) {
		t.Errorf("ranked %v, want %v", got, want)
	}
}

// A queue or buffer server that has no input for a step applies its last
// input again (an underrun: server.StepInto), so a lost input does not
// stop the tank there, unlike a latest-wins server's starved step. With
// 3 % of the uplink lost on a buffer server the tank keeps its speed
// (10 seeds: loss → 0 changes neither judder nor the progress deficit);
// the finding must not say the tank stops, and says what a burst does to
// the redundant copies.
func TestUplinkLossOnAQueueDoesNotStopTheTank(t *testing.T) {
	runs := []lab.Summary{{Seed: 1, Starved: 36}, {Seed: 2, Starved: 40}, {Seed: 3, Starved: 38}}
	for i := range runs {
		runs[i].Up.Sent, runs[i].Up.Lost = 1200, 36
	}
	r := &Result{Reference: &Arm{Runs: runs}}
	for _, c := range []struct {
		sets       []string
		want, nots string
	}{
		{[]string{"server.inputs=queue", "up.loss=3%"}, "the server applies its last input again for that step", "the tank stops"},
		{[]string{"server.inputs=buffer", "up.loss=3%", "up.loss_burst=5"}, "a burst (5 packets on average) loses the copies too", "the tank stops"},
		{[]string{"up.loss=3%"}, "the tank stops for it", "applies its last input again"},
	} {
		f, ok := uplinkLossRule(&diag{o: options(t, "", c.sets...)}, r)
		if !ok || !strings.Contains(f.Text, c.want) || strings.Contains(f.Text, c.nots) {
			t.Errorf("%v: named %v, %q; want %q and not %q", c.sets, ok, f.Text, c.want, c.nots)
		}
	}
}
