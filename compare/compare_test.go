package compare

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/stats"
	"jitterlab/telemetry"
)

// record is a proxy recording of a game that is the model itself: cfg's
// session (client start 0, so a frame's t_s is its arrival) with link
// link in the header, changes during the run, and the session's frames
// as telemetry.
func record(t *testing.T, cfg lab.Config, link [][2]string, changes []recordings.Change) *recordings.Reader {
	t.Helper()
	cfg.ClientStart = 0
	for _, kv := range link {
		if err := lab.Set(&cfg, kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	s, err := lab.New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if strings.Contains(c.Key, " ") {
			continue // a client's own: the model has one client
		}
		if err := s.Schedule(c.At, c.Key, c.Value); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	w, err := recordings.NewWriter(&buf, recordings.Header{Kind: recordings.KindProxy, Params: link})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if err := w.Change(c); err != nil {
			t.Fatal(err)
		}
	}
	var last sim.Time
	s.OnFrame = func(f *telemetry.Frame) {
		last = sim.Time(math.Round(f.TS * 1e9))
		if err := w.Telemetry(last, &telemetry.Datagram{Kind: telemetry.KindFrame, Frame: *f}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(recordings.End{At: last}); err != nil {
		t.Fatal(err)
	}
	r, err := recordings.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var jitterLink = [][2]string{{"up.latency", "50ms"}, {"down.latency", "50ms"}, {"up.jitter", "20ms"}, {"down.jitter", "20ms"}}

// The model as the game, on a jittery link with a change of the link
// mid-run: every figure falls inside the model's interval for one run.
func TestTheModelAsTheGameFallsInside(t *testing.T) {
	cfg := lab.DefaultConfig()
	cfg.Seed, cfg.Duration = 1000, 40*time.Second // a seed the model's runs (1–20) do not use
	r := record(t, cfg, jitterLink, []recordings.Change{{At: sim.Time(20 * time.Second), Key: "down.loss", Value: "5%"}})
	g, err := Load(r, "model.jlrec", lab.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Changes) != 1 || g.Changes[0].Key != "down.loss" || g.Config.Up.Latency != 50*time.Millisecond {
		t.Fatalf("loaded %+v", g.Changes)
	}
	res, err := Run(g, 20, 2)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	res.WriteText(&text)
	t.Log(text.String())
	known := 0
	for _, f := range res.Figures {
		if !f.NoData {
			known++
		}
	}
	if out := res.Outside(); len(out) > 0 || known < 10 {
		t.Errorf("%d figures with data, %d outside:\n%s", known, len(out), text.String())
	}
}

// A game whose corrector is off, beside the reference model on a perfect
// link: it sends every 4th frame at 60 fps, so its send interval and its
// progress deficit lie far outside, and the text names them first with
// where to look.
func TestAGameWithoutCorrectorStandsOut(t *testing.T) {
	cfg := lab.DefaultConfig()
	cfg.Seed, cfg.Duration = 1000, 30*time.Second
	if err := lab.Set(&cfg, "client.corrector", "off"); err != nil {
		t.Fatal(err)
	}
	g, err := Load(record(t, cfg, nil, nil), "off.jlrec", lab.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(g, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	res.WriteText(&text)
	names := map[string]bool{}
	for _, f := range res.Outside() {
		names[f.Name] = true
	}
	for _, want := range []string{"send_interval_mean_s", "progress_deficit_mps"} {
		if !names[want] {
			t.Errorf("%s not outside:\n%s", want, text.String())
		}
	}
	for _, want := range []string{"largest differences:", "its corrector differs"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, text.String())
		}
	}
}

// The interval for one run, by hand: runs 1, 2, 3 (mean 2, s 1): at 95 %
// 2 ± t(0.975, 2)·√(4/3) = 2 ± 4.9687, and 7 lies 5/√(4/3) spreads
// above; a figure that never varies gets half a unit of its last decimal.
func TestOneRunInterval(t *testing.T) {
	lo, hi, inside, away, noData := oneRun(stats.Mean([]float64{1, 2, 3}), 7, 3, 0.95)
	half := stats.T975(2) * math.Sqrt(4.0/3)
	if math.Abs(lo-(2-half)) > 1e-9 || math.Abs(hi-(2+half)) > 1e-9 || inside || noData || math.Abs(away-5/math.Sqrt(4.0/3)) > 1e-9 {
		t.Errorf("[%v, %v] inside %v away %v; want 2 ± %v, 7 outside, %v spreads", lo, hi, inside, away, half, 5/math.Sqrt(4.0/3))
	}
	if _, _, inside, _, _ := oneRun(stats.Mean([]float64{0, 0, 0}), 0.04, 1, 0.95); !inside {
		t.Error("0.04 beside three runs of 0 at 1 decimal: want inside (±0.05)")
	}
	if _, _, inside, _, _ := oneRun(stats.Mean([]float64{0, 0, 0}), 0.06, 1, 0.95); inside {
		t.Error("0.06 beside three runs of 0 at 1 decimal: want outside")
	}
	if _, _, _, _, noData := oneRun(stats.Mean([]float64{1}), 1, 1, 0.95); !noData {
		t.Error("one run: want no data")
	}
	if _, _, _, _, noData := oneRun(stats.Mean([]float64{1, 2}), math.NaN(), 1, 0.95); !noData {
		t.Error("no game value: want no data")
	}
}

// The family-wise rule by hand: two figures with data and one without
// make k = 2, so each interval is at 1 − 5 %/2 = 97.5 %. Beside runs 1,
// 2, 3 (two degrees of freedom, where P(|T| ≤ x) = x/√(2 + x²)) the factor
// is 0.975·√(2/(1 − 0.975²)) = 6.2053 and the interval 2 ± 6.2053·√(4/3)
// = 2 ± 7.1653: a game at 7, outside the 95 % interval (2 ± 4.9687), is
// inside; one at 9.5 is outside, so the game falls outside the model.
func TestFamilyWiseVerdictByHand(t *testing.T) {
	runs := stats.Mean([]float64{1, 2, 3})
	r := &Result{Game: &Game{Name: "hand.jlrec"}, Seeds: 3, Figures: []Figure{
		{Name: "a", Label: "a", Prec: 3, Game: 7, Model: runs},
		{Name: "b", Label: "b", Prec: 3, Game: 9.5, Model: runs},
		{Name: "c", Label: "c", Prec: 3, Game: math.NaN(), Model: runs},
	}}
	r.judge()
	half := 0.975 * math.Sqrt(2/(1-0.975*0.975)) * math.Sqrt(4.0/3)
	if r.Known() != 2 || r.Level != 0.975 || math.Abs(r.Figures[0].Hi-(2+half)) > 1e-9 || math.Abs(half-7.1653) > 1e-4 {
		t.Fatalf("k %d level %v, a's interval [%v, %v]; want k 2, level 0.975, 2 ± %v", r.Known(), r.Level, r.Figures[0].Lo, r.Figures[0].Hi, half)
	}
	if !r.Figures[0].Inside || r.Figures[1].Inside || !r.Figures[2].NoData || r.Inside() {
		t.Errorf("a inside %v (want true), b inside %v (want false), c no data %v, the game inside %v (want false)",
			r.Figures[0].Inside, r.Figures[1].Inside, r.Figures[2].NoData, r.Inside())
	}
	var text strings.Builder
	r.WriteText(&text)
	for _, want := range []string{"model, one run (97.5 %)", "1 of 2 figures inside the model's interval for one run: the game falls outside the model\n(each interval at 97.5 %, so that all 2 hold at once at 95 %: Bonferroni)\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, text.String())
		}
	}
	none := &Result{Game: &Game{Name: "none.jlrec"}, Figures: []Figure{{Name: "c", Label: "c", Game: math.NaN(), Model: runs}}}
	none.judge()
	text.Reset()
	none.WriteText(&text)
	if none.Inside() || !strings.Contains(text.String(), "no figure has a value in both the game and the model: nothing to judge") {
		t.Errorf("no figure with data: inside %v (want false), text:\n%s", none.Inside(), text.String())
	}
	if familyLevel(14) != 1-0.05/14 || familyLevel(1) != 0.95 || familyLevel(0) != 0.95 {
		t.Errorf("familyLevel: 14 %v, 1 %v, 0 %v", familyLevel(14), familyLevel(1), familyLevel(0))
	}
}

// Why the rule is family-wise: games drawn from the model itself, 14
// independent normal figures beside 20 runs each, 4000 times. Judged
// figure by figure at 95 %, about half of these honest games have a
// figure outside (1 − 0.95^14 = 51 %); at the family-wise level at most 5
// % do (1 − (1 − 0.05/14)^14 = 4.9 %; the bounds are ±4 binomial standard
// errors).
func TestFamilyWiseRuleFailsFewHonestGames(t *testing.T) {
	const k, n, games = 14, 20, 4000
	r := rand.New(rand.NewPCG(1, 2))
	outside := func(level float64) float64 {
		bad := 0
		for range games {
			any := false
			for range k {
				xs := make([]float64, n)
				for i := range xs {
					xs[i] = r.NormFloat64()
				}
				if _, _, in, _, _ := oneRun(stats.Mean(xs), r.NormFloat64(), 9, level); !in {
					any = true
				}
			}
			if any {
				bad++
			}
		}
		return float64(bad) / games
	}
	se := math.Sqrt(0.05 * 0.95 / games)
	if got := outside(familyLevel(k)); got > 0.049+4*se || got < 0.049-4*se {
		t.Errorf("family-wise: %.3f of honest games outside, want 0.049 ± %.3f", got, 4*se)
	}
	if got := outside(0.95); got < 0.4 {
		t.Errorf("figure by figure at 95 %%: %.3f of honest games outside, want about 0.51", got)
	}
}

// Load takes proxy recordings with telemetry: a session recording, or a
// proxy recording without frames, is refused in one line; a client's own
// setting is listed as not modelled; a change before the game's first
// frame is its starting link.
func TestLoadRefusesAndNotes(t *testing.T) {
	var buf bytes.Buffer
	w, _ := recordings.NewWriter(&buf, recordings.Header{Kind: recordings.KindProxy})
	w.Close(recordings.End{})
	r, _ := recordings.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if _, err := Load(r, "empty.jlrec", lab.DefaultConfig()); err == nil || !strings.Contains(err.Error(), "empty.jlrec holds 0 telemetry frames: record the game with lab proxy --telemetry") {
		t.Errorf("no telemetry: %v", err)
	}
	buf.Reset()
	w, _ = recordings.NewWriter(&buf, recordings.Header{})
	w.Close(recordings.End{})
	r, _ = recordings.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if _, err := Load(r, "s.jlrec", lab.DefaultConfig()); err == nil || !strings.Contains(err.Error(), "s.jlrec is a session recording") {
		t.Errorf("a session recording: %v", err)
	}
	cfg := lab.DefaultConfig()
	cfg.Duration = 5 * time.Second
	r = record(t, cfg, nil, []recordings.Change{{At: 0, Key: "up.latency", Value: "30ms"}, {At: sim.Time(time.Second), Key: "client 127.0.0.1:5000 up.loss", Value: "10%"},
		{At: sim.Time(2 * time.Second), Key: "up.jitter", Value: "5ms"}})
	g, err := Load(r, "r.jlrec", lab.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if g.Config.Up.Latency != 30*time.Millisecond || len(g.Changes) != 1 || g.Changes[0].Key != "up.jitter" || g.Changes[0].At != sim.Time(2*time.Second) ||
		len(g.Ignored) != 1 || g.Ignored[0] != "client 127.0.0.1:5000 up.loss = 10%" {
		t.Errorf("config up.latency %v, changes %+v, ignored %q", g.Config.Up.Latency, g.Changes, g.Ignored)
	}
}
