package check

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
)

// One run has no interval: its figure against the bound, on it passing,
// past it failing, without data inconclusive.
func TestJudgeOneRunByHand(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name   string
		v      float64
		upper  bool
		bound  float64
		status Status
	}{
		{"max 0.3, 0.2 passes", 0.2, true, 0.3, Pass},
		{"max 0.3, 0.3 passes (on the bound)", 0.3, true, 0.3, Pass},
		{"max 0.3, 0.31 fails", 0.31, true, 0.3, Fail},
		{"min 4, 5 passes", 5, false, 4, Pass},
		{"min 4, 4 passes (on the bound)", 4, false, 4, Pass},
		{"min 4, 3.9 fails", 3.9, false, 4, Fail},
		{"max 0.1 on a signed figure, -0.05 passes", -0.05, true, 0.1, Pass},
		{"max 0.3, no data is inconclusive", nan, true, 0.3, Inconclusive},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := JudgeOne(c.v, c.upper, c.bound)
			if v.Status != c.status || v.Interval.N != 1 || v.Interval.Half != 0 || (v.NoData == 1) != math.IsNaN(c.v) {
				t.Fatalf("%+v; want %v, one value, no interval", v, c.status)
			}
		})
	}
}

// A gate on one game run refuses at load what the game's report card
// cannot give, naming the figure and why: a figure telemetry does not
// carry, a figure not on the card, max_worse; a typo gets its suggestion.
func TestLoadGameRefusesWhatTheGamesCardCannotGive(t *testing.T) {
	for _, c := range []struct{ metric, bound, want string }{
		{"corrections_1_to_10cm_per_min", "max = 3", `:5: metric "corrections_1_to_10cm_per_min": a game's telemetry cannot give it: what reconciliation corrected happens inside the client`},
		{"server_input_delay_p95_ms", "max = 200", `:5: metric "server_input_delay_p95_ms": a game's telemetry cannot give it: what the server did with each input sample happens inside the server`},
		{"rtt_p50_ms", "max = 200", `:5: metric "rtt_p50_ms": not on the report card, which is what a proxy run's gate judges (the game's, from its telemetry); allowed progress_deficit_mps, `},
		{"up_lost", "max = 2", `:5: metric "up_lost": not on the report card`},
		{"judder_mps", "max_worse = 0.02", `:6: max_worse on judder_mps: one run of a real game has no baseline to pair with`},
		{"juder_mps", "max = 1", `:5: metric "juder_mps": no such figure; did you mean judder_mps?`},
		{"judder_mps", `max = "300ms"`, `:6: max = "300ms" on judder_mps: the figure is in m/s, not ms`},
	} {
		t.Run(c.metric+" "+c.bound, func(t *testing.T) {
			p := gateFile(t, "g.toml", "seeds = \"1-20\"\nlink.latency = \"40ms\"\n\n[[assert]]\nmetric = \""+c.metric+"\"\n"+c.bound+"\n")
			_, err := LoadGame(p)
			if err == nil || !IsInput(err) || !strings.Contains(err.Error(), p+c.want) {
				t.Fatalf("error %v; want bad input %q", err, p+c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is more than one line: %q", err)
			}
		})
	}
	// The figures the card carries load, whatever the file's seeds.
	p := gateFile(t, "g.toml", "seeds = \"1-20\"\n[[assert]]\nmetric = \"judder_mps\"\nmax = \"0.3m/s\"\n[[assert]]\nmetric = \"visible_lag_p99_ms\"\nmax = 120\nmin = 0\n")
	g, err := LoadGame(p)
	if err != nil || len(g.Asserts) != 3 || g.Game == nil {
		t.Fatalf("gate %+v, %v; want three assertions on a game run", g, err)
	}
}

// A constructed card against bounds whose verdicts are known by hand:
// judder 0.25 ≤ 0.3 passes, visible lag p99 140 ≤ 120 fails, local
// response p50 without data is inconclusive, snaps 2.0/min ≥ 1 passes;
// the check fails (exit 3 for lab proxy as for lab check), and every
// output says it is one run with no interval.
func TestGameReportByHand(t *testing.T) {
	p := gateFile(t, "game.toml", `[[assert]]
metric = "judder_mps"
max = 0.3

[[assert]]
metric = "visible_lag_p99_ms"
max = "120ms"

[[assert]]
metric = "local_response_p50_ms"
max = 100

[[assert]]
metric = "snaps_per_min"
min = 1
`)
	g, err := LoadGame(p)
	if err != nil {
		t.Fatal(err)
	}
	card := lab.TelemetryCard(&lab.Config{}, nil) // every figure NaN
	card.JudderMPS, card.VisibleLagMs.P99, card.SnapsPerMin = 0.25, 140, 2
	rep := GameReport(g, &card, GameRun{Frames: 1733, Wall: 30 * time.Second}, false, "test")
	var got []Status
	for _, x := range rep.Results {
		got = append(got, x.Status)
	}
	if want := []Status{Pass, Fail, Inconclusive, Pass}; !slices.Equal(got, want) {
		t.Fatalf("verdicts %v; want %v", got, want)
	}
	if rep.Status() != Fail {
		t.Errorf("the check's status %v; want fail", rep.Status())
	}
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		p + ": the game's report card, one proxy run of 30.0s, 1733 frames counted\n",
		"  judder_mps ≤ 0.3 m/s                           0.250 m/s                  pass\n",
		"  visible_lag_p99_ms ≤ 120 ms                    140.0 ms                   FAIL\n",
		"  local_response_p50_ms ≤ 100 ms                 -                          inconclusive: no data: the run's frames did not measure it\n",
		GameRule + "\n",
		"1 scenario, 4 assertions: 2 pass, 1 fail, 1 inconclusive; check FAILED\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "±") || strings.Contains(text.String(), " seeds (") {
		t.Errorf("one run's text speaks of seeds or intervals:\n%s", text.String())
	}
	if m := rep.Message(&rep.Results[1]); !strings.Contains(m, "visible_lag_p99_ms ≤ 120 ms: 140.0 ms in one proxy run of 30.0s, 1733 frames counted (no interval): FAIL") {
		t.Errorf("message %q", m)
	}
	j := rep.JUnit()
	if j.Tests != 4 || j.Failures != 1 || j.Suites[0].Skipped != 1 || j.Suites[0].Properties[0].Name != "run" {
		t.Errorf("JUnit %+v; want 4 tests, 1 failure, 1 skipped, a run's properties", j)
	}
}
