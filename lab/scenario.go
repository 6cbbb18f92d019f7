package lab

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

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
	changes, dropped, err := TimelineOf(sc, s.cfg.Duration)
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

// Overridden lists what sc.Pinned drops from a run of dur, as
// [Unpinned] says it: what every command's header shows as "timeline
// entries overridden by --set".
func Overridden(sc *scenarios.Scenario, dur time.Duration) ([]string, error) {
	_, dropped, err := TimelineOf(sc, dur)
	return dropped, err
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

// pinned reports whether the pins hold key: the key itself, or link.X
// for up.X and down.X.
func pinned(pins []string, key string) bool {
	for _, p := range pins {
		if p == key || (isDirKey(key) && p == "link."+key[strings.IndexByte(key, '.')+1:]) {
			return true
		}
	}
	return false
}

func isDirKey(key string) bool {
	return strings.HasPrefix(key, "up.") || strings.HasPrefix(key, "down.")
}

// Unpinned returns the changes without their assignments to pinned keys
// (a link.X change of which one direction is pinned keeps the other
// direction's half), and what it dropped, per key in order of first drop:
// "AT key=value" each for up to three changes, "key: N changes AT1 … ATn"
// for more (an oscillator makes thousands). Changes left with no assignment are left out.
func Unpinned(pins []string, changes []scenarios.Change) (keep []scenarios.Change, dropped []string) {
	type drop struct {
		first, last time.Duration
		each        []string // the first three, "AT key=value"
		n           int
	}
	var order []string
	drops := map[string]*drop{}
	note := func(at time.Duration, key, value string) {
		d, ok := drops[key]
		if !ok {
			d = &drop{first: at}
			drops[key] = d
			order = append(order, key)
		}
		d.n, d.last = d.n+1, at
		if d.n <= 3 {
			d.each = append(d.each, fmt.Sprintf("%v %s=%s", at, key, value))
		}
	}
	for _, ch := range changes {
		var set []scenarios.Assignment
		for _, a := range ch.Set {
			x, isLink := strings.CutPrefix(a.Key, "link.")
			switch {
			case pinned(pins, a.Key):
				note(ch.At, a.Key, a.Value)
			case isLink && (pinned(pins, "up."+x) || pinned(pins, "down."+x)):
				for _, dir := range []string{"up.", "down."} {
					if pinned(pins, dir+x) {
						note(ch.At, dir+x, a.Value)
					} else {
						set = append(set, scenarios.Assignment{Key: dir + x, Value: a.Value, Line: a.Line})
					}
				}
			default:
				set = append(set, a)
			}
		}
		if len(set) > 0 {
			ch.Set = set
			keep = append(keep, ch)
		}
	}
	dropped = []string{}
	for _, k := range order {
		d := drops[k]
		if d.n <= 3 {
			dropped = append(dropped, d.each...)
		} else {
			dropped = append(dropped, fmt.Sprintf("%s: %d changes %v … %v", k, d.n, d.first, d.last))
		}
	}
	return keep, dropped
}

// TimelineOf is what [Session.ScheduleTimeline] schedules for a run of
// length until: the scenario's timeline and the changes its oscillators
// and flaps make up to until, in time order (at one time, the timeline's
// first, then the generated ones in their order), without the assignments
// to keys sc.Pinned pins, which it lists in dropped ([Unpinned]). The proxy
// schedules the same changes in wall time.
func TimelineOf(sc *scenarios.Scenario, until time.Duration) (changes []scenarios.Change, dropped []string, err error) {
	gen, err := sc.Generated(until)
	if err != nil {
		return nil, nil, err
	}
	all := slices.Concat(sc.Timeline, gen)
	slices.SortStableFunc(all, func(a, b scenarios.Change) int { return cmp.Compare(a.At, b.At) })
	changes, dropped = Unpinned(sc.Pinned, all)
	return changes, dropped, nil
}

// Builtins parses every built-in scenario.
func Builtins() ([]*scenarios.Scenario, error) { return scenarios.Builtins(CheckAssignment) }
