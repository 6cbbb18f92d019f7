package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"jitterlab/lab"
	"jitterlab/netem"
	"jitterlab/scenarios"
)

// Timeline mechanisms are what the scenario's timeline does to the link at
// known times: a blackout (a stretch in which a direction loses every
// packet), periodic latency steps (an oscillator on a latency key, as
// starlink's every 15 s). Their cost is measured, not asserted: the
// reference against the same runs with the mechanism taken out of the
// timeline and nothing else changed, seed by seed. What helps is measured
// the same way: each candidate change on the reference and on the runs
// without the mechanism; what it does with the mechanism and not without
// it is what it does against it.

// The pseudo-settings of the arms without a mechanism.
const withoutBlackouts = "(without the blackouts)"

// span is a stretch of the run, [from, to).
type span struct{ from, to time.Duration }

// dead reports whether a direction loses every packet.
func dead(p *netem.Params) bool { return p.Blackout || p.Loss >= 1 }

// blackouts are the stretches of the run in which a direction of the link
// loses every packet (loss 100 % or blackout = true, from the timeline and
// the flaps), without the changes to pinned keys.
func (d *diag) blackouts() ([]span, error) {
	sc := d.scenario(nil)
	if sc == nil {
		return nil, nil
	}
	changes, _, err := lab.TimelineOf(sc, d.o.Base.Duration)
	if err != nil {
		return nil, err
	}
	cfg := d.o.Base
	isDead := func() bool { return dead(&cfg.Up) || dead(&cfg.Down) }
	var out []span
	var from time.Duration
	in := isDead()
	for i := 0; i < len(changes); {
		at := changes[i].At
		for ; i < len(changes) && changes[i].At == at; i++ {
			for _, a := range changes[i].Set {
				if err := lab.Set(&cfg, a.Key, a.Value); err != nil {
					return nil, err
				}
			}
		}
		switch now := isDead(); {
		case now && !in:
			from, in = at, true
		case !now && in:
			out = append(out, span{from, at})
			in = false
		}
	}
	if in {
		out = append(out, span{from, d.o.Base.Duration})
	}
	return out, nil
}

// stripBlackouts is sc without its blackouts: no flaps, every timeline
// assignment of 100 % loss replaced by the loss in force before it (per
// direction), every blackout = true by false. Nothing else changes.
func stripBlackouts(sc *scenarios.Scenario, base *lab.Config) *scenarios.Scenario {
	out := *sc
	out.Flaps = nil
	out.Timeline = nil
	live := map[string]string{}
	for _, dir := range []string{"up", "down"} {
		p, _ := lab.Lookup(dir + ".loss")
		live[dir] = p.Get(base)
	}
	for _, ch := range sc.Timeline {
		var set []scenarios.Assignment
		for _, a := range ch.Set {
			dir, name, _ := strings.Cut(a.Key, ".")
			dirs := []string{dir}
			if dir == "link" {
				dirs = []string{"up", "down"}
			}
			switch name {
			case "loss":
				scratch := lab.DefaultConfig()
				if lab.Set(&scratch, "up.loss", a.Value) != nil || scratch.Up.Loss < 1 {
					for _, x := range dirs {
						live[x] = a.Value
					}
					set = append(set, a)
					continue
				}
				for _, x := range dirs {
					set = append(set, scenarios.Assignment{Key: x + ".loss", Value: live[x], Line: a.Line})
				}
			case "blackout":
				if b, err := strconv.ParseBool(a.Value); err == nil && b {
					a.Value = "false"
				}
				set = append(set, a)
			default:
				set = append(set, a)
			}
		}
		ch.Set = set
		out.Timeline = append(out.Timeline, ch)
	}
	return &out
}

// mechanism is a timeline mechanism found in the reference.
type mechanism struct {
	rule  string
	strip string // the pseudo-setting of the arm without it
	// what is the sentence's start ("the link lost every packet from …"),
	// without the noun the cost sentence names (name: "the blackout").
	what, name string
	// detail, if not nil, adds a measured detail from the reference and
	// the arm without the mechanism.
	detail func(ref, without *Arm) string
	// extra are the mechanism's own candidate changes, with why each.
	extra, why []string
}

// maxHelpers bounds the registry's changes tried against a mechanism.
const maxHelpers = 3

// mechanisms finds the timeline mechanisms of the reference.
func (d *diag) mechanisms(r *Result) ([]mechanism, error) {
	var ms []mechanism
	bs, err := d.blackouts()
	if err != nil {
		return nil, err
	}
	if len(bs) > 0 {
		ms = append(ms, d.blackoutMechanism(r, bs))
	}
	return ms, nil
}

// extraChanges are the mechanisms' own candidate changes, each once: Run
// tries them on the reference beside the registry's.
func extraChanges(ms []mechanism) [][]string {
	var out [][]string
	for _, m := range ms {
		for _, x := range m.extra {
			if !slices.ContainsFunc(out, func(s []string) bool { return s[0] == x }) {
				out = append(out, []string{x})
			}
		}
	}
	return out
}

// timelineFindings measures every timeline mechanism of the reference.
func (d *diag) timelineFindings(r *Result, ms []mechanism) ([]Finding, error) {
	var fs []Finding
	for _, m := range ms {
		f, err := d.measure(r, m)
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
	}
	return fs, nil
}

func (d *diag) blackoutMechanism(r *Result, bs []span) mechanism {
	var total time.Duration
	var each []string
	for _, b := range bs {
		total += b.to - b.from
		each = append(each, fmt.Sprintf("from %v to %v", b.from, b.to))
	}
	when := strings.Join(each, ", ")
	if len(bs) > 3 {
		when = fmt.Sprintf("%s, %s, … and %s", each[0], each[1], each[len(each)-1])
	}
	noun := "blackout"
	if len(bs) > 1 {
		noun = "blackouts"
	}
	m := mechanism{rule: "blackout", strip: withoutBlackouts, name: "the " + noun,
		what: fmt.Sprintf("the link lost every packet %s (%d %s, %v in all)", when, len(bs), noun, total)}
	snapMax, _ := LookupMetric("snap_distance_max")
	m.detail = func(ref, without *Arm) string {
		return fmt.Sprintf("the largest snap of the visible tank is %s m with the %s and %s m without", ref.Stat(snapMax).Mean.Format(snapMax.Prec),
			noun, without.Stat(snapMax).Mean.Format(snapMax.Prec))
	}
	// A snap threshold above the largest snap: the smoothing absorbs the
	// jump back instead.
	above := (math.Floor(r.Reference.Stat(snapMax).Mean.Hi()/0.5) + 1) * 0.5
	if above > d.o.Base.Client.Snap {
		m.extra = append(m.extra, "client.snap="+strconv.FormatFloat(above, 'g', -1, 64))
		m.why = append(m.why, "a snap threshold above the largest snap")
	}
	return m
}

// measure runs the arm without the mechanism and every candidate change
// on it (its effect on the reference is among r.Changes), and states the
// finding.
func (d *diag) measure(r *Result, m mechanism) (Finding, error) {
	cands := slices.Clone(m.extra)
	why := slices.Clone(m.why)
	for _, c := range r.Changes {
		if len(cands) >= len(m.extra)+maxHelpers {
			break
		}
		if c.SameAs == "" && c.Primary.Significant && c.Primary.Mean < 0 && !slices.Contains(cands, c.Set) {
			cands = append(cands, c.Set)
			why = append(why, "")
		}
	}
	sets := [][]string{{m.strip}}
	for _, c := range cands {
		sets = append(sets, []string{m.strip, c})
	}
	arms, err := d.runArms(sets)
	if err != nil {
		return Finding{}, err
	}
	without := arms[0]
	p := d.primary
	f := Finding{Rule: m.rule, Better: []string{}, Worse: []string{}, Cost: d.diff(without, r.Reference, p)}
	f.Problem = f.Cost.Significant && f.Cost.Mean > 0
	text := fmt.Sprintf("%s; %s costs %s %s %s (the reference against the same runs without it, seed by seed)",
		m.what, m.name, p.Label, plain(f.Cost, p.Prec), p.Unit)
	if m.detail != nil {
		text = fmt.Sprintf("%s; %s", text, m.detail(r.Reference, without))
	}
	var said []string
	var fixes []Change
	for i, set := range cands {
		j := slices.IndexFunc(r.Changes, func(c Change) bool { return c.Set == set })
		if j < 0 {
			continue // not tried on the reference (a value the registry refuses)
		}
		c := r.Changes[j]
		fixes = append(fixes, c)
		off := d.diff(without, arms[1+i], p)
		s := set
		if why[i] != "" {
			s += " (" + why[i] + ")"
		}
		said = append(said, fmt.Sprintf("%s changes %s by %s %s with %s and by %s %s without %s", s, p.Label,
			plain(c.Primary, p.Prec), p.Unit, m.name, plain(off, p.Prec), p.Unit, m.name))
	}
	if len(said) == 0 {
		text += fmt.Sprintf("; no change diagnose tried improves %s significantly", p.Label)
	} else {
		text += "; " + strings.Join(said, "; ")
		// The change: the one that improves the primary most.
		c := slices.MinFunc(fixes, func(a, b Change) int { return cmpTol(a.Primary.Mean, b.Primary.Mean) })
		f.Fix, f.FixPrimary, f.FixTie, f.Better, f.Worse = c.Set, c.Primary, c.TieBreak, c.Better, c.Worse
	}
	f.Text = text
	return f, nil
}
