package lab

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"jitterlab/scenarios"
	"jitterlab/sim"
)

// LoadScenario reads a built-in scenario or a TOML file, checking every key
// and value against the registry.
func LoadScenario(nameOrFile string) (*scenarios.Scenario, error) {
	return scenarios.Load(nameOrFile, CheckAssignment)
}

// ApplyScenario sets the scenario's parameters, script, duration and seed
// on cfg, in file order, then checks the whole configuration. The timeline
// is scheduled by [Session.ScheduleTimeline].
func ApplyScenario(cfg *Config, sc *scenarios.Scenario) error {
	next := *cfg
	for _, a := range sc.Params {
		p, ok := Lookup(a.Key)
		if !ok {
			return fmt.Errorf("%s:%d: %w", sc.File, a.Line, &UnknownKeyError{Key: a.Key, Similar: similarKeys(a.Key)})
		}
		if err := p.Set(&next, a.Value); err != nil {
			return fmt.Errorf("%s:%d: %w", sc.File, a.Line, err)
		}
	}
	switch {
	case len(sc.Segments) > 0:
		next.Script, next.Segments = "custom", sc.Segments
	case sc.Script != "":
		next.Script, next.Segments = sc.Script, nil
	}
	if sc.Duration > 0 {
		next.Duration = sc.Duration
	}
	if sc.HasSeed {
		next.Seed = sc.Seed
	}
	if err := next.Validate(); err != nil {
		return fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	for _, ch := range sc.Timeline {
		if ch.At > next.Duration {
			whose := fmt.Sprintf("the scenario's duration %v", next.Duration)
			if sc.Duration == 0 {
				whose = fmt.Sprintf("the run's duration %v (the scenario sets none)", next.Duration)
			}
			return fmt.Errorf("%s:%d: timeline entry at %v is after %s: it would never apply", ch.File, ch.Line, ch.At, whose)
		}
	}
	*cfg = next
	return nil
}

// ScheduleTimeline schedules the scenario's timeline of changes, and the
// changes its oscillators and flaps make over the run.
func (s *Session) ScheduleTimeline(sc *scenarios.Scenario) error {
	changes, err := TimelineOf(sc, s.cfg.Duration)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		for _, a := range ch.Set {
			if err := s.Schedule(sim.Time(ch.At), a.Key, a.Value); err != nil {
				return fmt.Errorf("%s:%d: %w", ch.File, a.Line, err)
			}
		}
	}
	return nil
}

// TimelineOf is what [Session.ScheduleTimeline] schedules for a run of
// length until: the scenario's timeline and the changes its oscillators
// and flaps make up to until, in time order (at one time, the timeline's
// first, then the generated ones in their order). The proxy schedules the
// same changes in wall time.
func TimelineOf(sc *scenarios.Scenario, until time.Duration) ([]scenarios.Change, error) {
	gen, err := sc.Generated(until)
	if err != nil {
		return nil, err
	}
	all := slices.Concat(sc.Timeline, gen)
	slices.SortStableFunc(all, func(a, b scenarios.Change) int { return cmp.Compare(a.At, b.At) })
	return all, nil
}

// Builtins parses every built-in scenario.
func Builtins() ([]*scenarios.Scenario, error) { return scenarios.Builtins(CheckAssignment) }
