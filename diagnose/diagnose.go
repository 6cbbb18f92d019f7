package diagnose

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"jitterlab/batch"
	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/scenarios"
	"jitterlab/sim"
	"jitterlab/stats"
)

// Options say what to diagnose.
type Options struct {
	// Base is the configuration as the user runs it: defaults, the scenario
	// and the overrides applied, with its duration. Its seed is ignored.
	Base lab.Config
	// Scenario, if not nil, supplies the timeline of changes.
	Scenario *scenarios.Scenario
	// Name is the scenario's name for the conditions ("default" without one).
	Name string
	// Overrides are the key=value settings given on top of the scenario.
	// An override pins its key for the whole run: the timeline's changes to
	// that key are dropped (and the conditions say so).
	Overrides []string
	Seeds     []uint64
	// Metric is the primary metric's name (Metrics); "" is judder_mps.
	Metric string
	// Workers run seeds in parallel (≤ 0: 1). The result does not depend on it.
	Workers int
	// Version is the lab's version for the conditions.
	Version string
	// Progress, if not nil, is told after every run how many runs are done
	// and how many are queued so far (each round of the combination queues
	// more). Calls come from the workers, one at a time.
	Progress func(done, queued int)
	// Cancel, if not nil, ends the diagnosis early once closed: the runs not
	// yet started are skipped and Run returns ErrCanceled.
	Cancel <-chan struct{}
	// Offsets are the latency offsets of the ensemble, added to the
	// uplink's latency (nil: DefaultOffsets, four spanning one tick); the
	// first is the user's cell's.
	Offsets []time.Duration
	// Inputs are the input scripts of the ensemble (nil: DefaultInputs,
	// the configuration's own first).
	Inputs []string

	// evaluate, if not nil, stands in for the simulation (tests only): the
	// summary of sets in cell on seed. It lets a test state by hand what
	// each change does, and check that the search finds what it should.
	evaluate func(cell Cell, sets []string, seed uint64) lab.Summary
}

// ErrCanceled is Run's error when Options.Cancel was closed.
var ErrCanceled = errors.New("diagnosis canceled")

// Conditions are what the diagnosis ran.
type Conditions struct {
	Scenario string `json:"scenario"`
	// About is the scenario's description: its link in words ("" for a
	// scenario without one).
	About     string   `json:"scenario_description"`
	Overrides []string `json:"overrides"`
	Pinned    []string `json:"timeline_overridden"` // what the overrides pinned away (lab.Overridden)
	Seeds     []uint64 `json:"seeds"`
	DurationS float64  `json:"duration_s"`
	Version   string   `json:"version"`
	// Input is the input script the search drives with (the first cell's).
	Input string `json:"input_script"`
	// OffsetsMs and Inputs are the ensemble: every latency offset (ms,
	// added to the uplink's latency) with every input is a cell.
	OffsetsMs []float64 `json:"ensemble_latency_offsets_ms"`
	Inputs    []string  `json:"ensemble_inputs"`
	Metric    string    `json:"metric"`
	TieBreak  string    `json:"tie_break"`
}

// Arm is one configuration run on every seed: its settings on top of the
// reference, and every report-card metric over the seeds (Metrics' order).
type Arm struct {
	Sets   []string
	Card   []batch.MetricStat
	Runs   []lab.Summary
	Traces []Trace
}

// MarshalJSON writes the arm as a diagnosis's JSON has it
// ($defs/diagnosis_arm): sets, then report_card with per metric its name,
// per_seed (a seed without data, NaN, as null) and mean.
func (a *Arm) MarshalJSON() ([]byte, error) {
	type stat struct {
		Name    string         `json:"name"`
		PerSeed []*float64     `json:"per_seed"`
		Mean    stats.Interval `json:"mean"`
	}
	card := make([]stat, len(a.Card))
	for i, s := range a.Card {
		per := make([]*float64, len(s.PerSeed))
		for j, v := range s.PerSeed {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				per[j] = &v
			}
		}
		card[i] = stat{s.Name, per, s.Mean}
	}
	return json.Marshal(struct {
		Sets []string `json:"sets"`
		Card []stat   `json:"report_card"`
	}{a.Sets, card})
}

// Stat returns the arm's statistic for metric m.
func (a *Arm) Stat(m Metric) batch.MetricStat {
	for _, s := range a.Card {
		if s.Name == m.Name {
			return s
		}
	}
	panic("diagnose: no metric " + m.Name)
}

// Change is a candidate change against a base arm: its paired differences
// (change − base) in the primary metric and the tie-break.
type Change struct {
	Set      string     `json:"set"`
	Primary  stats.Diff `json:"primary"`
	TieBreak stats.Diff `json:"tie_break"`
	// Better and Worse are the report-card metrics the change makes
	// significantly better and worse than its base: "snaps +0.81 ± 0.24 /min".
	Better []string `json:"better"`
	Worse  []string `json:"worse"`
	// SameAs says why the change is another one under a different name
	// here: its prerequisite is not in force ("" when it is a change of
	// its own).
	SameAs string `json:"same_as,omitempty"`
	// Robust is the change across the ensemble, for a single change that
	// meets the bar in the user's cell (nil otherwise).
	Robust *Robustness `json:"robust,omitempty"`
	arm    *Arm
	// card is the paired difference in every metric, in Metrics' order.
	card []stats.Diff
}

// prerequisite is a change that does nothing of its own without a setting:
// it is then the same as another change.
type prerequisite struct {
	set, needs, sameAs, why string
}

// prerequisites: dilation steers by the input-buffer depth the server
// reports only with server.inputs=buffer; without it the client runs at
// scale 1, as with no corrector. The buffer's depth (any value: "=*")
// acts only with the buffer.
var prerequisites = []prerequisite{
	{set: "client.corrector=dilation", needs: "server.inputs=buffer", sameAs: "client.corrector=off", why: "dilation needs server.inputs=buffer"},
	{set: "server.buffer=*", needs: "server.inputs=buffer", sameAs: "the reference", why: "the depth acts only with server.inputs=buffer"},
}

// matches reports whether set is the prerequisite's change.
func (p prerequisite) matches(set string) bool {
	if k, v, _ := strings.Cut(p.set, "="); v == "*" {
		return keyOf(set) == k
	}
	return p.set == set
}

// sameAs is the SameAs of the change that ends sets, on the base cfg.
func sameAs(cfg *lab.Config, sets []string) string {
	last := sets[len(sets)-1]
	for _, p := range prerequisites {
		if !p.matches(last) {
			continue
		}
		key, want, _ := strings.Cut(p.needs, "=")
		par, ok := lab.Lookup(key)
		if !ok {
			continue
		}
		cur := par.Get(cfg)
		for _, s := range assignments(sets) {
			if k, v, ok := strings.Cut(s, "="); ok && k == key {
				cur = v
			}
		}
		if cur != want {
			return "same as " + p.sameAs + ": " + p.why
		}
	}
	return ""
}

// helps reports whether the change significantly improves the primary
// metric or the tie-break without making the other significantly worse:
// the mechanism it removes costs the player something.
func (c *Change) helps() bool { return helps(c.Primary, c.TieBreak) }

// helps reports whether a difference (changed − base) in the primary and
// the tie-break makes one significantly better and the other not
// significantly worse.
func helps(primary, tie stats.Diff) bool {
	worse := func(d stats.Diff) bool { return d.Significant && d.Mean > 0 }
	better := func(d stats.Diff) bool { return d.Significant && d.Mean < 0 }
	return (better(primary) && !worse(tie)) || (better(tie) && !worse(primary))
}

// Allowance is how much worse a cost may get under the bar: the paired
// difference's mean, as the text shows it, at most Max (in the metric's
// unit). The mean, not the interval's upper end: a cost of one tick
// of local response, +50.0 ± 0.1 ms, is within one tick. And only a
// significant difference is a cost: +137.8 ± 152.4 ms is not one the
// seeds establish (a heavy tail on a few seeds, as a p99 on stop-go input
// has), and the bar charges no other figure for noise either.
type Allowance struct {
	Metric string
	Max    float64
}

// Costs are the figures the bar lets a change make worse, and by how much:
// the latency a smoother picture is bought with, as the local player
// feels it. Local response up to 50 ms (one tick of the default 20 Hz
// server), visible lag up to 50 ms. The server input delay is other
// players' cost (when they see this one's input), shown but not charged;
// every other report-card figure may not get significantly worse at all.
var Costs = []Allowance{
	{"local_response_p50_ms", 50}, {"local_response_p95_ms", 50}, {"local_response_p99_ms", 50},
	{"visible_lag_p50_ms", 50}, {"visible_lag_p99_ms", 50},
}

// allowance is metric m's allowance under the bar, if it is a cost.
func allowance(m Metric) (float64, bool) {
	for _, a := range Costs {
		if a.Metric == m.Name {
			return a.Max, true
		}
	}
	return 0, false
}

// improves reports whether the change meets the bar, one rule for a single
// change, a pair (against the reference and against each part alone) and
// a step of the search: it makes the primary metric or the tie-break
// significantly better, and holds (Change.holds).
func (c *Change) improves() bool {
	better := func(d stats.Diff) bool { return d.Significant && d.Mean < 0 }
	return (better(c.Primary) || better(c.TieBreak)) && c.holds()
}

// repays are the figures the change, made on top of a combination, pays
// back: each one the combination made significantly worse than the
// reference (onRef, the combination against the reference) that the
// change makes significantly better ("server input delay p50 -103.3 ±
// 21.6 ms"). A step that repays something and holds (nothing worse
// beyond the bar) is taken even when the metric and the tie-break stay
// as they are: the queue's server input delay, other players' cost,
// brought back by a corrector that keeps the queue short.
func (c *Change) repays(onRef Change) []string {
	var out []string
	for i, x := range c.card {
		if i < len(onRef.card) && onRef.card[i].Significant && onRef.card[i].Mean > 0 && x.Significant && x.Mean < 0 {
			out = append(out, Metrics[i].Effect(x))
		}
	}
	return out
}

// takenOn reports whether the change, made on top of a combination
// (onRef: the combination against the reference), is a step the search
// takes: it meets the bar there, or it holds there and repays a figure.
func (c *Change) takenOn(onRef Change) bool {
	return c.improves() || (c.holds() && len(c.repays(onRef)) > 0)
}

// holds reports whether the change stays within the bar's costs: the
// primary metric and the tie-break not significantly worse, each cost
// (Costs) worse by at most its allowance (its mean difference as shown,
// when significant), and every other report-card figure not significantly
// worse.
func (c *Change) holds() bool {
	worse := func(d stats.Diff) bool { return d.Significant && d.Mean > 0 }
	return !worse(c.Primary) && !worse(c.TieBreak) && len(c.breaks()) == 0
}

// breaks says what in the report card breaks the bar: each figure outside
// the costs made significantly worse ("hesitation share +0.049 ± 0.017 worse"),
// each cost above its allowance ("visible lag p99 +84.0 ± 20.0 ms, above
// the +50.0 ms allowed").
func (c *Change) breaks() []string {
	var out []string
	for i, x := range c.card {
		m := Metrics[i]
		if m.Server {
			continue // the server's side: not the local player's cost
		}
		if a, ok := allowance(m); ok {
			if shown, _ := strconv.ParseFloat(strconv.FormatFloat(x.Mean, 'f', m.Prec, 64), 64); x.Significant && shown > a {
				out = append(out, fmt.Sprintf("%s, above the +%s allowed", m.Effect(x), m.Quantity(strconv.FormatFloat(a, 'f', m.Prec, 64))))
			}
			continue
		}
		if x.Significant && x.Mean > 0 {
			out = append(out, m.Effect(x)+" worse")
		}
	}
	return out
}

// Step is one round of the search on the path to its answer: every change
// tried on top of the combination so far, best first, and the one taken.
// A Pair step is a first step that takes a pair: its Tried are the pairs
// against the reference, Taken the pair "a b".
type Step struct {
	On      []string `json:"on"`
	Tried   []Change `json:"tried"`
	Taken   string   `json:"taken"`
	Primary float64  `json:"primary_after"`
	Pair    bool     `json:"pair,omitempty"`
	// NotRobust are the changes that met the bar in the user's cell but
	// not in every cell of the ensemble, best first; Robust is the taken
	// combination across the ensemble.
	NotRobust []*Robustness `json:"not_robust"`
	Robust    *Robustness   `json:"robust"`
	// Repays are the figures the taken change pays back: ones the
	// combination before it made significantly worse than the reference,
	// significantly better with it ("server input delay p50 -103.3 ±
	// 21.6 ms"); a step may be taken for them alone (Change.repays).
	Repays []string `json:"repays,omitempty"`
	// Over is the combination a last step says its path was chosen over
	// (the search's deepest, which it beats on the report card: no figure
	// significantly worse, OverBetter significantly better).
	Over       []string `json:"chosen_over,omitempty"`
	OverBetter []string `json:"chosen_over_better,omitempty"`
}

// maxRobustTries bounds how many candidates a step tries across the
// ensemble before it ends: each try runs the whole ensemble.
const maxRobustTries = 3

// Pair is two single changes tried together on the reference (the best
// singles two at a time, and the changes known to act together): the pair against the
// reference (its Set is "a b"), and against each of its parts alone
// (OnParts[i] is the pair against Sets[i] alone: the other part added).
// Beats: it meets the bar against the reference and against each part.
type Pair struct {
	Sets        []string  `json:"sets"`
	VsReference Change    `json:"vs_reference"`
	OnParts     [2]Change `json:"on_parts"`
	Beats       bool      `json:"beats_reference_and_parts"`
}

// maxPairParts bounds the pairs: the best single changes that improve
// the primary metric or the tie-break significantly are combined two at
// a time (at most maxPairParts·(maxPairParts−1)/2 pairs), and each
// prerequisite's change with the setting it needs (one more each).
const maxPairParts = 4

// pairCandidates are the pairs to try, from the ranked single changes:
// the best maxPairParts that improve something and are changes of their
// own, two at a time on different keys, the better one first; then each
// prerequisite's setting with its change, when both are alternatives here.
func pairCandidates(cs []Change) [][]string {
	var parts []string
	for _, c := range cs {
		better := (c.Primary.Significant && c.Primary.Mean < 0) || (c.TieBreak.Significant && c.TieBreak.Mean < 0)
		if better && c.SameAs == "" && len(parts) < maxPairParts {
			parts = append(parts, c.Set)
		}
	}
	var out [][]string
	for i, a := range parts {
		for _, b := range parts[i+1:] {
			if !sharesKey(a, b) {
				out = append(out, []string{a, b})
			}
		}
	}
	has := func(set string) bool { return slices.ContainsFunc(cs, func(c Change) bool { return c.Set == set }) }
	known := slices.Clone(together)
	for _, p := range prerequisites {
		for _, c := range cs {
			if p.matches(c.Set) {
				known = append(known, [2]string{p.needs, c.Set})
			}
		}
	}
	for _, k := range known {
		pair := []string{k[0], k[1]}
		dup := slices.ContainsFunc(out, func(x []string) bool { return comboKey(x) == comboKey(pair) })
		if has(k[0]) && has(k[1]) && !dup {
			out = append(out, pair)
		}
	}
	return out
}

// pairs runs the candidate pairs on every seed and compares each with the
// reference and with its parts alone: the pairs that beat both first, then
// by the primary difference and the tie-break against the reference.
func (d *diag) pairs(r *Result) ([]Pair, error) {
	cands := pairCandidates(r.Changes)
	if len(cands) == 0 {
		return []Pair{}, nil
	}
	arms, err := d.runArms(cands)
	if err != nil {
		return nil, err
	}
	var out []Pair
	for i, sets := range cands {
		p := Pair{Sets: sets, VsReference: d.change(r.Reference, arms[i], strings.Join(sets, " "))}
		a, b := r.single(sets[0]), r.single(sets[1])
		p.OnParts[0] = d.change(a.arm, arms[i], sets[1])
		p.OnParts[1] = d.change(b.arm, arms[i], sets[0])
		p.Beats = p.VsReference.improves() && p.OnParts[0].takenOn(a) && p.OnParts[1].takenOn(b)
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(x, y Pair) int {
		if x.Beats != y.Beats {
			if x.Beats {
				return -1
			}
			return 1
		}
		return d.rank(x.VsReference, y.VsReference)
	})
	return out, nil
}

// Schema is the version of the JSON layout (docs/reference/json.md), the
// same number as every other JSON output of the lab.
const Schema = 2

// Result is a diagnosis.
type Result struct {
	Schema     int        `json:"schema"`
	Kind       string     `json:"kind"` // "diagnosis"
	Conditions Conditions `json:"conditions"`
	Reference  *Arm       `json:"reference"`
	// PerfectLink is the same game on a perfect link: what is structural.
	PerfectLink *Arm `json:"perfect_link"`
	// LinkCost is reference − perfect link, primary and tie-break.
	LinkCost [2]stats.Diff `json:"link_cost"`
	// Attribution is what each condition costs: the reference against the
	// same runs with the condition removed, in the order removed.
	Attribution []Attribution `json:"attribution"`
	Findings    []Finding     `json:"findings"`
	Changes     []Change      `json:"changes"`
	// Pairs are the pairs tried when no single change meets the bar
	// (empty otherwise), best first.
	Pairs []Pair `json:"pairs"`
	Steps []Step `json:"combination"`
	// Robustness is every change tried across the ensemble, in the order
	// tried: the singles that meet the bar, each step's candidate, the
	// recommendation.
	Robustness  []*Robustness `json:"robustness"`
	Recommended []string      `json:"recommended"`
	Best        *Arm          `json:"best"`
	// BestVsReference is best − reference for every metric.
	BestVsReference []stats.Diff `json:"best_vs_reference"`
	// Reproduce is the 'lab ab' command that reproduces the recommended
	// comparison: the reference as A, the recommendation as B, the same
	// seeds and duration ("" when nothing is recommended).
	Reproduce string `json:"reproduce"`
	// Problem: the link costs significantly, or a finding's fix helps.
	Problem bool `json:"significant_problem"`
	// Representative is the seed whose reference primary metric is nearest
	// the mean; RefSeries and BestSeries are its timelines.
	Representative uint64       `json:"representative_seed"`
	RefSeries      batch.Series `json:"-"`
	BestSeries     batch.Series `json:"-"`

	arms        int     // the arms run, each on every seed
	Band        int     `json:"-"` // the dead band, for charts
	Snap        float64 `json:"-"`
	metric, tie Metric
}

// Metric is the primary metric.
func (r *Result) Metric() Metric { return r.metric }

// TieBreak is the metric that breaks ties.
func (r *Result) TieBreak() Metric { return r.tie }

// Arm is the change's runs: its base and the change, on every seed.
func (c *Change) Arm() *Arm { return c.arm }

// CheckSeeds says whether seeds can be diagnosed: an interval needs at
// least two.
func CheckSeeds(seeds []uint64) error {
	if len(seeds) < 2 {
		return fmt.Errorf("--seeds: %d seed(s); an interval needs at least 2 (20, the default, tells small effects apart)", len(seeds))
	}
	return nil
}

// Run diagnoses o.
func Run(o Options) (*Result, error) {
	if err := CheckSeeds(o.Seeds); err != nil {
		return nil, err
	}
	if o.Metric == "" {
		o.Metric = "judder_mps"
	}
	primary, err := LookupMetric(o.Metric)
	if err != nil {
		return nil, err
	}
	tie, _ := LookupMetric("progress_deficit_mps")
	if primary.Label == tie.Label { // progress_deficit_mps or _pct

		tie, _ = LookupMetric("judder_mps")
	}
	d := &diag{o: o, primary: primary, tie: tie, cells: o.cells(), robustness: map[string]*Robustness{}}
	if d.pinned, err = lab.PinKeys(o.Overrides); err != nil {
		return nil, err
	}
	if o.Scenario != nil {
		d.pinned = append(d.pinned, o.Scenario.Pinned...)
	}
	dropped, err := d.dropped()
	if err != nil {
		return nil, err
	}
	r := &Result{Schema: Schema, Kind: "diagnosis", metric: primary, tie: tie, Band: o.Base.Client.Band, Snap: o.Base.Client.Snap,
		Conditions: Conditions{Scenario: o.Name, About: about(o.Scenario), Overrides: append([]string{}, o.Overrides...), Pinned: dropped,
			Seeds: o.Seeds, DurationS: o.Base.Duration.Seconds(), Version: o.Version, Input: d.cells[0].Input, Metric: primary.Name, TieBreak: tie.Name}}
	for _, c := range d.cells {
		if !slices.Contains(r.Conditions.OffsetsMs, ms(c.Offset)) {
			r.Conditions.OffsetsMs = append(r.Conditions.OffsetsMs, ms(c.Offset))
		}
		if !slices.Contains(r.Conditions.Inputs, c.Input) {
			r.Conditions.Inputs = append(r.Conditions.Inputs, c.Input)
		}
	}
	r.Robustness = []*Robustness{}
	r.Pairs = []Pair{}
	if r.Conditions.Overrides == nil {
		r.Conditions.Overrides = []string{}
	}

	if d.steps, err = d.latencySteps(); err != nil {
		return nil, err
	}
	for _, st := range d.steps {
		if t := st.at.Seconds(); !slices.Contains(d.marks, t) {
			d.marks = append(d.marks, t)
		}
	}

	// The reference, the same game on a perfect link, and every single change.
	var singles [][]string
	for _, v := range lab.Variants() {
		p, _ := lab.Lookup(v.Key)
		cur := p.Get(&o.Base)
		for _, c := range v.Choices {
			if c != cur {
				singles = append(singles, []string{v.Key + "=" + c})
			}
		}
	}
	arms, err := d.runArms(append([][]string{nil, {perfectLink}}, singles...))
	if err != nil {
		return nil, err
	}
	r.Reference, r.PerfectLink = arms[0], arms[1]
	r.LinkCost = [2]stats.Diff{d.diff(r.PerfectLink, r.Reference, primary), d.diff(r.PerfectLink, r.Reference, tie)}
	if f, ok := noGame(r.Reference); ok {
		// Nothing to compare: the finding is that the game never got going.
		r.Findings, r.Problem, r.Best, r.Recommended, r.Changes = []Finding{f}, true, r.Reference, []string{}, []Change{}
		for _, m := range Metrics {
			r.BestVsReference = append(r.BestVsReference, d.diff(r.Reference, r.Reference, m))
		}
		r.Representative = o.Seeds[0]
		sers, err := d.series(r.Representative, nil)
		if err != nil {
			return nil, err
		}
		r.RefSeries, r.BestSeries = sers[0], sers[0]
		return r, nil
	}
	// A game that got going but has no value of the primary on any seed
	// has nothing to diagnose by.
	if !slices.ContainsFunc(r.Reference.Stat(primary).PerSeed, func(v float64) bool { return !math.IsNaN(v) }) {
		cell := d.userCell()
		return nil, fmt.Errorf("--metric %s: the reference has no value on any seed (%s input, uplink latency %s): the runs have none of what it measures "+
			"(the local response needs the throttle to change); choose --inputs where they do (stopgo, random) or another metric",
			primary.Name, cell.Input, OffsetText(cell.Offset))
	}
	// The timeline's mechanisms, and their own changes beside the registry's.
	mechs, err := d.mechanisms(r)
	if err != nil {
		return nil, err
	}
	singleArms := arms[2:]
	// A snap threshold above the largest snap, whenever the reference
	// snaps (a blackout's finding names it; loss bursts snap too).
	var more []string
	if _, snap, ok := d.snapAbove(r.Reference); ok {
		more = append(more, snap)
	}
	for _, l := range ladderChanges(&o.Base) {
		more = append(more, l[0])
	}
	for _, set := range []string{smoothingChange(&o.Base), tickRateChange(&o.Base)} {
		if set != "" {
			more = append(more, set)
		}
	}
	if extra := extraChanges(mechs, more...); len(extra) > 0 {
		xs, err := d.runArms(extra)
		if err != nil {
			return nil, err
		}
		singleArms = append(singleArms, xs...)
	}
	r.Changes = d.changes(r.Reference, singleArms)

	// What each condition costs: the same runs with it removed.
	if r.Attribution, err = d.attribute(r); err != nil {
		return nil, err
	}

	// Every single change that meets the bar, across the ensemble.
	for i := range r.Changes {
		if c := &r.Changes[i]; c.improves() && c.SameAs == "" {
			if c.Robust, err = d.robust(r, []string{c.Set}, c.arm); err != nil {
				return nil, err
			}
		}
	}

	// Pairs of the best singles and of the changes known to act together,
	// then the beam search over singles, pairs and what goes on top.
	if r.Pairs, err = d.pairs(r); err != nil {
		return nil, err
	}
	won, err := d.search(r)
	if err != nil {
		return nil, err
	}
	combo, best := slices.Clone(won.combo), won.arm
	if combo == nil {
		combo = []string{}
	}
	r.Steps = won.steps
	if len(combo) == 0 && len(r.Steps) == 1 && len(r.Steps[0].NotRobust) == 0 {
		r.Steps = []Step{} // nothing met the bar: NoRecommendation says why
	}
	r.Recommended, r.Best = combo, best
	r.Reproduce = d.abCommand(combo)
	for _, m := range Metrics {
		r.BestVsReference = append(r.BestVsReference, d.diff(r.Reference, best, m))
	}

	if r.Findings, err = findings(d, r, mechs); err != nil {
		return nil, err
	}
	r.Problem = (r.LinkCost[0].Significant && r.LinkCost[0].Mean > 0) || (r.LinkCost[1].Significant && r.LinkCost[1].Mean > 0)
	for _, f := range r.Findings {
		r.Problem = r.Problem || f.Problem
	}

	// Timelines of the representative seed.
	ref := r.Reference.Stat(primary)
	rep := 0
	for i, v := range ref.PerSeed {
		if math.Abs(v-ref.Mean.Mean) < math.Abs(ref.PerSeed[rep]-ref.Mean.Mean) {
			rep = i
		}
	}
	r.Representative = o.Seeds[rep]
	sers, err := d.series(r.Representative, nil, combo)
	if err != nil {
		return nil, err
	}
	r.RefSeries, r.BestSeries = sers[0], sers[1]
	r.arms = d.arms
	return r, nil
}

// vsReference is c's arm against the reference.
func (r *Result) vsReference(c Change) Change {
	return compare(r.Reference, c.arm, c.Set, r.metric, r.tie)
}

// onTop is every change of cs that sets no key combo sets, on top of combo.
func onTop(combo []string, cs []Change) [][]string {
	var next [][]string
	for _, c := range cs {
		if !slices.ContainsFunc(combo, func(s string) bool { return sharesKey(s, c.Set) }) {
			next = append(next, append(slices.Clone(combo), c.Set))
		}
	}
	return next
}

// abCommand is the 'lab ab' command line that runs the reference as A and
// the reference with sets as B on the diagnosis's seeds for its duration
// (lab ab runs a scenario's own duration unless told), in the cell the
// search ran in: its input and its uplink latency offset set after the
// overrides. "" without sets, and "" when the cell's offset shifts
// uplink latencies the timeline sets (a --set would pin them instead).
func (d *diag) abCommand(sets []string) string {
	if len(sets) == 0 {
		return ""
	}
	cmd := []string{"lab", "ab"}
	if d.o.Name != "" && d.o.Name != "default" { // as the conditions name it
		cmd = append(cmd, "--scenario", shellQuote(d.o.Name))
	}
	for _, s := range d.o.Overrides {
		cmd = append(cmd, "--set", shellQuote(s))
	}
	cell := d.userCell()
	if cell.Input != d.o.Base.Script {
		cmd = append(cmd, "--set", shellQuote("input.script="+cell.Input))
	}
	if cell.Offset != 0 {
		if d.timelineSetsUplinkLatency() {
			return ""
		}
		cmd = append(cmd, "--set", shellQuote("up.latency="+(d.o.Base.Up.Latency+cell.Offset).String()))
	}
	cmd = append(cmd, "--seeds", SeedList(d.o.Seeds), "--duration", d.o.Base.Duration.String())
	for _, s := range sets {
		cmd = append(cmd, "--b", shellQuote(s))
	}
	return strings.Join(cmd, " ")
}

// timelineSetsUplinkLatency says whether the reference's timeline (its
// oscillators and flaps included) sets the uplink's latency: the
// ensemble's offset shifts those entries too (shiftTimeline).
func (d *diag) timelineSetsUplinkLatency() bool {
	sc := d.scenario(nil)
	if sc == nil {
		return false
	}
	changes, _, err := scenarios.TimelineOf(sc, d.o.Base.Duration)
	if err != nil {
		return true // no command rather than a wrong one
	}
	for _, ch := range changes {
		for _, a := range ch.Set {
			if a.Key == "up.latency" || a.Key == "link.latency" {
				return true
			}
		}
	}
	return false
}

// shellQuote is s as one word of a POSIX shell: as it is when it has no
// character the shell reads, otherwise in single quotes.
func shellQuote(s string) string {
	plain := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./=:,+%@-", c)) {
			plain = false
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// noGame is the finding when the game never got going on some seed of the
// reference (lab.Summary.NoGame): no report card to diagnose.
func noGame(ref *Arm) (Finding, bool) {
	var never, noInput, noFrame int
	var upSent, upGot, downSent, downGot uint64
	for i := range ref.Runs {
		s := &ref.Runs[i]
		upSent, upGot, downSent, downGot = upSent+s.Up.Sent, upGot+s.Up.Delivered, downSent+s.Down.Sent, downGot+s.Down.Delivered
		switch {
		case s.NoGame() == "":
		case s.InputsSent == 0:
			never++
		case s.Arrived == 0:
			noInput++
		default:
			noFrame++
		}
	}
	if never+noInput+noFrame == 0 {
		return Finding{}, false
	}
	n := len(ref.Runs)
	var what []string
	if never > 0 {
		what = append(what, fmt.Sprintf("%d of %d seeds never logged in", never, n))
	}
	if noInput > 0 {
		what = append(what, fmt.Sprintf("%d of %d seeds logged in but no input reached the server", noInput, n))
	}
	if noFrame > 0 {
		what = append(what, fmt.Sprintf("%d of %d seeds counted no driving frame (frames count from %v after login: "+
			"is the run too short?)", noFrame, n, lab.WarmUp))
	}
	link := fmt.Sprintf("the link delivered %d of %d packets up and %d of %d down over the seeds", upGot, upSent, downGot, downSent)
	switch {
	case upSent > 0 && upGot == 0 && downGot == 0:
		link += ": it delivers nothing up, and so nothing comes down"
	case upSent > 0 && upGot == 0:
		link += ": it delivers nothing up"
	case downSent > 0 && downGot == 0:
		link += ": it delivers nothing down"
	}
	return Finding{Rule: "no-game", Problem: true, Better: []string{}, Worse: []string{},
		Text: "the game never got going: " + strings.Join(what, "; ") + "; " + link + ". There is no report card to diagnose"}, true
}

// about is a scenario's description, or "".
func about(sc *scenarios.Scenario) string {
	if sc == nil {
		return ""
	}
	return sc.Description
}

// perfectLink is the pseudo-setting of the perfect-link arm.
const perfectLink = "(perfect link)"

type diag struct {
	o            Options
	primary, tie Metric
	pinned       []string
	// steps are the timeline's latency steps; marks their times (s),
	// which every run's Trace follows the client around.
	steps []latencyStep
	marks []float64

	// cells are the ensemble, the user's first; cellRefs the reference
	// in each (run when first needed); robustness the changes tried.
	cells      []Cell
	cellRefs   []*Arm
	robustness map[string]*Robustness

	// runner runs every round's arms over the seeds: its workers (a
	// session to reset) outlive the rounds, so a diagnosis resets a few
	// sessions instead of allocating one per worker per round.
	runner batch.Runner
	// arms counts the arms run (each on every seed), for the tests.
	arms int
}

// userCell is the ensemble's first cell, where the search runs.
func (d *diag) userCell() Cell {
	if len(d.cells) == 0 {
		return d.o.cells()[0]
	}
	return d.cells[0]
}

// job is one arm to run: sets in cell cells[cell].
type job struct {
	cell int
	sets []string
}

func keyOf(set string) string { k, _, _ := strings.Cut(set, "="); return k }

// assignments are the settings of sets, one "key=value" each: a change of
// several settings (tickRateChange) is one change named by its settings
// joined with commas, a form lab ab's --b and the lab's A/B prompt read
// (lab.SplitAssignments), so it is one row, one step of the search and one
// --b of its 'lab ab' command. Every other set is its own one setting.
// Split at commas only, not at spaces as lab.SplitAssignments also does:
// the arms' own sets ("(perfect link)") have spaces.
func assignments(sets []string) []string {
	var out []string
	for _, s := range sets {
		out = append(out, strings.Split(s, ",")...)
	}
	return out
}

// keysOf are the keys sets set, every setting of a change of several.
func keysOf(sets []string) []string {
	var ks []string
	for _, s := range assignments(sets) {
		ks = append(ks, keyOf(s))
	}
	return ks
}

// sharesKey reports whether changes a and b set a key in common.
func sharesKey(a, b string) bool {
	return slices.ContainsFunc(keysOf([]string{a}), func(k string) bool { return slices.Contains(keysOf([]string{b}), k) })
}

// pins are the keys an arm with sets pins: the overrides', the sets', and
// for the perfect link every link key (lab.Unpinned drops the timeline's
// changes to them).
func (d *diag) pins(sets []string) []string {
	pins := slices.Clone(d.pinned)
	for _, k := range keysOf(sets) {
		if k == withoutBlackouts || k == withoutPeriodic || k == withoutLatencySteps || k == withoutTimeline {
			continue
		}
		if k != perfectLink {
			pins = append(pins, k)
			continue
		}
		for _, p := range lab.Params() {
			if strings.HasPrefix(p.Key, "up.") || strings.HasPrefix(p.Key, "down.") {
				pins = append(pins, p.Key)
			}
		}
	}
	return pins
}

// scenario is the scenario as an arm with sets runs it, or nil.
func (d *diag) scenario(sets []string) *scenarios.Scenario {
	if d.o.Scenario == nil {
		return nil
	}
	sc := *d.o.Scenario
	sc.Pinned = d.pins(sets)
	if slices.Contains(sets, withoutTimeline) {
		sc.Timeline, sc.Oscillators, sc.Flaps = nil, nil, nil
		return &sc
	}
	if slices.Contains(sets, withoutBlackouts) {
		return stripBlackouts(&sc, &d.o.Base)
	}
	if slices.Contains(sets, withoutPeriodic) {
		return stripPeriodic(&sc)
	}
	if slices.Contains(sets, withoutLatencySteps) {
		return stripLatencySteps(&sc)
	}
	return &sc
}

// dropped lists the timeline changes the overrides pin away (lab.Unpinned).
func (d *diag) dropped() ([]string, error) {
	sc := d.scenario(nil)
	if sc == nil {
		return []string{}, nil
	}
	return scenarios.Overridden(sc, d.o.Base.Duration)
}

// config sets *cfg to the base with sets applied in cell, for seed.
func (d *diag) config(cfg *lab.Config, cell Cell, sets []string, seed uint64) error {
	*cfg = d.o.Base
	cfg.Seed = seed
	cfg.Up.Latency += cell.Offset
	if cell.Input != cfg.Script {
		if err := lab.Set(cfg, "input.script", cell.Input); err != nil {
			return err
		}
	}
	for _, s := range assignments(sets) {
		switch s {
		case perfectLink:
			def := lab.DefaultConfig()
			cfg.Up, cfg.Down = def.Up, def.Down
			continue
		case withoutBlackouts, withoutPeriodic, withoutLatencySteps, withoutTimeline: // the timeline's (scenario)
			continue
		}
		k, v, err := lab.ParseAssignment(s)
		if err != nil {
			return err
		}
		if err := lab.Set(cfg, k, v); err != nil {
			return err
		}
	}
	return nil
}

// session resets w's session to one seed's session in cell with its
// timeline, without the pinned keys' changes.
func (d *diag) session(w *batch.Worker, cell Cell, sets []string, seed uint64) error {
	if err := d.config(&w.Config, cell, sets, seed); err != nil {
		return err
	}
	sc := d.scenario(sets)
	if sc == nil || cell.Offset == 0 {
		return w.Start(sc) // exactly what 'lab run' schedules
	}
	if err := w.Start(nil); err != nil {
		return err
	}
	// The timeline's uplink latencies shifted with the base's.
	return shiftTimeline(&w.Session, sc, cell.Offset)
}

// Trace is what one run's timeline showed, from the end of its first
// quarter on (the corrector has had time to act).
type Trace struct {
	// AboveBand is the share of samples (%) with the tick offset above the band.
	AboveBand float64
	// OffsetSlope is the tick offset's growth per second of true time.
	OffsetSlope float64
	// Marks are what the client did after each of the diagnosis's marks
	// (the timeline's latency steps), over the whole run.
	Marks []MarkTrace
}

// MarkTrace is what the client did from one mark (a time in the run) to
// the next mark or the end of the run: the tick offset just before the
// mark, the offset farthest from it in that window with the send
// interval then, and both at the window's end.
type MarkTrace struct {
	Before, Extreme, End   int
	ExtremeSendS, EndSendS float64
	// FrozenS is how long, in the second after the mark, the visible tank
	// moved below a tenth of its move speed (sample by sample): a target
	// frozen while a latency step drains.
	FrozenS float64
}

// frozenWindow is how long after a mark frozen samples count.
const frozenWindow = 1.0

// tracer accumulates a Trace from samples.
type tracer struct {
	from, t0, t1 float64
	o0, o1       int
	n, above     int
	band         int

	marks    []float64 // seconds, ascending
	got      []MarkTrace
	lastO    int
	lastSend float64
	// still is the visible speed below which a sample is frozen (m/s);
	// every is the sample period (s).
	still, every float64
}

func (tr *tracer) sample(x *metrics.Sample) {
	for len(tr.got) < len(tr.marks) && x.TS >= tr.marks[len(tr.got)] {
		tr.got = append(tr.got, MarkTrace{Before: tr.lastO, Extreme: tr.lastO, End: tr.lastO, ExtremeSendS: tr.lastSend, EndSendS: tr.lastSend})
	}
	if n := len(tr.got); n > 0 {
		m := &tr.got[n-1]
		if absInt(x.TickOffset-m.Before) > absInt(m.Extreme-m.Before) {
			m.Extreme, m.ExtremeSendS = x.TickOffset, x.SendIntervalS
		}
		m.End, m.EndSendS = x.TickOffset, x.SendIntervalS
		if x.TS < tr.marks[n-1]+frozenWindow && x.VisibleSpeedMPS < tr.still {
			m.FrozenS += tr.every
		}
	}
	tr.lastO, tr.lastSend = x.TickOffset, x.SendIntervalS
	if x.TS < tr.from {
		return
	}
	if tr.n == 0 {
		tr.t0, tr.o0 = x.TS, x.TickOffset
	}
	tr.n++
	if x.TickOffset > tr.band {
		tr.above++
	}
	tr.t1, tr.o1 = x.TS, x.TickOffset
}

func absInt(n int) int { return max(n, -n) }

func (tr *tracer) trace() Trace {
	t := Trace{Marks: tr.got}
	if tr.n > 0 {
		t.AboveBand = 100 * float64(tr.above) / float64(tr.n)
	}
	if tr.t1 > tr.t0 {
		t.OffsetSlope = float64(tr.o1-tr.o0) / (tr.t1 - tr.t0)
	}
	return t
}

// runArms runs every arm on every seed in the user's cell, in parallel,
// results by index.
func (d *diag) runArms(sets [][]string) ([]*Arm, error) {
	jobs := make([]job, len(sets))
	for i, s := range sets {
		jobs[i] = job{sets: s}
	}
	return d.runJobs(jobs)
}

// runJobs runs every job on every seed, in parallel, results by index.
func (d *diag) runJobs(jobs []job) ([]*Arm, error) {
	n := len(d.o.Seeds)
	d.arms += len(jobs)
	// Each run writes its summary and trace in place: the arms' Runs and
	// Traces are slices of these (no copy of a result per run).
	sums, traces := make([]lab.Summary, len(jobs)*n), make([]Trace, len(jobs)*n)
	_, err := batch.Each(d.rounds(), len(jobs)*n, func(w *batch.Worker, i int) (struct{}, error) {
		j := jobs[i/n]
		if d.o.evaluate != nil {
			sums[i] = d.o.evaluate(d.cells[j.cell], j.sets, d.o.Seeds[i%n])
			return struct{}{}, nil
		}
		s := &w.Session
		if err := d.session(w, d.cells[j.cell], j.sets, d.o.Seeds[i%n]); err != nil {
			return struct{}{}, fmt.Errorf("%s seed %d: %w", strings.Join(j.sets, " "), d.o.Seeds[i%n], err)
		}
		tr := tracer{from: d.o.Base.Duration.Seconds() / 4, band: s.Config().Client.Band, marks: d.marks,
			still: float64(0.1 * s.Config().Client.Tuning.MoveSpeed), every: s.Every().Seconds()}
		s.OnSample = tr.sample
		if err := s.Run(sim.Time(d.o.Base.Duration)); err != nil {
			return struct{}{}, fmt.Errorf("%s seed %d: %w", strings.Join(j.sets, " "), d.o.Seeds[i%n], err)
		}
		sums[i], traces[i] = s.Summary(), tr.trace()
		return struct{}{}, nil
	})
	if errors.Is(err, batch.ErrCanceled) {
		return nil, ErrCanceled
	}
	if err != nil {
		return nil, err
	}
	arms := make([]*Arm, len(jobs))
	for i := range jobs {
		lo, hi := i*n, (i+1)*n
		a := &Arm{Sets: append([]string{}, jobs[i].sets...), Runs: sums[lo:hi:hi], Traces: traces[lo:hi:hi],
			Card: make([]batch.MetricStat, 0, len(Metrics))}
		for _, m := range Metrics {
			vs := make([]float64, n)
			for j := range a.Runs {
				vs[j] = m.Score(&a.Runs[j].Card) // a deficit by its magnitude
			}
			a.Card = append(a.Card, batch.NewMetricStat(m.Name, vs))
		}
		arms[i] = a
	}
	return arms, nil
}

// diff is b − a in metric m, seed by seed; an effect below the metric's
// practical floor on a's value (Metric.Floor) is never significant.
func (d *diag) diff(a, b *Arm, m Metric) stats.Diff {
	return paired(a, b, m)
}

// paired is b − a in metric m, seed by seed, significant only at or
// above m's floor on a's mean.
func paired(a, b *Arm, m Metric) stats.Diff {
	sa := a.Stat(m)
	return stats.PairedMin(sa.PerSeed, b.Stat(m).PerSeed, m.Floor(sa.Mean.Mean))
}

// changes compares each arm (base + one more setting) with base and ranks
// them: improvements first, by the primary difference, then the tie-break.
func (d *diag) changes(base *Arm, arms []*Arm) []Change {
	var cs []Change
	for _, a := range arms {
		c := d.change(base, a, a.Sets[len(a.Sets)-1])
		c.SameAs = sameAs(&d.o.Base, a.Sets)
		cs = append(cs, c)
	}
	slices.SortStableFunc(cs, func(x, y Change) int {
		if x.improves() != y.improves() {
			if x.improves() {
				return -1
			}
			return 1
		}
		return d.rank(x, y)
	})
	return cs
}

// rank orders two changes against the same base: by the primary
// difference as the text shows it, then the tie-break as shown, then
// fewer figures made significantly worse, then the digits the text does
// not show. Two fixes the text shows as equal in the primary are ranked by
// the tie-break, not by 9 µm/s of progress deficit (jitter-fix: the queue
// and the buffer both -0.336 m/s; the queue has the less judder); equal in
// both, by what else they cost (the buffer's server input delay p50, p95
// and p99 against the queue's p50).
func (d *diag) rank(x, y Change) int {
	if c := cmpTol(shownMean(x.Primary, d.primary), shownMean(y.Primary, d.primary)); c != 0 {
		return c
	}
	if c := cmpTol(shownMean(x.TieBreak, d.tie), shownMean(y.TieBreak, d.tie)); c != 0 {
		return c
	}
	if c := len(x.Worse) - len(y.Worse); c != 0 {
		return c
	}
	if c := cmpTol(x.Primary.Mean, y.Primary.Mean); c != 0 {
		return c
	}
	return cmpTol(x.TieBreak.Mean, y.TieBreak.Mean)
}

// shownMean is x's mean as the text shows it in m.
func shownMean(x stats.Diff, m Metric) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x.Mean, 'f', m.Prec, 64), 64)
	return v
}

// change is arm against base, named set: its paired differences and the
// report-card metrics it makes significantly better and worse.
func (d *diag) change(base, arm *Arm, set string) Change {
	return compare(base, arm, set, d.primary, d.tie)
}

// compare is arm against base, named set, with primary and tie the
// metric and the tie-break.
func compare(base, arm *Arm, set string, primary, tie Metric) Change {
	diff := func(m Metric) stats.Diff { return paired(base, arm, m) }
	c := Change{Set: set, Primary: diff(primary), TieBreak: diff(tie), Better: []string{}, Worse: []string{}, arm: arm}
	for _, m := range Metrics {
		x := diff(m)
		c.card = append(c.card, x)
		switch {
		case x.Significant && x.Mean > 0:
			c.Worse = append(c.Worse, m.Effect(x))
		case x.Significant && x.Mean < 0:
			c.Better = append(c.Better, m.Effect(x))
		}
	}
	return c
}

// cmpTol compares with a tolerance for rounding: differences below 1e-9
// are ties.
func cmpTol(a, b float64) int {
	switch {
	case a < b-1e-9:
		return -1
	case a > b+1e-9:
		return 1
	}
	return 0
}

// series runs seed with each of sets, in one round, and keeps their
// timelines.
func (d *diag) series(seed uint64, sets ...[]string) ([]batch.Series, error) {
	sers, err := batch.Each(d.rounds(), len(sets), func(w *batch.Worker, i int) (batch.Series, error) {
		if err := d.session(w, d.userCell(), sets[i], seed); err != nil {
			return batch.Series{}, err
		}
		var ser batch.Series
		ser.Record(&w.Session, d.o.Base.Duration)
		return ser, w.Session.Run(sim.Time(d.o.Base.Duration))
	})
	if errors.Is(err, batch.ErrCanceled) {
		return nil, ErrCanceled
	}
	return sers, err
}

// rounds is d's runner with the options' workers, progress and cancel.
func (d *diag) rounds() *batch.Runner {
	d.runner.Workers, d.runner.Progress, d.runner.Cancel = d.o.Workers, d.o.Progress, d.o.Cancel
	return &d.runner
}
