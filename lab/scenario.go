package lab

import (
	"fmt"

	"jitterlab/scenarios"
	"jitterlab/sim"
)

// LoadScenario reads a built-in scenario or a TOML file, checking every key
// and value against the registry.
func LoadScenario(nameOrFile string) (*scenarios.Scenario, error) {
	return scenarios.Load(nameOrFile, CheckAssignment)
}

// ParseScenario parses a scenario's TOML text as [LoadScenario] reads a
// file and applies it to the defaults ([ApplyScenario]): nil when 'lab run
// --scenario FILE' would load it.
func ParseScenario(file string, text []byte) (*scenarios.Scenario, error) {
	sc, err := scenarios.Parse(file, text, CheckAssignment)
	if err != nil {
		return nil, err
	}
	cfg := DefaultConfig()
	if err := ApplyScenario(&cfg, sc); err != nil {
		return nil, err
	}
	return sc, nil
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
// changes its oscillators and flaps make over the run, without the changes
// to the keys sc.Pinned pins ([Unpinned]); [Session.Summary] lists those
// it dropped. Every command that runs a scenario schedules it through here.
// A session schedules one scenario's timeline, once.
func (s *Session) ScheduleTimeline(sc *scenarios.Scenario) error {
	if s.scenario != nil {
		return fmt.Errorf("the session already runs the timeline of %s", s.scenario.Name)
	}
	changes, dropped, err := scenarios.TimelineOf(sc, s.cfg.Duration)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		for _, a := range ch.Set {
			if err := s.schedule(sim.Time(ch.At), a.Key, a.Value); err != nil {
				return fmt.Errorf("%s:%d: %w", ch.File, a.Line, err)
			}
		}
	}
	s.scenario = sc
	s.dropped = append(s.dropped, dropped...)
	return nil
}

// Pin is the one rule for overrides: an override (--set key=value) pins its
// key for the whole run. PinKeys are the keys the assignments pin, in order.
func PinKeys(sets []string) ([]string, error) {
	var keys []string
	for _, a := range sets {
		k, _, err := ParseAssignment(a)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// Builtins parses every built-in scenario.
func Builtins() ([]*scenarios.Scenario, error) { return scenarios.Builtins(CheckAssignment) }
