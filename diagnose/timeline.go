package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"jitterlab/client"
	"jitterlab/lab"
	"jitterlab/netem"
	"jitterlab/scenarios"
	"jitterlab/stats"
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
const (
	withoutBlackouts    = "(without the blackouts)"
	withoutPeriodic     = "(without the periodic latency)"
	withoutLatencySteps = "(without the latency steps)"
)

// span is a stretch of the run, from and to; for a blackout, up and
// down say which directions lost every packet in it.
type span struct {
	from, to time.Duration
	up, down bool
}

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
	changes, _, err := scenarios.TimelineOf(sc, d.o.Base.Duration)
	if err != nil {
		return nil, err
	}
	cfg := d.o.Base
	isDead := func() bool { return dead(&cfg.Up) || dead(&cfg.Down) }
	var out []span
	var cur span
	in := isDead()
	cur.up, cur.down = dead(&cfg.Up), dead(&cfg.Down)
	for i := 0; i < len(changes); {
		at := changes[i].At
		if at >= d.o.Base.Duration {
			break // a change at the end of the run acts on none of it
		}
		for ; i < len(changes) && changes[i].At == at; i++ {
			for _, a := range changes[i].Set {
				if err := lab.Set(&cfg, a.Key, a.Value); err != nil {
					return nil, err
				}
			}
		}
		switch now := isDead(); {
		case now && !in:
			cur, in = span{from: at}, true
		case !now && in:
			cur.to = at
			out = append(out, cur)
			in = false
		}
		if in {
			cur.up, cur.down = cur.up || dead(&cfg.Up), cur.down || dead(&cfg.Down)
		}
	}
	if in {
		cur.to = d.o.Base.Duration
		out = append(out, cur)
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

// isLatency reports whether key is a direction's or the link's latency.
func isLatency(key string) bool {
	return key == "link.latency" || key == "up.latency" || key == "down.latency"
}

// periodicLatency are the scenario's oscillators on a latency key that the
// overrides leave in force.
func (d *diag) periodicLatency() ([]scenarios.Oscillator, error) {
	sc := d.scenario(nil)
	if sc == nil {
		return nil, nil
	}
	var out []scenarios.Oscillator
	for _, o := range sc.Oscillators {
		if !isLatency(o.Key) {
			continue
		}
		one := scenarios.Scenario{Oscillators: []scenarios.Oscillator{o}}
		gen, err := one.Generated(d.o.Base.Duration)
		if err != nil {
			return nil, err
		}
		// Only the changes before the run ends change any of it.
		gen = slices.DeleteFunc(gen, func(c scenarios.Change) bool { return c.At >= d.o.Base.Duration })
		if keep, _ := scenarios.Unpinned(sc.Pinned, gen); len(keep) > 0 {
			out = append(out, o)
		}
	}
	return out, nil
}

// stripPeriodic is sc without its oscillators on latency keys: the latency
// keeps the value the configuration and the timeline give it.
func stripPeriodic(sc *scenarios.Scenario) *scenarios.Scenario {
	out := *sc
	out.Oscillators = slices.DeleteFunc(slices.Clone(sc.Oscillators), func(o scenarios.Oscillator) bool { return isLatency(o.Key) })
	return &out
}

// mechanism is a timeline mechanism found in the reference.
type mechanism struct {
	rule  string
	strip string // the pseudo-setting of the arm without it
	// what is the sentence's start ("the link lost every packet from …"),
	// without the noun the cost sentence names (name: "the blackout").
	what, name string
	plural     bool // name is plural ("the blackouts")
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
	oscs, err := d.periodicLatency()
	if err != nil {
		return nil, err
	}
	if len(oscs) > 0 {
		ms = append(ms, d.periodicMechanism(oscs))
	}
	if len(d.steps) > 0 {
		ms = append(ms, d.latencyMechanism())
	}
	return ms, nil
}

// latencyStep is one change of a latency key that the timeline makes in
// the run (not an oscillator's: that is periodic latency): the key as the
// timeline names it, and each direction's latency before and after.
type latencyStep struct {
	at       time.Duration
	key      string
	from, to [2]string // up, down
}

// latencySteps are the timeline's changes of a latency key before the run
// ends, without the ones the overrides pin away, in time order.
func (d *diag) latencySteps() ([]latencyStep, error) {
	sc := d.scenario(nil)
	if sc == nil {
		return nil, nil
	}
	keep, _ := scenarios.Unpinned(sc.Pinned, sc.Timeline)
	slices.SortStableFunc(keep, func(a, b scenarios.Change) int { return cmpTol(a.At.Seconds(), b.At.Seconds()) })
	up, _ := lab.Lookup("up.latency")
	down, _ := lab.Lookup("down.latency")
	cfg := d.o.Base
	now := func() [2]string { return [2]string{up.Get(&cfg), down.Get(&cfg)} }
	var out []latencyStep
	for _, ch := range keep {
		if ch.At >= d.o.Base.Duration {
			break // a change at the end of the run acts on none of it
		}
		for _, a := range ch.Set {
			if !isLatency(a.Key) {
				continue
			}
			from := now()
			if err := lab.Set(&cfg, a.Key, a.Value); err != nil {
				return nil, err
			}
			if to := now(); to != from {
				out = append(out, latencyStep{at: ch.At, key: a.Key, from: from, to: to})
			}
		}
	}
	return out, nil
}

// stripLatencySteps is sc without its timeline's assignments to latency
// keys (an entry left with none is dropped): the latency keeps the value
// the configuration gives it. Nothing else changes.
func stripLatencySteps(sc *scenarios.Scenario) *scenarios.Scenario {
	out := *sc
	out.Timeline = nil
	for _, ch := range sc.Timeline {
		ch.Set = slices.DeleteFunc(slices.Clone(ch.Set), func(a scenarios.Assignment) bool { return isLatency(a.Key) })
		if len(ch.Set) > 0 {
			out.Timeline = append(out.Timeline, ch)
		}
	}
	return &out
}

// value is the latency of the directions a step changes: "25ms", or
// "20ms up and 30ms down" when they differ.
func (st latencyStep) value(v [2]string) string {
	switch {
	case st.key == "up.latency":
		return v[0]
	case st.key == "down.latency" || v[0] == v[1]:
		return v[1]
	}
	return v[0] + " up and " + v[1] + " down"
}

// describeSteps says the steps in order; a step that returns its key to
// the value before the step just before it is said as that step's end:
// "link.latency from 25ms to 300ms at 20s, back to 25ms at 22s (a 2s
// spike)". spikes reports whether every step is part of such a pair.
func describeSteps(steps []latencyStep) (text string, spikes bool) {
	var each []string
	spikes = len(steps)%2 == 0
	for i := 0; i < len(steps); i++ {
		st := steps[i]
		s := fmt.Sprintf("%s from %s to %s at %v", st.key, st.value(st.from), st.value(st.to), st.at)
		if i+1 < len(steps) {
			if nx := steps[i+1]; nx.key == st.key && nx.to == st.from && nx.from == st.to {
				s += fmt.Sprintf(", back to %s at %v (a %v spike)", nx.value(nx.to), nx.at, nx.at-st.at)
				i++
				each = append(each, s)
				continue
			}
		}
		spikes = false
		each = append(each, s)
	}
	if len(each) > 3 {
		return fmt.Sprintf("%s; %s; … and %s", each[0], each[1], each[len(each)-1]), spikes
	}
	return strings.Join(each, "; "), spikes
}

// latencyMechanism is the timeline's latency steps: what they cost, and
// what the client did at each (the tick offset before and after, the send
// interval the corrector chose), from every run's marks.
func (d *diag) latencyMechanism() mechanism {
	text, spikes := describeSteps(d.steps)
	noun, n := "step", len(d.steps)
	if spikes {
		noun, n = "spike", len(d.steps)/2
	}
	if n > 1 {
		noun += "s"
	}
	m := mechanism{rule: "latency-step", strip: withoutLatencySteps, name: "the latency " + noun, plural: n > 1,
		what: "the timeline steps the link's latency: " + text}
	// A spike shows in the server input delay's tail; a lasting step moves its
	// level (handover's 100 → 60 ms at 21 s leaves the p99 in the first
	// 21 s either way).
	delay, _ := LookupMetric("server_input_delay_p50_ms")
	name := "p50"
	if spikes {
		delay, _ = LookupMetric("server_input_delay_p99_ms")
		name = "p99"
	}
	m.detail = func(ref, without *Arm) string {
		at := func(i int, f func(t *MarkTrace) float64) stats.Interval {
			var vs []float64
			for _, tr := range ref.Traces {
				if i < len(tr.Marks) {
					vs = append(vs, f(&tr.Marks[i]))
				}
			}
			return stats.Mean(vs)
		}
		var did []string
		for i, t := range d.marks[:min(3, len(d.marks))] {
			before := at(i, func(m *MarkTrace) float64 { return float64(m.Before) })
			extreme := at(i, func(m *MarkTrace) float64 { return float64(m.Extreme) })
			send := at(i, func(m *MarkTrace) float64 { return m.ExtremeSendS })
			s := fmt.Sprintf("at %v the tick offset went from %s to %s (send interval %.3f s)", secs(t), signed(before), signed(extreme), send.Mean)
			if math.Abs(extreme.Mean-before.Mean) < 0.05 {
				s = fmt.Sprintf("at %v the tick offset stayed at %s", secs(t), signed(before))
			}
			if i+1 < len(d.marks) {
				s += fmt.Sprintf(" and was %s at %v", signed(at(i, func(m *MarkTrace) float64 { return float64(m.End) })), secs(d.marks[i+1]))
			}
			did = append(did, s)
		}
		if len(d.marks) > 3 {
			did = append(did, "…")
		}
		finalOffset := func(s *lab.Summary) float64 { return float64(s.FinalOffset) }
		final, off := stats.Mean(runValues(ref, finalOffset)), stats.Mean(runValues(without, finalOffset))
		raised := stats.Paired(runValues(without, finalOffset), runValues(ref, finalOffset))
		text := fmt.Sprintf("server input delay %s %s ms with %s and %s ms without; what the client did: %s; it ends the run at %s (%s without %s)", name,
			ref.Stat(delay).Mean.Format(delay.Prec), m.name, without.Stat(delay).Mean.Format(delay.Prec), strings.Join(did, "; "),
			signed(final), signed(off), m.name)
		// A frozen target: in the second after a step the visible tank
		// stands still more than the same second without the steps.
		frozen := func(a *Arm) []float64 {
			vs := make([]float64, len(a.Traces))
			for i, tr := range a.Traces {
				for _, mk := range tr.Marks {
					vs[i] += mk.FrozenS
				}
			}
			return vs
		}
		if fz := stats.PairedMin(frozen(without), frozen(ref), 0.05); fz.Significant && fz.Mean > 0 {
			text += fmt.Sprintf("; in the second after each %s the visible tank stood still (below a tenth of its move speed) "+
				"for %s s per run in all, %s s without %s: a frozen target while the %s drains", strings.TrimSuffix(noun, "s"),
				stats.Mean(frozen(ref)).Format(2), stats.Mean(frozen(without)).Format(2), m.name, strings.TrimSuffix(noun, "s"))
		}
		// The dead band latched at a fast interval that still sends once
		// per server tick cannot bring an offset the steps raised back
		// (latchRule).
		c := &d.o.Base
		fm, clientHz, serverHz := senderRates(c)
		last := at(len(d.marks)-1, func(m *MarkTrace) float64 { return m.EndSendS })
		if frameSenderRule(d) && c.Client.Corrector == client.Deadband && math.Abs(clientHz-serverHz) <= 1e-9*serverHz &&
			final.Lo() > float64(c.Client.Band) && raised.Significant && raised.Mean > 0 && math.Abs(last.Mean-c.Client.IntervalFast.Seconds()) < 1e-6 {
			text += fmt.Sprintf("; the send interval latched at %.3f s is still one send per %d frames = %.1f Hz, no faster than "+
				"the server's %.1f Hz ticks, so the offset cannot come back into the band (±%d)", c.Client.IntervalFast.Seconds(), fm, clientHz,
				serverHz, c.Client.Band)
		}
		return text
	}
	return m
}

// secs is a time in seconds as a duration: "20s".
func secs(t float64) time.Duration { return time.Duration(math.Round(t * float64(time.Second))) }

// runValues computes f of every run of an arm, in seed order.
func runValues(a *Arm, f func(s *lab.Summary) float64) []float64 {
	vs := make([]float64, len(a.Runs))
	for i := range a.Runs {
		vs[i] = f(&a.Runs[i])
	}
	return vs
}

// extraChanges are the mechanisms' own candidate changes and more, each
// once: Run tries them on the reference beside the registry's.
func extraChanges(ms []mechanism, more ...string) [][]string {
	var all []string
	for _, m := range ms {
		all = append(all, m.extra...)
	}
	var out [][]string
	for _, x := range append(all, more...) {
		if !slices.ContainsFunc(out, func(s []string) bool { return s[0] == x }) {
			out = append(out, []string{x})
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

// blackoutWhat says what the blackouts bs are: which direction lost
// every packet when ("the uplink lost every packet from 15s to 17s (1
// blackout, 2s in all)"). "The link" is both ways; a blackout one way
// among others says which.
func blackoutWhat(bs []span) string {
	var total time.Duration
	var each []string
	oneWay := func(b span) string {
		switch {
		case b.up && !b.down:
			return "uplink"
		case b.down && !b.up:
			return "downlink"
		}
		return ""
	}
	who := oneWay(bs[0])
	for _, b := range bs {
		if oneWay(b) != who {
			who = ""
		}
	}
	for _, b := range bs {
		total += b.to - b.from
		s := fmt.Sprintf("from %v to %v", b.from, b.to)
		if w := oneWay(b); who == "" && w != "" {
			s += " (the " + w + " only)"
		}
		each = append(each, s)
	}
	if who == "" {
		who = "link"
	}
	when := strings.Join(each, ", ")
	if len(bs) > 3 {
		when = fmt.Sprintf("%s, %s, … and %s", each[0], each[1], each[len(each)-1])
	}
	return fmt.Sprintf("the %s lost every packet %s (%d blackout%s, %v in all)", who, when, len(bs), plural(len(bs)), total)
}

func (d *diag) blackoutMechanism(r *Result, bs []span) mechanism {
	noun := "blackout" + plural(len(bs))
	m := mechanism{rule: "blackout", strip: withoutBlackouts, name: "the " + noun, plural: len(bs) > 1, what: blackoutWhat(bs)}
	snapMax, _ := LookupMetric("snap_distance_max_m")
	largest, above, ok := d.snapAbove(r.Reference)
	m.detail = func(ref, without *Arm) string {
		return fmt.Sprintf("the largest snap of the visible tank is %s m per seed (%.3f m at most) with the %s and %s m without",
			ref.Stat(snapMax).Mean.Format(snapMax.Prec), largest, noun, without.Stat(snapMax).Mean.Format(snapMax.Prec))
	}
	if ok {
		m.extra = append(m.extra, above)
		m.why = append(m.why, "a snap threshold above the largest snap")
	}
	return m
}

// snapAbove is the largest snap of the reference on any seed, and a snap
// threshold above it, in steps of 0.5 m (the smoothing absorbs the jump
// instead): "client.snap=2.5", and whether it is above the threshold in
// force.
func (d *diag) snapAbove(ref *Arm) (largest float64, set string, ok bool) {
	snapMax, _ := LookupMetric("snap_distance_max_m")
	for _, v := range ref.Stat(snapMax).PerSeed {
		if !math.IsNaN(v) {
			largest = max(largest, v)
		}
	}
	above := (math.Floor(largest/0.5) + 1) * 0.5
	return largest, "client.snap=" + strconv.FormatFloat(above, 'g', -1, 64), largest > 0 && above > d.o.Base.Client.Snap
}

func (d *diag) periodicMechanism(os []scenarios.Oscillator) mechanism {
	var each, held []string
	for _, o := range os {
		n := 0 // the periods that start before the run ends
		if o.Start < d.o.Base.Duration {
			n = int((d.o.Base.Duration - o.Start + o.Period - 1) / o.Period)
		}
		// The key it steps: a link.X oscillator with one direction
		// pinned steps the other direction only.
		name, key := o.Key, o.Key
		if x, ok := strings.CutPrefix(o.Key, "link."); ok {
			key = "up." + x
			one := scenarios.Scenario{Oscillators: []scenarios.Oscillator{o}}
			if gen, err := one.Generated(d.o.Base.Duration); err == nil {
				if keep, _ := scenarios.Unpinned(d.pins(nil), gen); len(keep) > 0 && len(keep[0].Set) == 1 {
					if k := keep[0].Set[0].Key; k != o.Key {
						name, key = k, k
					}
				}
			}
		}
		p, _ := lab.Lookup(key)
		held = append(held, fmt.Sprintf("%s held at %s", name, p.Get(&d.o.Base)))
		s := "s"
		if n == 1 {
			s = ""
		}
		if o.Shape == "square" {
			high := time.Duration(math.Round(o.Duty * float64(o.Period)))
			each = append(each, fmt.Sprintf("%s steps from %s to %s for %v every %v from %v (%d step%s in %v)",
				name, o.Low, o.High, high, o.Period, o.Start, n, s, d.o.Base.Duration))
			continue
		}
		each = append(each, fmt.Sprintf("%s swings between %s and %s (%s) every %v from %v (%d period%s in %v)",
			name, o.Low, o.High, o.Shape, o.Period, o.Start, n, s, d.o.Base.Duration))
	}
	return mechanism{rule: "periodic-latency", strip: withoutPeriodic, name: "the periodic latency",
		what: "the link's latency changes periodically: " + strings.Join(each, "; ") + " (without it: " + strings.Join(held, ", ") + ")"}
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
	ofLink := ""
	if lc := r.LinkCost[0]; lc.Significant && lc.Mean > 0 {
		ofLink = fmt.Sprintf(" of the %s %s the link costs", p.Quantity(plain(lc, p.Prec)), p.Label)
	}
	costs, it := "costs", "it"
	if m.plural {
		costs, it = "cost", "them"
	}
	cost := p.Label + " " + p.Quantity(plain(f.Cost, p.Prec))
	if f.Cost.Significant && f.Cost.Mean < 0 {
		// It helps the player here: no cost, and no share of the link's.
		costs, ofLink = "lowers", ""
		if m.plural {
			costs = "lower"
		}
		neg := f.Cost
		neg.Mean = -neg.Mean
		cost = p.Label + " by " + p.Quantity(strings.TrimPrefix(plain(neg, p.Prec), "+"))
	}
	text := fmt.Sprintf("%s; %s %s %s%s (the reference against the same runs without %s, seed by seed)",
		m.what, m.name, costs, cost, ofLink, it)
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
		off := d.diff(without, arms[1+i], p)
		s := set
		if why[i] != "" {
			s += " (" + why[i] + ")"
		}
		// What it does against the mechanism: its effect with the
		// mechanism less its effect without, seed by seed.
		against := "it does the same without " + m.name
		switch x := d.interaction(r.Reference, c.arm, without, arms[1+i]); {
		case x.Significant && x.Mean < 0:
			against = "it acts on " + m.name
			fixes = append(fixes, c)
		case x.Significant:
			against = "it does worse with " + m.name + " than without"
		}
		said = append(said, fmt.Sprintf("%s changes %s by %s with %s and by %s without: %s", s, p.Label,
			p.Quantity(plain(c.Primary, p.Prec)), m.name, p.Quantity(plain(off, p.Prec)), against))
	}
	if len(said) == 0 {
		text += fmt.Sprintf("; no change diagnose tried improves %s significantly", p.Label)
	} else {
		text += "; " + strings.Join(said, "; ")
	}
	if len(fixes) > 0 {
		// The change: of those that act on the mechanism, the one that
		// improves the primary most. None: the finding names no change.
		c := slices.MinFunc(fixes, func(a, b Change) int { return cmpTol(a.Primary.Mean, b.Primary.Mean) })
		f.Fix, f.FixPrimary, f.FixTie, f.Better, f.Worse = c.Set, c.Primary, c.TieBreak, c.Better, c.Worse
	}
	f.Text = text
	return f, nil
}

// interaction is what a change does with a mechanism less what it does
// without it, seed by seed in the primary metric: (changed − ref) −
// (changedWithout − without), significant only past the primary's
// practical floor on the reference's value, as the bar counts an effect.
func (d *diag) interaction(ref, changed, without, changedWithout *Arm) stats.Diff {
	p := d.primary
	sa := ref.Stat(p)
	a, b := sa.PerSeed, changed.Stat(p).PerSeed
	x, y := without.Stat(p).PerSeed, changedWithout.Stat(p).PerSeed
	with, off := make([]float64, len(a)), make([]float64, len(a))
	for i := range a {
		with[i], off[i] = b[i]-a[i], y[i]-x[i]
	}
	return stats.PairedMin(off, with, p.Floor(sa.Mean.Mean))
}
