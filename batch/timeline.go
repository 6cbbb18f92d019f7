package batch

import (
	"fmt"
	"strings"

	"jitterlab/sim"
)

// MaxTimelines bounds the arms whose timelines a report draws (the first
// ones): more lines in one chart are unreadable.
const MaxTimelines = 8

// Timelines are the representative seed's timelines of the first arms.
type Timelines struct {
	Seed   uint64
	Series []Series // one per arm, at most MaxTimelines
	Band   int      // the first arm's dead band (ticks)
	SnapM  float64  // the first arm's snap distance
}

// Timelines runs the result's representative seed again on the first
// MaxTimelines arms and keeps their timelines, in parallel; the result
// does not depend on workers.
func (p *Plan) Timelines(r *Result, workers int) (*Timelines, error) {
	seed := p.Def.Seeds[r.Representative()]
	arms := min(len(p.Configs), MaxTimelines)
	series, err := Each(&Runner{Workers: workers}, arms, func(w *Worker, a int) (Series, error) {
		w.Config = p.Configs[a]
		w.Config.Seed = seed
		sc, err := p.ScenarioOf(a)
		if err != nil {
			return Series{}, err
		}
		if err := w.Start(sc); err != nil {
			return Series{}, err
		}
		var ser Series
		ser.Record(&w.Session, w.Config.Duration)
		if err := w.Session.Run(sim.Time(w.Config.Duration)); err != nil {
			return Series{}, fmt.Errorf("%s seed %d: %w", strings.Join(p.Def.Arms()[a], " "), seed, err)
		}
		return ser, nil
	})
	if err != nil {
		return nil, err
	}
	return &Timelines{Seed: seed, Series: series, Band: p.Configs[0].Client.Band, SnapM: p.Configs[0].Client.Snap}, nil
}
