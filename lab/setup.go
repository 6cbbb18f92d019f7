package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"jitterlab/scenarios"
	"jitterlab/sim"
)

// Setup is all a session's run depends on: the settings it started from,
// its sample period, the scenario whose timeline it schedules and the
// changes scheduled on top (made live, in the lab), in the order they were
// scheduled. Start builds the same session again: the same seed and the
// same changes at the same times give the same samples.
type Setup struct {
	Config   Config
	Every    time.Duration
	Scenario *scenarios.Scenario // nil: no timeline
	Live     []Change
}

// Setup returns what s runs: New's settings and period, the scenario
// [Session.ScheduleTimeline] scheduled and what [Session.Schedule] was given.
func (s *Session) Setup() Setup {
	return Setup{Config: s.initial, Every: s.every, Scenario: s.scenario, Live: slices.Clone(s.live)}
}

// Start builds the session at t 0: [New], the scenario's timeline
// ([Session.ScheduleTimeline]), then the live changes in order; at one
// time a live change applies after the timeline's, as it did live.
func (u Setup) Start() (*Session, error) {
	s, err := New(u.Config, u.Every)
	if err != nil {
		return nil, err
	}
	if u.Scenario != nil {
		if err := s.ScheduleTimeline(u.Scenario); err != nil {
			return nil, err
		}
	}
	for _, c := range u.Live {
		if err := s.Schedule(c.At, c.Key, c.Value); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Rerun builds s again from t 0 ([Setup.Start]), hands it to prepare (to
// set OnSample, OnChange) and runs it to s's time. It fails, rather than
// return another run, unless the rerun has s's summary and changes. The
// lab records a whole session this way.
func Rerun(s *Session, prepare func(twin *Session)) (*Session, error) {
	twin, err := s.Setup().Start()
	if err != nil {
		return nil, err
	}
	prepare(twin)
	if err := twin.Run(s.Now()); err != nil {
		return nil, err
	}
	got, _ := json.Marshal(twin.Summary())
	want, _ := json.Marshal(s.Summary())
	if !bytes.Equal(got, want) || !slices.Equal(twin.Changes(), s.Changes()) {
		return nil, errors.New("re-simulating the session from t 0 did not reproduce it")
	}
	return twin, nil
}

// Edited is the settings the run started from with every live change made
// at t 0, in order: the settings in force without the scenario's timeline.
// A diagnosis of the lab's settings and the B side of its A/B start from
// them, the timeline on top, the keys of [Setup.Overrides] pinned.
func (u Setup) Edited() (Config, error) {
	cfg := u.Config
	for _, c := range u.Live {
		if err := Set(&cfg, c.Key, c.Value); err != nil {
			return cfg, err
		}
	}
	return cfg, cfg.Validate()
}

// Overrides say Edited as 'lab diagnose' takes it: the scenario's name
// ("default" without one) and --set assignments on top of it, in registry
// order, every live key whose value still differs after the ones before it
// are set (link.latency is not repeated after up.latency and
// down.latency). exact is false when they do not build Edited (a key that
// cannot change during a run differs, or the scenario pins a key they do
// not set), seed and duration apart.
func (u Setup) Overrides() (name string, sets []string, exact bool, err error) {
	edited, err := u.Edited()
	if err != nil {
		return "", nil, false, err
	}
	name, ref := "default", DefaultConfig()
	if sc := u.Scenario; sc != nil {
		ref.Duration = u.Config.Duration
		if ApplyScenario(&ref, sc) == nil {
			name = sc.Name
		} else {
			ref = DefaultConfig()
		}
	}
	sets = []string{}
	cur := ref
	for _, p := range Params() {
		if p.Live && p.Get != nil && p.Get(&edited) != p.Get(&cur) {
			if err := p.Set(&cur, p.Get(&edited)); err != nil {
				return "", nil, false, fmt.Errorf("%s: %w", p.Key, err)
			}
			sets = append(sets, p.Key+"="+p.Get(&edited))
		}
	}
	cur.Seed, cur.Duration = edited.Seed, edited.Duration
	exact = cur.Equal(&edited) && (name != "default" || u.Scenario == nil)
	if u.Scenario != nil && exact {
		pins, _ := PinKeys(sets)
		for _, k := range u.Scenario.Pinned {
			exact = exact && scenarios.Pinned(pins, k)
		}
	}
	return name, sets, exact, nil
}

// Follower is a session beside a live one, the lead: from t 0 on the
// lead's [Setup.Edited] settings with its own overrides, the scenario's
// timeline without the keys the lead's [Setup.Overrides], the scenario and
// its own overrides pin ([Unpinned]), and the lead's live changes made
// after it started, at their times, without its own overrides' keys. It is
// the B side of the lab's A/B; with no overrides it is the reference B is
// compared with, as a diagnosis compares its variants.
type Follower struct {
	S    *Session
	Sets []string // its own overrides
	pins []string
	from int // the lead's live changes forwarded (or made before it started)
}

// Follow builds a follower of lead with the overrides sets at t 0 (set its
// OnSample now); [Follower.Catch] runs it to the lead's time.
func Follow(lead *Session, sets []string) (*Follower, error) {
	u := lead.Setup()
	cfg, err := u.Edited()
	if err != nil {
		return nil, err
	}
	for _, kv := range sets {
		k, v, err := ParseAssignment(kv)
		if err != nil {
			return nil, err
		}
		if err := Set(&cfg, k, v); err != nil {
			return nil, err
		}
	}
	pins, err := PinKeys(sets)
	if err != nil {
		return nil, err
	}
	f := &Follower{Sets: sets, pins: pins, from: len(u.Live)}
	if f.S, err = New(cfg, u.Every); err != nil {
		return nil, err
	}
	if u.Scenario != nil {
		_, edits, _, err := u.Overrides()
		if err != nil {
			return nil, err
		}
		leadPins, err := PinKeys(edits)
		if err != nil {
			return nil, err
		}
		sc := *u.Scenario
		sc.Pinned = slices.Concat(sc.Pinned, leadPins, pins)
		if err := f.S.ScheduleTimeline(&sc); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Catch gives the follower the lead's live changes made since it last
// caught up and runs it to the lead's time. The follower is never past a
// change's time: it runs to the lead's time only after each change.
func (f *Follower) Catch(lead *Session) error {
	live := lead.live
	for ; f.from < len(live); f.from++ {
		c := live[f.from]
		keep, _ := scenarios.Unpinned(f.pins, []scenarios.Change{{At: time.Duration(c.At), Set: []scenarios.Assignment{{Key: c.Key, Value: c.Value}}}})
		for _, k := range keep {
			for _, kv := range k.Set {
				if err := f.S.Schedule(sim.Time(k.At), kv.Key, kv.Value); err != nil {
					return err
				}
			}
		}
	}
	return f.S.Run(lead.Now())
}
