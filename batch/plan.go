package batch

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"jitterlab/lab"
	"jitterlab/scenarios"
)

// ErrInvalid is what every refusal of [Definition.Validate] and [NewPlan]
// is (errors.Is): settings that contradict each other or say nothing, the
// fault of whoever wrote the definition, not of a run.
var ErrInvalid = errors.New("invalid batch definition")

// invalid is a refusal: its text alone, and errors.Is(err, ErrInvalid).
type invalid struct{ err error }

func (e invalid) Error() string        { return e.err.Error() }
func (e invalid) Unwrap() error        { return e.err }
func (e invalid) Is(target error) bool { return target == ErrInvalid }

func refuse(format string, args ...any) error {
	return invalid{fmt.Errorf(format, args...)}
}

// Flag is the command-line flag that gives arm a's settings: --a and --b
// for an A/B, --over for every arm of a sweep. Errors name it.
func (d *Definition) Flag(a int) string {
	if d.Kind == "ab" {
		return [...]string{"a", "b"}[a]
	}
	return "over"
}

// Validate refuses a definition that sets a thing twice or sets what the
// batch itself decides, before any configuration is built:
//   - two axes that set a key in common (link.jitter and up.jitter);
//   - more than MaxRuns runs (arms × seeds);
//   - sim.seed in the overrides or an arm (every run takes its seed from
//     Seeds), sim.duration in an arm (every run lasts DurationS);
//   - an arm that sets one key twice (only the last would count).
//
// Each refusal is one line naming the flag (--set, --a, --b, --over) and
// the value, and is [ErrInvalid].
func (d *Definition) Validate() error {
	for i, a := range d.Axes {
		for _, prev := range d.Axes[:i] {
			if k, ok := SameTarget(prev.Key, a.Key); ok {
				return refuse("--over %s and --over %s set %s twice: name each parameter once, with all its values", prev.Key, a.Key, k)
			}
		}
	}
	if d.Runs() > MaxRuns {
		total := uint64(len(d.Seeds))
		for _, a := range d.Axes {
			total *= uint64(len(a.Values))
		}
		return refuse("--over × --seeds make %d runs; allowed at most %d", total, MaxRuns)
	}
	for _, a := range d.Overrides {
		if k, _, _ := lab.ParseAssignment(a); k == "sim.seed" {
			return refuse("--set %s and --seeds: every run takes its seed from --seeds; write --seeds instead", a)
		}
	}
	for i, sets := range d.Arms() {
		flag := d.Flag(i)
		for _, a := range sets {
			switch k, _, _ := lab.ParseAssignment(a); k {
			case "sim.seed":
				return refuse("--%s %s and --seeds: every run takes its seed from --seeds, the same for all; write --seeds instead", flag, a)
			case "sim.duration":
				return refuse("--%s %s and --duration: every run lasts --duration, the same for all; set it with --duration", flag, a)
			}
		}
		if err := keysOnce(flag, sets); err != nil {
			return err
		}
	}
	return nil
}

// SettingKeys are the registry keys an assignment's key sets: link.X sets
// up.X and down.X.
func SettingKeys(key string) []string {
	if rest, ok := strings.CutPrefix(key, "link."); ok {
		return []string{"up." + rest, "down." + rest}
	}
	return []string{key}
}

// SameTarget reports whether keys a and b set a registry key in common,
// and which.
func SameTarget(a, b string) (string, bool) {
	for _, x := range SettingKeys(a) {
		if slices.Contains(SettingKeys(b), x) {
			return x, true
		}
	}
	return "", false
}

// keysOnce refuses an arm that sets one key twice: only the last would
// count. An assignment that does not parse is left to the arm's
// configuration, which names it.
func keysOnce(flag string, sets []string) error {
	for i, a := range sets {
		ka, _, err := lab.ParseAssignment(a)
		if err != nil {
			continue
		}
		for _, b := range sets[i+1:] {
			kb, _, err := lab.ParseAssignment(b)
			if err != nil {
				continue
			}
			if k, ok := SameTarget(ka, kb); ok {
				return refuse("--%s %q: %s and %s set %s twice: give each key once", flag, strings.Join(sets, " "), a, b, k)
			}
		}
	}
	return nil
}

// NewPlan builds a batch's plan from its definition (Kind, Version,
// Overrides, Seeds and the arms' settings), base and sc: base is the
// configuration every arm starts from (the defaults, the scenario sc, the
// duration and the overrides applied) and sc the scenario whose timeline
// every run follows (nil: none). It fills in the definition's scenario,
// duration, link and the timeline changes the overrides and each arm pin
// away, and builds one configuration per arm: base with the arm's
// settings applied in order.
//
// Besides [Definition.Validate]'s refusals it refuses a sweep value given
// twice (1ms,1ms or 1ms,1000us: two identical columns), an A/B whose arms
// are the same configuration (a variant against itself) and an arm's bad
// setting; each is [ErrInvalid].
func NewPlan(def Definition, base lab.Config, sc *scenarios.Scenario) (*Plan, error) {
	def.Scenario, def.DurationS = "default", base.Duration.Seconds()
	if sc != nil {
		def.Scenario, def.ScenarioFile, def.TimelineChanges = sc.Name, sc.File, len(sc.Timeline)
		var err error
		if def.Overridden, err = scenarios.Overridden(sc, base.Duration); err != nil {
			return nil, err
		}
	}
	def.Link = LinkOf(&base)
	if err := def.Validate(); err != nil {
		return nil, err
	}
	if err := valuesOnce(def.Axes, base); err != nil {
		return nil, err
	}
	p := &Plan{Def: def, Scenario: sc}
	for i, sets := range def.Arms() {
		cfg, err := applied(base, def.Flag(i), sets)
		if err != nil {
			return nil, invalid{err}
		}
		p.Configs = append(p.Configs, cfg)
	}
	var err error
	if p.Def.ArmsOverridden, err = p.ArmsOverridden(); err != nil {
		return nil, err
	}
	if def.Kind == "ab" && reflect.DeepEqual(p.Configs[0], p.Configs[1]) {
		show := func(sets []string) string {
			if len(sets) == 0 {
				return "(none: the scenario as it is)"
			}
			return strings.Join(sets, " ")
		}
		return nil, refuse("--a %s and --b %s give the same settings: an A/B of a variant with itself shows nothing; give B what differs", show(def.A), show(def.B))
	}
	return p, nil
}

// applied is cfg with the assignments sets applied in order, errors
// naming flag.
func applied(cfg lab.Config, flag string, sets []string) (lab.Config, error) {
	for _, a := range sets {
		k, v, err := lab.ParseAssignment(a)
		if err != nil {
			return cfg, fmt.Errorf("--%s: %w", flag, err)
		}
		if err := lab.Set(&cfg, k, v); err != nil {
			return cfg, fmt.Errorf("--%s %s: %w", flag, a, err)
		}
	}
	return cfg, nil
}

// valuesOnce refuses a sweep value given twice (1ms,1ms or 1ms,1000us):
// the table would have two identical columns. A value that does not apply
// is left to its arm, which names it.
func valuesOnce(axes []Axis, base lab.Config) error {
	for _, a := range axes {
		var cfgs []lab.Config
		for i, v := range a.Values {
			cfg, err := applied(base, "over", []string{a.Key + "=" + v})
			if err != nil {
				return nil
			}
			for j, prev := range cfgs {
				if reflect.DeepEqual(prev, cfg) {
					return refuse("--over %s=%s: %s and %s are the same value, given twice: give each value once", a.Key, strings.Join(a.Values, ","), a.Values[j], a.Values[i])
				}
			}
			cfgs = append(cfgs, cfg)
		}
	}
	return nil
}

// Settings are every assignment the definition makes: the overrides (one
// --set each), the arms' settings (--a, --b, several to a flag) and every
// value of every axis as key=value.
func (d *Definition) Settings() []string {
	sets := slices.Clone(d.Overrides)
	for _, s := range slices.Concat(d.A, d.B) {
		sets = append(sets, lab.SplitAssignments(s)...)
	}
	for _, a := range d.Axes {
		for _, v := range a.Values {
			sets = append(sets, a.Key+"="+v)
		}
	}
	return sets
}

// Trusted refuses, unless trust allows it, a definition whose settings
// name a file the runs would open (lab.Trust.Check): a batch's shards are
// someone else's files as far as the lab knows. A setting that does not
// parse is left to the plan, which refuses it.
func (d *Definition) Trusted(trust lab.Trust) error {
	for _, s := range d.Settings() {
		k, v, err := lab.ParseAssignment(s)
		if err != nil {
			continue
		}
		if err := trust.Check("the shards' settings", k, v); err != nil {
			return err
		}
	}
	return nil
}
