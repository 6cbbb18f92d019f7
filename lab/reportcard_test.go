package lab

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"jitterlab/metrics"
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
	near(t, "speed deficit", c.SpeedDeficitMPS, 0, 0)
	near(t, "rubber bands", c.RubberBandsPerMin, 0, 0)
	near(t, "freeze", c.FreezeShare, 0, 0)
}

func TestReportCardSpeedDeficitAndJudder(t *testing.T) {
	// Four 0.5 s frames at full throttle (2 m/s commanded) moving 1, 0, 1, 0 m:
	// visible 1 m/s on average, speeds 2, 0, 2, 0 (sd √(16/3)/... = 1.1547).
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	for _, d := range []float64{1, 0, 1, 0} {
		tr.move(0.5, 0, d, 1, CardFrame{})
	}
	c := tr.m.Card()
	near(t, "speed deficit", c.SpeedDeficitMPS, 1, 1e-12)
	near(t, "judder", c.JudderMPS, math.Sqrt(4.0/3), 1e-12)
	// Two of four driving frames are below 10 % of 2 m/s.
	near(t, "freeze share", c.FreezeShare, 0.5, 0)
}

func TestReportCardRubberBandEvents(t *testing.T) {
	// Heading 90° (east): forward is +x. 6 frames of 0.5 s = 3 s = 0.05 min.
	tr := track{m: NewCardMeter(DefaultCardThresholds), rot: 90}
	tr.move(0.5, 0.5, 0, 1, CardFrame{})
	tr.move(0.5, -0.02, 0, 1, CardFrame{}) // event 1 starts
	tr.move(0.5, -0.02, 0, 1, CardFrame{}) // same event
	tr.move(0.5, 0.5, 0, 1, CardFrame{})
	tr.move(0.5, -0.005, 0, 1, CardFrame{}) // 5 mm back: under the 1 cm threshold
	tr.move(0.5, -0.02, 0, 0, CardFrame{})  // throttle off: not a rubber band
	tr.move(0.5, 0, 0.5, 1, CardFrame{})    // sideways: not backwards
	tr.move(0.5, 0.02, 0, -1, CardFrame{})  // reversing, pulled forward: event 2
	c := tr.m.Card()
	near(t, "rubber bands per min", c.RubberBandsPerMin, 2/(4.0/60), 1e-12)
}

func TestReportCardSnapsCorrectionsDelayLag(t *testing.T) {
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	// 6 frames of 1 s = 0.1 min.
	tr.move(1, 0, 0.6, 1, CardFrame{Snapped: true, Reconciled: 1, CorrectionM: 0.6, VisibleErrM: 0.1})
	tr.move(1, 0, 1.0, 1, CardFrame{Snapped: true, Reconciled: 1, CorrectionM: 0.005, VisibleErrM: 0.1})
	tr.move(1, 0, 0.8, 1, CardFrame{Snapped: true, Reconciled: 2, CorrectionM: 0.02, VisibleErrM: 0.2})
	tr.move(1, 0, 2, 1, CardFrame{CorrectionM: 0.5, VisibleErrM: 0.2}) // no reconciliation: not a correction
	tr.move(1, 0, 2, 1, CardFrame{VisibleErrM: 0.2})
	tr.move(1, 0, 2, 1, CardFrame{VisibleErrM: 0.4})
	for _, d := range []float64{50, 50, 100} {
		tr.m.InputDelay(d)
	}
	c := tr.m.Card()
	const res = 0.008 // the histogram's resolution
	near(t, "snaps per min", c.SnapsPerMin, 30, 1e-12)
	near(t, "snap distance p50", c.SnapDistanceM.P50, 0.8, res)
	near(t, "snap distance max", c.SnapDistanceM.Max, 1.0, 0)
	near(t, "corrections per min", c.CorrectionsPerMin, 20, 1e-12)
	near(t, "input delay p50", c.InputDelayMs.P50, 50, res)
	near(t, "input delay p99", c.InputDelayMs.P99, 100, res)
	near(t, "visible lag p50", c.VisibleLagM.P50, 0.2, res)
	near(t, "visible lag p99", c.VisibleLagM.P99, 0.4, res)
}

func TestReportCardThresholdsAreParameters(t *testing.T) {
	th := DefaultCardThresholds
	th.RubberBandM, th.FreezeShare, th.CorrectionM = 0.001, 0.6, 0.001
	tr := track{m: NewCardMeter(th)}
	tr.move(1, 0, -0.005, 1, CardFrame{Reconciled: 1, CorrectionM: 0.005}) // 5 mm back, 5 mm correction
	tr.move(1, 0, 1, 1, CardFrame{})                                       // 1 m/s < 60 % of 2 m/s
	c := tr.m.Card()
	near(t, "rubber bands per min", c.RubberBandsPerMin, 30, 1e-12)
	near(t, "corrections per min", c.CorrectionsPerMin, 30, 1e-12)
	near(t, "freeze share", c.FreezeShare, 1, 0)
	if c.Thresholds != th {
		t.Errorf("card thresholds %+v, want %+v", c.Thresholds, th)
	}
}

// TestReportCardInSummary: the session feeds the card the frames the rest
// of the summary counts, so its judder and lag agree with the summary's.
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
	near(t, "card speed deficit", c.SpeedDeficitMPS, sum.CommandedSpeedMPS-sum.MeanVisibleSpeedMPS, 1e-9)
	near(t, "card input delay p50", c.InputDelayMs.P50, sum.InputDelayMs.P50, 0)
	near(t, "card lag p99", c.VisibleLagM.P99, sum.VisibleErrorM.P99, 0)
	if c.CorrectionsPerMin <= 0 {
		t.Errorf("a 20 ms jittery link shows no corrections: %+v", c)
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
	want := "client.sender client.corrector client.predict client.replay client.smoothing client.redundancy server.buffer_mode client.max_catchup view.interp server.inputs"
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
		for name, v := range map[string]float64{"judder": card.JudderMPS, "speed deficit": card.SpeedDeficitMPS,
			"rubber bands": card.RubberBandsPerMin, "freeze": card.FreezeShare, "snaps": card.SnapsPerMin,
			"corrections": card.CorrectionsPerMin, "visible lag": card.VisibleLagM.P50} {
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
		if err := sum.WriteText(&text); err != nil || !regexp.MustCompile(`judder \(sd of per-frame visible speed\) +no data`).MatchString(text.String()) ||
			!strings.Contains(text.String(), "warning: ") {
			t.Errorf("%s: text %v\n%s", c.name, err, text.String())
		}
	}
}

// Issue 9 QA 4: judder has one definition, the sd of the visible pose's
// motion per frame including a snap's jump (what the player sees): the
// summary's judder is the report card's, and the text shows it once.
func TestJudderHasTwoValuesWhenSnapping(t *testing.T) {
	// A constructed snap: 2 m/s for a second, one frame jumping 0.5 m.
	tr := track{m: NewCardMeter(DefaultCardThresholds)}
	var w metrics.Welford
	for i := range 61 {
		dy := 2.0 / 60
		if i == 30 {
			dy += 0.5
		}
		tr.move(1.0/60, 0, dy, 1, CardFrame{Snapped: i == 30})
		w.Add(dy * 60)
	}
	near(t, "judder with a snap", tr.m.Card().JudderMPS, w.SD(), 1e-9)

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
	if err := sum.WriteText(&text); err != nil || strings.Count(text.String(), "judder (sd of per-frame visible speed)") != 1 {
		t.Errorf("the text shows judder other than once:\n%s", text.String())
	}
}

// QA 3: the mean visible speed and the card's speed deficit are one
// definition (the visible pose's motion, a snap's jump included): on a run
// that snaps, commanded − mean visible speed is the deficit.
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
	near(t, "commanded − mean visible speed", sum.CommandedSpeedMPS-sum.MeanVisibleSpeedMPS, sum.Card.SpeedDeficitMPS, 1e-9)
}
