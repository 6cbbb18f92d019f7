package diagnose

import (
	"slices"
	"strconv"
	"strings"

	"jitterlab/lab"
)

// together are changes known to act together, each of which does little
// or harm alone: the dilation corrector steers by the input buffer's
// depth; redundant inputs refill what the uplink lost only for a server
// that applies every input it gets (queue, buffer); the accumulator
// sender's grid is the one the corrector steers; a queue grows without
// bound under a client that sends faster than the server steps unless a
// corrector that can slow the sends (proportional) holds it. Their pairs
// are always tried when both are alternatives here.
var together = [][2]string{
	{"server.inputs=buffer", "client.corrector=dilation"},
	{"server.inputs=queue", "client.redundancy=2"},
	{"server.inputs=buffer", "client.redundancy=2"},
	{"client.sender=accumulator", "client.corrector=proportional"},
	{"server.inputs=queue", "client.corrector=proportional"},
}

// ladder is a numeric knob tried over a short ladder of values around the
// configuration's own: the values are factors of it.
type ladder struct {
	key     string
	factors []float64
}

// ladders: the snap threshold and the smoothing constant, halved and
// doubled (the snap also ×5: a threshold above a loss burst's jump).
var ladders = []ladder{
	{"client.snap", []float64{0.5, 2, 5}},
	{"client.alpha", []float64{0.5, 2}},
}

// ladderChanges are the ladders' settings on cfg that the registry takes,
// a local input delay one tick shorter, and the input buffer's depth one
// step either side (which acts only with server.inputs=buffer: a
// prerequisite).
func ladderChanges(cfg *lab.Config) [][]string {
	var out [][]string
	for _, l := range ladders {
		p, ok := lab.Lookup(l.key)
		if !ok {
			continue
		}
		cur, err := strconv.ParseFloat(p.Get(cfg), 64)
		if err != nil {
			continue
		}
		for _, f := range l.factors {
			set := l.key + "=" + strconv.FormatFloat(float64(cur*f), 'g', 3, 64)
			c := *cfg
			if k, v, _ := strings.Cut(set, "="); lab.Set(&c, k, v) == nil {
				out = append(out, []string{set})
			}
		}
	}
	// The local input delay one tick shorter: a delay the game chose is
	// local response the player pays for fewer corrections. Never longer:
	// on steady input the card has no local response, and a longer delay
	// would look free (lab's client.input_delay is no variant for that).
	if cfg.Client.InputDelay > 0 {
		out = append(out, []string{"client.input_delay=" + strconv.Itoa(int(cfg.Client.InputDelay)-1)})
	}
	for _, depth := range []int{cfg.Server.Buffer - 1, cfg.Server.Buffer + 1} {
		c := *cfg
		if lab.Set(&c, "server.buffer", strconv.Itoa(depth)) == nil {
			out = append(out, []string{"server.buffer=" + strconv.Itoa(depth)})
		}
	}
	return out
}

// beamWidth is how many combinations each round of the search keeps.
const beamWidth = 3

// maxDepth bounds the combinations' size.
const maxDepth = 4

// state is a combination the search keeps: its settings, its arm, the
// steps that built it, and the changes tried on top of it (ranked
// against it) once it is expanded.
type state struct {
	combo []string
	arm   *Arm
	steps []Step
	tried []Change
	// parent is the state a step of the search extended (nil for the
	// first round's); extended says a child of this state was kept.
	parent   *state
	extended bool
}

// rankKey orders states by the primary metric against the reference,
// then the tie-break.
func (d *diag) better(r *Result, a, b *state) int {
	return d.rank(compare(r.Reference, a.arm, "", d.primary, d.tie), compare(r.Reference, b.arm, "", d.primary, d.tie))
}

// keep takes from cands (ranked best first) the first beamWidth that hold
// in every cell of the ensemble, trying at most beamWidth+maxRobustTries;
// the ones that do not hold, ranked above the last kept, are returned to
// be named.
func (d *diag) keep(r *Result, cands []*state) (kept []*state, fragile []*Robustness, err error) {
	tries := 0
	for _, s := range cands {
		if len(kept) == beamWidth || tries == beamWidth+maxRobustTries {
			break
		}
		tries++
		rb, err := d.robust(r, s.combo, s.arm)
		if err != nil {
			return nil, nil, err
		}
		if !rb.Everywhere() {
			fragile = append(fragile, rb)
			continue
		}
		s.steps[len(s.steps)-1].Robust = rb
		// The step names the better changes that failed somewhere among
		// those tried on its own combination; the beam's other
		// combinations have steps of their own.
		step := &s.steps[len(s.steps)-1]
		step.NotRobust = triedOn(fragile, step.On)
		kept = append(kept, s)
	}
	return kept, fragile, nil
}

// triedOn keeps the candidates of fragile tried on top of combo (a change,
// or in the first round a pair): a step names those, not the failures of
// the beam's other combinations.
func triedOn(fragile []*Robustness, combo []string) []*Robustness {
	var out []*Robustness
	for _, f := range fragile {
		if len(f.Sets) > len(combo) && comboKey(f.Sets[:len(combo)]) == comboKey(combo) {
			out = append(out, f)
		}
	}
	return out
}

// extensions are the changes tried on top of a combination: every single
// change except those that change nothing in the report card on any seed
// (they can matter only with a partner: together's pairs are tried).
func extensions(r *Result) []Change {
	var out []Change
	for _, c := range r.Changes {
		if c.SameAs != "" || sameCard(r.Reference, c.arm) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// sameCard reports whether two arms have the same report card on every seed.
func sameCard(a, b *Arm) bool {
	for i := range a.Card {
		if !slices.Equal(a.Card[i].PerSeed, b.Card[i].PerSeed) {
			return false
		}
	}
	return true
}

func comboKey(sets []string) string {
	s := slices.Clone(sets)
	slices.Sort(s)
	return strings.Join(s, " ")
}

// pairsBeforeTheirParts moves each pair (a state of two changes: the
// first round's pairs beat each part, by the metric or by paying back
// what the part costs) ahead of the first of its parts that ranks above
// it: a pair that beats a change is the better answer when both hold.
func pairsBeforeTheirParts(cands []*state) []*state {
	out := slices.Clone(cands)
	for i := 0; i < len(out); i++ {
		if len(out[i].combo) != 2 {
			continue
		}
		for j := 0; j < i; j++ {
			if len(out[j].combo) == 1 && slices.Contains(out[i].combo, out[j].combo[0]) {
				p := out[i]
				copy(out[j+1:i+1], out[j:i])
				out[j] = p
				break
			}
		}
	}
	return out
}

// search is the beam search for the recommendation: its first round is
// every single change that meets the bar and every pair that beats the
// reference and its parts; each round keeps the beamWidth best that hold
// in every cell, and tries every other change on top of each; a change on
// top must meet the bar against the combination it joins (or hold there
// and pay back a figure the combination made worse: Change.repays), and
// the combination it makes must hold against the reference. The answer
// is the best of the last round that kept any, unless a path that ended
// earlier beats it on every figure (undominated).
func (d *diag) search(r *Result) (*state, error) {
	var cands []*state
	for _, c := range r.Changes {
		if c.improves() && c.SameAs == "" {
			cands = append(cands, &state{combo: []string{c.Set}, arm: c.arm,
				steps: []Step{{On: []string{}, Tried: r.Changes, Taken: c.Set, Primary: c.arm.Stat(d.primary).Mean.Mean}}})
		}
	}
	var pairTried []Change
	for _, p := range r.Pairs {
		pairTried = append(pairTried, p.VsReference)
	}
	for _, p := range r.Pairs {
		if p.Beats {
			cands = append(cands, &state{combo: slices.Clone(p.Sets), arm: p.VsReference.arm,
				steps: []Step{{On: []string{}, Tried: pairTried, Taken: p.VsReference.Set, Primary: p.VsReference.arm.Stat(d.primary).Mean.Mean, Pair: true}}})
		}
	}
	slices.SortStableFunc(cands, func(a, b *state) int { return d.better(r, a, b) })
	cands = pairsBeforeTheirParts(cands)
	beam, fragile, err := d.keep(r, cands)
	if err != nil {
		return nil, err
	}
	if len(beam) == 0 {
		// Nothing holds: the step says what was passed over.
		return &state{arm: r.Reference, steps: []Step{{On: []string{}, Tried: r.Changes, NotRobust: fragile}}}, nil
	}
	all := slices.Clone(beam) // every state kept, to find the answer among the leaves
	ext := extensions(r)
	for depth := 1; depth < maxDepth; depth++ {
		var jobs [][]string
		var owner []int
		for i, s := range beam {
			for _, next := range onTop(s.combo, ext) {
				jobs = append(jobs, next)
				owner = append(owner, i)
			}
		}
		if len(jobs) == 0 {
			break
		}
		arms, err := d.runArms(jobs)
		if err != nil {
			return nil, err
		}
		var children []*state
		seen := map[string]bool{}
		for i, s := range beam {
			var mine []*Arm
			for j := range jobs {
				if owner[j] == i {
					mine = append(mine, arms[j])
				}
			}
			s.tried = d.changes(s.arm, mine)
			onRef := compare(r.Reference, s.arm, "", d.primary, d.tie)
			for _, c := range s.tried {
				combo := append(slices.Clone(s.combo), c.Set)
				if v := r.vsReference(c); !c.takenOn(onRef) || !v.holds() || seen[comboKey(combo)] {
					continue
				}
				seen[comboKey(combo)] = true
				steps := append(slices.Clone(s.steps), Step{On: slices.Clone(s.combo), Tried: s.tried, Taken: c.Set, Primary: c.arm.Stat(d.primary).Mean.Mean, Repays: c.repays(onRef)})
				children = append(children, &state{combo: combo, arm: c.arm, steps: steps, parent: s})
			}
		}
		slices.SortStableFunc(children, func(a, b *state) int { return d.better(r, a, b) })
		kept, fragile, err := d.keep(r, children)
		if err != nil {
			return nil, err
		}
		if len(kept) == 0 {
			// The best of this round ends here: its last step says why,
			// with the changes on top of it that did not hold.
			best := beam[0]
			best.steps = append(best.steps, Step{On: slices.Clone(best.combo), Tried: best.tried, NotRobust: triedOn(fragile, best.combo)})
			return d.undominated(r, best, all), nil
		}
		for _, k := range kept {
			k.parent.extended = true
		}
		all = append(all, kept...)
		beam = kept
	}
	return d.undominated(r, beam[0], all), nil
}

// undominated is the search's answer: best (the best of its last round)
// unless a path that ended earlier beats it on the report card, making no
// figure significantly worse than best does and at least one
// significantly better (paired over the seeds, with the floors). A deeper
// path is not a better one: each step met the bar against the step
// before it, not against the other paths. The first such leaf in rank
// order is the answer, its last step saying what it was chosen over.
func (d *diag) undominated(r *Result, best *state, all []*state) *state {
	var leaves []*state
	for _, s := range all {
		if !s.extended && s != best {
			leaves = append(leaves, s)
		}
	}
	slices.SortStableFunc(leaves, func(a, b *state) int { return d.better(r, a, b) })
	for _, l := range leaves {
		c := d.change(best.arm, l.arm, "")
		if len(c.Worse) > 0 || len(c.Better) == 0 {
			continue
		}
		out := *l
		out.steps = append(slices.Clone(l.steps), Step{On: slices.Clone(l.combo), Tried: l.tried, Over: slices.Clone(best.combo), OverBetter: c.Better})
		return &out
	}
	return best
}
