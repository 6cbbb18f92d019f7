package check

import (
	"fmt"
	"math"
	"strings"
	"time"

	"jitterlab/lab"
	"jitterlab/stats"
)

// GameRun is one run of a real game through lab proxy --telemetry, whose
// report card a gate judges ([LoadGame], [GameReport]): how many frames
// the card counts and the relay's wall time.
type GameRun struct {
	Frames uint64
	Wall   time.Duration
}

// LoadGame reads a gate for one run of a real game (lab proxy --check):
// its [[assert]] entries, each checked as [Load] checks them, and refused
// when the game's report card cannot give its figure: a figure telemetry
// does not carry ([lab.NotInTelemetry], with the reason), a figure not on
// the report card (the model's summary, the link's counters), and
// max_worse (a baseline's figures are the model's, per seed: one run of
// a game pairs with none). The file's seeds, link and timeline are not
// the run's: the run's link is lab proxy's own (--scenario, --set).
func LoadGame(file string) (*Gate, error) {
	sc, err := loadAsserting(file)
	if err != nil {
		return nil, err
	}
	g := &Gate{File: file, Scenario: sc, Config: lab.DefaultConfig(), Game: &GameRun{}}
	for _, a := range sc.Asserts {
		m, err := metricNamed(a.Metric)
		if err == nil {
			err = onGameCard(m.Name)
		}
		if err != nil {
			return nil, inputErr("%s:%d: %v", file, a.MetricLine, err)
		}
		for _, b := range a.Bounds {
			as := Assertion{File: file, Line: a.Line, Metric: m, Unit: UnitOf(m.Name), Bound: b.Key, Limit: b.Value}
			if b.Key == "max_worse" {
				return nil, inputErr("%s:%d: max_worse on %s: one run of a real game has no baseline to pair with (a baseline holds the model's figures per seed); bound the figure with max", file, b.Line, m.Name)
			}
			if err := as.checkBound(b); err != nil {
				return nil, inputErr("%s:%d: %v", file, b.Line, err)
			}
			g.Asserts = append(g.Asserts, as)
		}
	}
	return g, nil
}

// onGameCard refuses a figure the game's report card cannot give.
func onGameCard(name string) error {
	if why := lab.NotInTelemetry[name]; why != "" {
		return fmt.Errorf("metric %q: a game's telemetry cannot give it: %s (lab check gates it on the model)", name, why)
	}
	var allowed []string
	for _, m := range lab.CardMetrics {
		if m.Name == name {
			return nil
		}
		if lab.NotInTelemetry[m.Name] == "" {
			allowed = append(allowed, m.Name)
		}
	}
	return fmt.Errorf("metric %q: not on the report card, which is what a proxy run's gate judges (the game's, from its telemetry); allowed %s", name, strings.Join(allowed, ", "))
}

// GameRule is how a gate judges one run of a real game, as the text
// report says it.
const GameRule = "one run of a real game has no seeds and no interval: a bound passes when the run's figure is within it (on it included), fails when past it, and is inconclusive when the run did not measure the figure."

// JudgeOne judges one run's figure v against the bound x: an upper bound
// when upper (max), a lower one otherwise (min). One run has no seeds and
// so no interval: the figure passes when within the bound (on it
// included), fails when past it, and is inconclusive without data (NaN:
// the run did not measure it).
func JudgeOne(v float64, upper bool, x float64) Verdict {
	out := Verdict{Interval: stats.Interval{N: 1, Mean: v, SD: math.NaN()}}
	switch {
	case math.IsNaN(v):
		out.Status, out.NoData = Inconclusive, 1
	case (upper && v <= x) || (!upper && v >= x):
		out.Status = Pass
	default:
		out.Status = Fail
	}
	return out
}

// GameReport judges every assertion of g, a gate from [LoadGame], on the
// report card of one run of a real game ([JudgeOne]); version names the
// build that judged it.
func GameReport(g *Gate, card *lab.ReportCard, run GameRun, strict bool, version string) *Report {
	g.Game = &run
	rep := &Report{Gates: []*Gate{g}, Strict: strict, Version: version}
	for _, a := range g.Asserts {
		v := math.NaN()
		for _, m := range lab.CardMetrics {
			if m.Name == a.Metric.Name {
				v = m.Get(card)
			}
		}
		rep.Results = append(rep.Results, Result{Gate: g, Assertion: a, Verdict: JudgeOne(v, a.Upper(), a.Limit)})
	}
	return rep
}

// runText says what a gate of one game run judged: "one proxy run of
// 30.0s, 1733 frames counted".
func (r *GameRun) runText() string {
	return fmt.Sprintf("one proxy run of %.1fs, %d frames counted", r.Wall.Seconds(), r.Frames)
}
