package batch

import (
	"fmt"
	"strings"

	"jitterlab/diagnose"
	"jitterlab/lab"
	"jitterlab/sim"
	"jitterlab/stats"
)

// MaxTimelines bounds the arms whose timelines a report draws (the first
// ones): more lines in one chart are unreadable.
const MaxTimelines = 8

// Timelines are the representative seed's timelines of the first arms.
type Timelines struct {
	Seed   uint64
	Series []diagnose.Series // one per arm, at most MaxTimelines
	Band   int               // the first arm's dead band (ticks)
	SnapM  float64           // the first arm's snap distance
}

// Timelines runs the result's representative seed again on the first
// MaxTimelines arms and keeps their timelines, in parallel; the result
// does not depend on workers.
func (p *Plan) Timelines(r *Result, workers int) (*Timelines, error) {
	seed := p.Def.Seeds[r.Representative()]
	arms := min(len(p.Configs), MaxTimelines)
	series, err := stats.Parallel(arms, workers, func(a int) (diagnose.Series, error) {
		cfg := p.Configs[a]
		cfg.Seed = seed
		s, err := lab.New(cfg, 0)
		if err != nil {
			return diagnose.Series{}, err
		}
		sc, err := p.ScenarioOf(a)
		if err != nil {
			return diagnose.Series{}, err
		}
		if sc != nil {
			if err := s.ScheduleTimeline(sc); err != nil {
				return diagnose.Series{}, err
			}
		}
		var ser diagnose.Series
		ser.Record(s, cfg.Duration)
		if err := s.Run(sim.Time(cfg.Duration)); err != nil {
			return diagnose.Series{}, fmt.Errorf("%s seed %d: %w", strings.Join(p.Def.Arms()[a], " "), seed, err)
		}
		return ser, nil
	})
	if err != nil {
		return nil, err
	}
	return &Timelines{Seed: seed, Series: series, Band: p.Configs[0].Client.Band, SnapM: p.Configs[0].Client.Snap}, nil
}
