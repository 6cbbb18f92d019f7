package lab

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"jitterlab/sim"
)

// track feeds a meter frames along a path of visible poses.
type track struct {
	m    *CardMeter
	x, y float64
	rot  float64
}

// move shows one frame of dt seconds in which the visible pose moves by
// (dx, dy) with the heading rot.
func (tr *track) move(dt, dx, dy, throttle float64, f CardFrame) {
	f.Dt, f.PrevX, f.PrevY, f.PrevRot = dt, tr.x, tr.y, tr.rot
	tr.x, tr.y = tr.x+dx, tr.y+dy
	f.X, f.Y, f.Rot = tr.x, tr.y, tr.rot
	f.Throttle, f.MoveSpeed = throttle, 2
	tr.m.Frame(&f)
}

func near(t *testing.T, name string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want)+1e-12 {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func TestReportCardSteadyDriveIsClean(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	for range 120 { // 2 s at 60 fps, full throttle north at 2 m/s
		tr.move(1.0/60, 0, 2.0/60, 1, CardFrame{})
	}
	c := tr.m.Card()
	near(t, "judder", c.JudderMPS, 0, 0)
	near(t, "progress deficit", c.ProgressDeficitMPS, 0, 0)
	near(t, "progress deficit %", c.ProgressDeficitPct, 0, 0)
	near(t, "rubber bands", c.BackwardExcursionsPerMin, 0, 0)
	near(t, "backward m", c.BackwardMPerMin, 0, 0)
	near(t, "hesitations", c.HesitationsPerMin, 0, 0)
	near(t, "hesitation share", c.HesitationShare, 0, 0)
}

// Progress is signed: a backward snap takes away the distance it jumps.
// The first edition's speed deficit counted path length, so the snap back
// added 0.3 m of "progress": (2 − 2.1) m ÷ 1 s = −0.1 m/s, better than a
// clean drive.
func TestProgressDeficitSubtractsBackwardSnaps(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	for i := range 10 { // 10 frames of 0.1 s, full throttle north: 2 m commanded
		dy := 0.2
		if i == 5 {
			dy = -0.3 // snapped back
		}
		tr.move(0.1, 0, dy, 1, CardFrame{Snapped: i == 5})
	}
	c := tr.m.Card()
	near(t, "progress deficit", c.ProgressDeficitMPS, 0.5, 1e-12) // 2 − (9·0.2 − 0.3) = 0.5 m in 1 s
	near(t, "progress deficit %", c.ProgressDeficitPct, 25, 1e-12)
	near(t, "snaps per min", c.SnapsPerMin, 60, 1e-12)
}

// A tank ahead of its command (a forward snap) has a negative deficit,
// and ranking uses the magnitude: -0.2 m/s is as far off as +0.2.
func TestProgressDeficitRanksByMagnitude(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	tr.move(1, 0, 2.2, 1, CardFrame{}) // 2 m commanded, 2.2 m shown
	c := tr.m.Card()
	near(t, "progress deficit", c.ProgressDeficitMPS, -0.2, 1e-12)
	for _, m := range CardMetrics {
		if m.Name == "progress_deficit_mps" {
			near(t, "its score", m.Score(&c), 0.2, 1e-12)
		}
	}
}

// Judder is the RMS of the speed minus its centred 200 ms mean. Frames of
// 0.03 s moving 2, 0, 2, 0 … m/s: a full window holds 7 frames (±0.09 s),
// 4 of one speed and 3 of the other, so every judged frame is 8/7 m/s off
// the mean. The first edition's sd over the 40 frames is √(40/39) ≈ 1.013.
func TestJudderIsTheHighPassedSpeed(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	for i := range 40 {
		tr.move(0.03, 0, float64(2*((i+1)%2))*0.03, 1, CardFrame{})
	}
	near(t, "judder", tr.m.Card().JudderMPS, 8.0/7, 1e-9)
}

// A game drawing more frames than the judder window's ring holds (256:
// a 200 ms window is 800 frames at 4000 fps, as a real game's telemetry
// can be) is judged on a window of the 256 frames around each frame,
// still centred on it. Steady acceleration is no judder: the speed
// minus the mean of a window centred on it is 0 by hand, or half a
// frame's gain when the window has an even count: 128 frames before and
// 128 from the frame on, at 1 m/s² and 3999 fps 0.5/3999 m/s. A window
// that only looked ahead judged it 0.032 m/s.
func TestJudderOfMoreFramesThanTheRingHolds(t *testing.T) {
	for _, c := range []struct{ fps, want float64 }{{999, 0}, {3999, 0.5 / 3999}} {
		tr := track{m: NewCardMeter(DefaultCardThresholds)}
		dt := 1 / c.fps
		for i := range int(3 * c.fps) {
			v := float64(i) * dt // 1 m/s²
			tr.move(dt, 0, float64(v*dt), 1, CardFrame{})
		}
		if got := tr.m.Card().JudderMPS; math.Abs(got-c.want) > 1e-9 {
			t.Errorf("judder at %g fps = %v, want %v", c.fps, got, c.want)
		}
	}
}

// Past the ring, the window is the 256 frames around each frame: the 128
// before it, the frame and the 127 after it. A speed that curves (v = a·i²
// at 3999 fps) tells that window from 127 before and 128 after, which the
// steady acceleration above cannot: there the residual's sign flips, not
// its square. The reference sums each window by hand; a frame is judged
// from 0.1 s on, once the 128th frame after it has come.
func TestJudderPastTheRingIsTheFramesAroundEach(t *testing.T) {
	const fps, before, after = 3999.0, 128, 127
	dt := 1 / fps
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	n := int(2 * fps)
	v, ts := make([]float64, n), make([]float64, n)
	var tm float64
	for i := range n {
		y0 := tr.y
		tr.move(dt, 0, float64(float64(float64(i*i)*1e-6)*dt), 1, CardFrame{})
		v[i] = (tr.y - y0) / dt // the speed the card reads
		tm += dt
		ts[i] = tm
	}
	var ss float64
	var k int
	for c := before; c+after+1 < n; c++ {
		if ts[c] < DefaultCardThresholds.JudderWindowS/2 {
			continue
		}
		var sv, st float64
		for j := c - before; j <= c+after; j++ {
			sv += float64(v[j] * dt)
			st += dt
		}
		r := v[c] - sv/st
		ss += float64(r * r)
		k++
	}
	near(t, "judder", tr.m.Card().JudderMPS, math.Sqrt(ss/float64(k)), 1e-9)
}

// A commanded speed change is no judder: 2 m/s for 1.8 s, then the
// throttle released and the tank stopping 3 frames (90 ms) later. The
// first edition's sd over all frames read about 1 m/s; the visible
// response, 90 ms, is the local response.
func TestJudderLeavesOutCommandedSpeedChanges(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	for i := range 120 {
		throttle, dy := 1.0, 0.06
		if i >= 60 {
			throttle = 0
		}
		if i >= 63 {
			dy = 0
		}
		tr.move(0.03, 0, dy, throttle, CardFrame{})
	}
	c := tr.m.Card()
	near(t, "judder", c.JudderMPS, 0, 0)
	near(t, "local response p50", c.LocalResponseMs.P50, 90, 0.008)
}

// A snap is an event counted apart, not judder: 2 m/s for 2 s with one
// frame jumping 0.5 m. The first edition's sd with the jump was 2.74
// m/s.
func TestJudderLeavesOutSnaps(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	for i := range 120 {
		dy := 2.0 / 60
		if i == 60 {
			dy += 0.5
		}
		tr.move(1.0/60, 0, dy, 1, CardFrame{Snapped: i == 60})
	}
	c := tr.m.Card()
	near(t, "judder", c.JudderMPS, 0, 1e-9)
	near(t, "snaps per min", c.SnapsPerMin, 30, 1e-9)
}

// Rubber bands are backward runs, whatever the frame rate: three pull-backs
// of 4 cm over 100 ms count three at 30, 60 and 144 fps. The first edition
// counted frames moving back more than 1 cm each: 3 at 30 fps (1.3 cm a
// frame), 0 at 60 (0.67 cm) and 144 fps (0.29 cm).
func TestRubberBandsCountTheSameAtEveryFrameRate(t *testing.T) {
	for _, fps := range []int{30, 60, 144} {
		tr := track{m: NewCardMeter(DefaultCardThresholds), rot: 90} // east
		dt := 1 / float64(fps)
		n := int(math.Round(0.1 * float64(fps)))
		total := 0.0
		for range 3 {
			for range fps {
				tr.move(dt, 2*dt, 0, 1, CardFrame{})
			}
			for range n {
				tr.move(dt, -0.04/float64(n), 0, 1, CardFrame{})
			}
			total += float64(fps+n) * dt
		}
		c := tr.m.Card()
		near(t, fmt.Sprintf("%d fps: rubber bands per min", fps), c.BackwardExcursionsPerMin, 3/(total/60), 1e-9)
		near(t, fmt.Sprintf("%d fps: backward m per min", fps), c.BackwardMPerMin, 0.12/(total/60), 1e-9)
	}
}

// A backward move under 1 cm is no rubber band; sideways is not backward;
// reversing, the direction of travel turns round.
func TestRubberBandsFollowTheDirectionOfTravel(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds), rot: 90} // east: forward is +x
	tr.move(0.5, 0.5, 0, 1, CardFrame{})
	tr.move(0.5, -0.005, 0, 1, CardFrame{}) // 5 mm back: under 1 cm
	tr.move(0.5, 0.5, 0, 1, CardFrame{})
	tr.move(0.5, 0, 0.5, 1, CardFrame{})   // sideways
	tr.move(0.5, 0.02, 0, -1, CardFrame{}) // reversing, pulled forward: one
	tr.move(0.5, 0.02, 0, 0, CardFrame{})  // released, still pulled forward: the same run
	c := tr.m.Card()
	near(t, "rubber bands per min", c.BackwardExcursionsPerMin, 1/(3.0/60), 1e-12)
	near(t, "backward m per min", c.BackwardMPerMin, 0.045/(3.0/60), 1e-9)
}

// A hesitation is a run of at least 100 ms below half the commanded
// speed: 200 ms at 30 % counts, 67 ms does not. The first edition's freeze
// time (frames below 10 %) saw neither.
func TestHesitations(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	drive := func(frames int, speed float64) {
		for range frames {
			tr.move(1.0/60, 0, speed/60, 1, CardFrame{})
		}
	}
	drive(60, 2)
	drive(12, 0.6) // 200 ms at 30 %
	drive(60, 2)
	drive(4, 0.6) // 67 ms: too short
	drive(44, 2)  // 3 s in all
	c := tr.m.Card()
	near(t, "hesitations per min", c.HesitationsPerMin, 20, 1e-9)
	near(t, "hesitation share", c.HesitationShare, 0.2/3, 1e-9)
}

// The wait for the visible pose to answer a throttle change is the local
// response, not a hesitation: a start shown 10 frames (167 ms) late.
func TestAStartIsNoHesitation(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	for range 30 {
		tr.move(1.0/60, 0, 0, 0, CardFrame{})
	}
	for i := range 60 {
		dy := 2.0 / 60
		if i < 10 {
			dy = 0
		}
		tr.move(1.0/60, 0, dy, 1, CardFrame{})
	}
	c := tr.m.Card()
	near(t, "hesitations per min", c.HesitationsPerMin, 0, 0)
	near(t, "local response", c.LocalResponseMs.P50, 11000.0/60, 0.008) // 5 cm in the 2nd moving frame, 11 frames after the change
}

// The local response runs from the frame whose input changes the throttle
// to the visible pose 5 cm off where the old speed was taking it: at
// 60 fps, a start shown 5 frames late reaches 5 cm in its second moving
// frame (100 ms); a stop shown 3 frames late is 5 cm behind in its second
// still frame (66.7 ms). A change under half the throttle starts none.
func TestLocalResponse(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	const dt = 1.0 / 60
	for range 30 {
		tr.move(dt, 0, 0, 0, CardFrame{})
	}
	for i := range 60 { // throttle on; the tank moves from the 6th frame
		dy := 0.0
		if i >= 5 {
			dy = 2 * dt
		}
		tr.move(dt, 0, dy, 1, CardFrame{})
	}
	for i := range 30 { // released; the tank stops after 3 frames
		dy := 0.0
		if i < 3 {
			dy = 2 * dt
		}
		tr.move(dt, 0, dy, 0, CardFrame{})
	}
	tr.move(dt, 0, 0, 0.3, CardFrame{}) // a small change
	for range 60 {
		tr.move(dt, 0, 0, 0.3, CardFrame{})
	}
	c := tr.m.Card()
	near(t, "local response p50", c.LocalResponseMs.P50, 200.0/3, 0.008)
	near(t, "local response p99", c.LocalResponseMs.P99, 100, 0.008)
}

// The visible lag in time is the distance behind the prediction over the
// prediction's speed: 0.1 m is 50 ms at 2 m/s and 100 ms at 1 m/s, where
// the first edition read 0.1 m for both. A still prediction has no lag in
// time.
func TestVisibleLagInTime(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	for i := range 100 {
		f := CardFrame{VisibleErrM: 0.1, PredSpeed: 2}
		if i >= 60 {
			f.PredSpeed = 1
		}
		tr.move(0.01, 0, 0.02, 1, f)
	}
	tr.move(0.01, 0, 0, 0, CardFrame{VisibleErrM: 5}) // stopped
	c := tr.m.Card()
	near(t, "visible lag p50", c.VisibleLagMs.P50, 50, 0.008)
	near(t, "visible lag p99", c.VisibleLagMs.P99, 100, 0.008)
	near(t, "visible lag p50 in m", c.VisibleLagM.P50, 0.1, 0.008)
}

// After the prediction slows, the lag in time is how long the prediction
// took to cover the distance the visible pose is behind, not that
// distance ÷ the new speed: 1 s at 2 m/s, then the prediction slows to
// 0.1 m/s with the visible pose 0.1 m behind. k frames (10 ms) after the
// slow-down the prediction was there 10k ms + (0.1 − 0.001k) m ÷ 2 m/s
// ago: 59.5 ms after one frame, where 0.1 m ÷ 0.1 m/s read 1000 ms.
func TestVisibleLagAfterTheSlowDown(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	for range 100 {
		tr.move(0.01, 0, 0.02, 1, CardFrame{VisibleErrM: 0.1, PredSpeed: 2})
	}
	tr.move(0.01, 0, 0.001, 0.05, CardFrame{VisibleErrM: 0.1, PredSpeed: 0.1})
	near(t, "one frame after", 1000*tr.m.lagTime(tr.m.timeS, 0.1), 59.5, 1e-9)
	for range 9 {
		tr.move(0.01, 0, 0.001, 0.05, CardFrame{VisibleErrM: 0.1, PredSpeed: 0.1})
	}
	near(t, "ten frames after", 1000*tr.m.lagTime(tr.m.timeS, 0.1), 145, 1e-9)
	c := tr.m.Card()
	if p99 := c.VisibleLagMs.P99; !(p99 > 100 && p99 < 145) {
		t.Errorf("visible lag p99 = %v ms, want between 100 and 145 (÷ the new speed: 1000)", p99)
	}
	// Further back than the frames kept: on at the oldest frame's speed.
	// The path is 2.01 m; 2.5 m back is 0.49 m before the first frame's
	// end (t = 0.01 s, 0.02 m): 1.09 s + 0.51 m ÷ 2 m/s.
	near(t, "before the first frame", 1000*tr.m.lagTime(tr.m.timeS, 2.5), 1090+255, 1e-9)
}

// Corrections by size, per minute: 6 frames of 1 s = 0.1 min.
func TestCorrectionsBySize(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	tr.move(1, 0, 2, 1, CardFrame{Reconciled: 1, CorrectionM: 0})           // exact: no correction
	tr.move(1, 0, 2, 1, CardFrame{Reconciled: 1, CorrectionM: 0.005})       // small
	tr.move(1, 0, 2, 1, CardFrame{Reconciled: 2, CorrectionM: 0.02})        // medium
	tr.move(1, 0, 2, 1, CardFrame{Reconciled: 1, CorrectionM: 0.1 + 1e-15}) // medium: one tick's motion, rounded up
	tr.move(1, 0, 2, 1, CardFrame{Reconciled: 1, CorrectionM: 0.5})         // large
	tr.move(1, 0, 2, 1, CardFrame{CorrectionM: 0.5})                        // no reconciliation
	c := tr.m.Card()
	near(t, "small", c.CorrectionsSmallPerMin, 10, 1e-12)
	near(t, "medium", c.CorrectionsMediumPerMin, 20, 1e-12)
	near(t, "large", c.CorrectionsLargePerMin, 10, 1e-12)
}

// The server input delay runs from each frame's sample to the server step
// applying the input that carries it; samples whose input the server never
// applies are counted lost or overwritten. Frames every 10 ms; ticks sent
// every 5th frame carry 5 samples. Tick 2 (frames at 10…50 ms) is applied
// at 100 ms: 90, 80, 70, 60, 50 ms, where the first edition measured 50 ms
// once, from the send. Tick 3 arrived and tick 4 did not when the server
// applies tick 5: 5 samples overwritten, 5 lost.
func TestServerInputDelayFollowsEverySample(t *testing.T) {
	m := NewCardMeter(DefaultCardThresholds)
	var in inputSamples
	ms := func(v int) sim.Time { return sim.Time(time.Duration(v) * time.Millisecond) }
	for f := 0; f <= 25; f++ {
		in.frame(ms(10 * f))
		if f%5 == 0 {
			tick := uint32(f/5 + 1)
			in.sent(tick, 1)
			if tick != 4 {
				in.arrive(tick, 0)
			}
		}
	}
	in.applied(ms(100), 1, ms(10), m) // tick 1's sample at 0 ms is before from
	in.applied(ms(100), 2, ms(10), m)
	in.applied(ms(300), 5, ms(10), m) // tick 5: frames 160…200 ms
	in.applied(ms(300), 5, ms(10), m) // the same ack again: nothing new
	c := m.Card()
	near(t, "p50", c.ServerInputDelayMs.P50, 90, 0.008) // 50…140 ms: the 5th of 10
	near(t, "p99", c.ServerInputDelayMs.P99, 140, 0.008)
	near(t, "lost share", c.ServerInputLostShare, 0.25, 0)
	near(t, "overwritten share", c.ServerInputOverwrittenShare, 0.25, 0)
}

// A redundant copy makes an input arrive; an acknowledged tick whose input
// never arrived (the server repeated an older one) is lost, not applied.
func TestServerInputDelayRedundancyAndRepeats(t *testing.T) {
	m := NewCardMeter(DefaultCardThresholds)
	var in inputSamples
	for f := range 3 {
		in.frame(sim.Time(f) * sim.Time(time.Millisecond))
		in.sent(uint32(f+1), 1)
	}
	in.arrive(3, 1) // tick 3 with tick 2's copy
	in.applied(sim.Time(10*time.Millisecond), 1, 0, m)
	in.applied(sim.Time(10*time.Millisecond), 3, 0, m)
	c := m.Card()
	near(t, "lost share", c.ServerInputLostShare, 1.0/3, 1e-12)               // tick 1: never arrived
	near(t, "overwritten share", c.ServerInputOverwrittenShare, 1.0/3, 1e-12) // tick 2: arrived, skipped
	near(t, "p50", c.ServerInputDelayMs.P50, 8, 0.008)                        // tick 3: sampled at 2 ms
}

func TestReportCardThresholdsAreParameters(t *testing.T) {
	th := DefaultCardThresholds
	th.BackwardM, th.CorrectionSmallM = 0.001, 0.001
	tr := track{m: NewCardMeter(th)}
	tr.move(1, 0, -0.005, 1, CardFrame{Reconciled: 1, CorrectionM: 0.005}) // 5 mm back, 5 mm correction
	tr.move(1, 0, 1, 1, CardFrame{})
	c := tr.m.Card()
	near(t, "rubber bands per min", c.BackwardExcursionsPerMin, 30, 1e-12)
	near(t, "medium corrections per min", c.CorrectionsMediumPerMin, 30, 1e-12)
	if c.Thresholds != th {
		t.Errorf("card thresholds %+v, want %+v", c.Thresholds, th)
	}
}

// TestReportCardInSummary: the session feeds the card the frames the rest
// of the summary counts, so its judder and lag agree with the summary's;
// path length is never shorter than progress; the summary's input delay
// is the card's server input delay.
func TestReportCardInSummary(t *testing.T) {
	cfg := config(t, 20*time.Second, jittery, "link.jitter=20ms")
	s, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	sum := s.Summary()
	c := sum.Card
	near(t, "card judder", c.JudderMPS, sum.JudderMPS, 1e-9)
	if path := sum.CommandedSpeedMPS - sum.MeanVisibleSpeedMPS; c.ProgressDeficitMPS < path-1e-9 {
		t.Errorf("progress deficit %v below the path-length deficit %v", c.ProgressDeficitMPS, path)
	}
	near(t, "card server input delay p95", c.ServerInputDelayMs.P95, sum.InputDelayMs.P95, 0)
	near(t, "card lag p99", c.VisibleLagM.P99, sum.VisibleErrorM.P99, 0)
	if c.CorrectionsMediumPerMin+c.CorrectionsLargePerMin <= 0 || !(c.VisibleLagMs.P50 > 0) {
		t.Errorf("a 20 ms jittery link shows no corrections or no lag: %+v", c)
	}
}

func TestVariantsAreTheRegistrysImplementationChoices(t *testing.T) {
	var got []string
	for _, v := range Variants() {
		got = append(got, v.Key)
		p, _ := Lookup(v.Key)
		for _, c := range v.Choices {
			cfg := DefaultConfig()
			if err := Set(&cfg, v.Key, c); err != nil || p.Get(&cfg) != c {
				t.Errorf("%s=%s: %v, reads back %q", v.Key, c, err, p.Get(&cfg))
			}
		}
	}
	want := "client.sender client.corrector client.predict client.replay client.smoothing client.redundancy server.buffer_mode client.max_catchup client.alpha_per client.dilation_law view.interp server.inputs"
	if strings.Join(got, " ") != want {
		t.Errorf("variants %q, want %q", got, want)
	}
}

// Issue 9 QA 2: a run with no driving frames (a dead link, a run shorter
// than the warm-up, a link too slow to log in) has no report card: its
// figures are no data (NaN, null in JSON, "no data" in the text), not 0.
func TestReportCardOfADeadLinkIsNotZero(t *testing.T) {
	for _, c := range []struct {
		name string
		set  [2]string
		dur  time.Duration
	}{
		{"link.loss=100%", [2]string{"link.loss", "100%"}, 5 * time.Second},
		{"--duration 1s", [2]string{"link.loss", "0%"}, time.Second},
	} {
		cfg := DefaultConfig()
		cfg.Duration = c.dur
		if err := Set(&cfg, c.set[0], c.set[1]); err != nil {
			t.Fatal(err)
		}
		s, err := New(cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Run(sim.Time(cfg.Duration)); err != nil {
			t.Fatal(err)
		}
		sum := s.Summary()
		card := sum.Card
		for name, v := range map[string]float64{"judder": card.JudderMPS, "progress deficit": card.ProgressDeficitMPS,
			"rubber bands": card.BackwardExcursionsPerMin, "hesitations": card.HesitationShare, "snaps": card.SnapsPerMin,
			"corrections": card.CorrectionsSmallPerMin, "visible lag": card.VisibleLagM.P50, "visible lag ms": card.VisibleLagMs.P50,
			"server input delay": card.ServerInputDelayMs.P50, "local response": card.LocalResponseMs.P50} {
			if !math.IsNaN(v) {
				t.Errorf("%s: %s = %v, want no data", c.name, name, v)
			}
		}
		js, err := json.Marshal(&sum)
		if err != nil || !strings.Contains(string(js), `"judder_mps":null`) {
			t.Errorf("%s: JSON %v %s", c.name, err, js)
		}
		var back Summary
		if err := json.Unmarshal(js, &back); err != nil || !math.IsNaN(back.Card.JudderMPS) {
			t.Errorf("%s: JSON does not read back: %v %v", c.name, err, back.Card.JudderMPS)
		}
		var text strings.Builder
		if err := sum.WriteText(&text); err != nil || !regexp.MustCompile(`judder \(rms of speed − its 200 ms mean\) +no data`).MatchString(text.String()) ||
			!strings.Contains(text.String(), "warning: ") {
			t.Errorf("%s: text %v\n%s", c.name, err, text.String())
		}
	}
}

// Issue 9 QA 4: judder has one definition, the report card's: the
// summary's judder is the card's, and the text shows it once.
func TestJudderHasOneDefinition(t *testing.T) {
	sc, err := LoadScenario("latency-spike")
	if err != nil {
		t.Fatal(err)
	}
	s, cfg := scenarioSession(t, sc, 0)
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	sum := s.Summary()
	if sum.Snaps == 0 || sum.JudderMPS != sum.Card.JudderMPS {
		t.Errorf("latency-spike: %d snaps, judder %v, the report card's %v", sum.Snaps, sum.JudderMPS, sum.Card.JudderMPS)
	}
	var text strings.Builder
	if err := sum.WriteText(&text); err != nil || strings.Count(text.String(), "judder (") != 1 {
		t.Errorf("the text shows judder other than once:\n%s", text.String())
	}
}

// QA 3: the mean visible speed is path length, a snap's jump included;
// the card's progress deficit counts the jump along the direction of
// travel, so on a run that snaps the path-length deficit is the smaller.
func TestMeanVisibleSpeedCountsTheSnapJump(t *testing.T) {
	sc, err := LoadScenario("latency-spike")
	if err != nil {
		t.Fatal(err)
	}
	s, cfg := scenarioSession(t, sc, 0)
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	sum := s.Summary()
	if sum.Snaps == 0 {
		t.Fatal("latency-spike does not snap: the test shows nothing")
	}
	if path := sum.CommandedSpeedMPS - sum.MeanVisibleSpeedMPS; !(path < sum.Card.ProgressDeficitMPS) {
		t.Errorf("path-length deficit %v, progress deficit %v: the snaps' jumps count as progress", path, sum.Card.ProgressDeficitMPS)
	}
}

// The bursty-uplink repro (issue 20): losses in bursts of 4 on the uplink
// make the server starve and the client snap back. Path length counted the
// snaps back as progress (0.02 m/s); signed progress shows the tank losing
// about 5 % of the ground it was asked to cover.
func TestProgressDeficitOfBurstyUplinkLoss(t *testing.T) {
	cfg := config(t, 2*time.Minute, "up.loss=5%", "up.loss_burst=4")
	s, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	sum := s.Summary()
	path := sum.CommandedSpeedMPS - sum.MeanVisibleSpeedMPS
	c := sum.Card
	if c.ProgressDeficitPct < 3 || c.ProgressDeficitMPS < 3*path || c.BackwardExcursionsPerMin <= 0 || c.ServerInputLostShare <= 0 {
		t.Errorf("progress deficit %.3f m/s (%.1f %%), path-length deficit %.3f m/s, %.1f backward excursions/min, lost %.3f",
			c.ProgressDeficitMPS, c.ProgressDeficitPct, path, c.BackwardExcursionsPerMin, c.ServerInputLostShare)
	}
}

// A deficit that rounds to zero reads 0.000, not -0.000 (the buffer repro
// of issue 20 §2.1 printed "-0.000 m/s (-0.0 % of commanded)"); a real
// negative deficit keeps its sign.
func TestCardTextHasNoNegativeZero(t *testing.T) {
	for _, c := range []struct {
		mps, pct float64
		want     string
	}{
		{-1e-9, -5e-8, "0.000 m/s (0.0 % of commanded)"},
		{-0.012, -0.6, "-0.012 m/s (-0.6 % of commanded)"},
	} {
		card := NewCardMeter(DefaultCardThresholds).Card()
		card.ProgressDeficitMPS, card.ProgressDeficitPct = c.mps, c.pct
		var b strings.Builder
		if err := card.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "progress deficit (commanded − forward progress)  "+c.want+"\n") {
			t.Errorf("deficit %v: the card reads\n%s\nwant %q", c.mps, b.String(), c.want)
		}
	}
}

// lagTime finds the same frame as a scan from the newest frame back: the
// newest whose path is at or short of the target, on paths with pauses
// (equal lengths), rings not yet full and rings wrapped, and whatever the
// lags asked before (its search starts from the last answer).
func TestLagTimeFindsTheNewestFrameShortOfTheTarget(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		m := NewCardMeter(DefaultCardThresholds)
		frames := 1 + r.IntN(3*lagRing)
		var path, tm float64
		for f := range frames {
			v := 0.0
			if r.IntN(4) > 0 {
				v = 2 * r.Float64()
			}
			tm += 1.0 / 60
			path += float64(v / 60)
			m.predM = path
			m.pred[m.predN%lagRing] = predFrame{t: tm, m: path, v: v}
			m.predN++
			if f < frames-1 && r.IntN(3) > 0 {
				continue // the last frame, and some before it, ask for a lag
			}
			checkLagTime(t, trial, frames, m, tm, path, r)
		}
	}
}

// checkLagTime asks m for the lag at tm of a random distance behind path
// and compares it with a scan from the newest frame back.
func checkLagTime(t *testing.T, trial, frames int, m *CardMeter, tm, path float64, r *rand.Rand) {
	t.Helper()
	var errM float64
	switch r.IntN(4) {
	case 0: // within a few frames
		errM = float64(path * float64(0.01*r.Float64()))
	case 1: // past the ring, or anywhere on it
		errM = float64(path * r.Float64())
	default:
		errM = float64(float64(path*r.Float64()) * r.Float64()) // rounded: not fused into target below
	}
	target := path - errM
	n := min(m.predN, lagRing)
	age := uint64(0)
	for age < n && m.pred[(m.predN-1-age)%lagRing].m > target {
		age++
	}
	var want float64
	switch {
	case age == n:
		o := m.pred[(m.predN-n)%lagRing]
		want = tm - o.t
		if o.v > 0 {
			want += (o.m - target) / o.v
		}
	case age > 0:
		b := m.pred[(m.predN-age)%lagRing]
		want = tm - b.t + (b.m-target)/b.v
	}
	if got := m.lagTime(tm, errM); got != want {
		t.Fatalf("trial %d (%d frames, %.4f m behind): lag %v s, want %v s (age %d)", trial, frames, errM, got, want, age)
	}
}
