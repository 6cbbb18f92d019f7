package diagnose

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"jitterlab/stats"
)

// SeedList writes seeds compactly: "1-20", "1,4,9-11".
func SeedList(seeds []uint64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j+1] == seeds[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", seeds[i], seeds[j]))
		} else {
			parts = append(parts, strconv.FormatUint(seeds[i], 10))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// FormatDiff writes a paired difference "−0.107 ± 0.010 *" (* significant).
func FormatDiff(d stats.Diff, prec int) string {
	if math.IsNaN(d.Mean) {
		return "-" // no data (a local response with no throttle change)
	}
	s := d.Format(prec)
	if d.Mean >= 0 || s[0] != '-' {
		s = "+" + s
	}
	s = strings.Replace(s, "+-", "-", 1)
	if strings.HasPrefix(s, "-") && strings.Trim(s[1:strings.Index(s, " ")], "0.") == "" {
		s = "+" + s[1:] // no "-0.000"
	}
	if d.Significant {
		s += " *"
	}
	return s
}

// FormatInterval is iv.Format(prec), or "-" for no data.
func FormatInterval(iv stats.Interval, prec int) string {
	if math.IsNaN(iv.Mean) {
		return "-"
	}
	return iv.Format(prec)
}

// mainCauseShare is the share of the link's cost a finding must explain to
// be headlined as the main cause.
const mainCauseShare = 0.25

// Headline is the diagnosis in one sentence.
func (r *Result) Headline() string { return r.headline(false) }

// BriefHeadline is Headline in at most two lines of a screen: what the
// link costs and how much of it the first finding explains, for a box
// that shows the finding and the ranked changes right below.
func (r *Result) BriefHeadline() string { return r.headline(true) }

func (r *Result) headline(brief bool) string {
	if !r.Problem {
		if brief {
			return "The link causes no significant problem."
		}
		return "The link causes no significant problem: " + r.noProblem()
	}
	// What is drawn is the game's own, link or none: the first such
	// problem is said first, and the link's cost is shared out among the
	// findings whose changes reach the game underneath.
	lead, link, nth := "", r.Findings, "first"
	if i := slices.IndexFunc(r.Findings, func(f Finding) bool { return f.Problem && f.PresentationOnly }); i >= 0 {
		lead, link = r.presentationLead(r.Findings[i], ordinal(i), brief)+" ", nil
		for j, f := range r.Findings {
			if !f.PresentationOnly {
				if link == nil {
					nth = ordinal(j)
				}
				link = append(link, f)
			}
		}
	}
	return lead + r.linkHeadline(link, nth, lead != "", brief)
}

// ordinal names the finding at index i: "first", "second", … ("finding
// 12" past the tenth).
func ordinal(i int) string {
	words := []string{"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"}
	if i < len(words) {
		return words[i]
	}
	return "finding " + strconv.Itoa(i+1)
}

// presentationLead says what the finding f, the nth, costs the reference
// through what is drawn alone: the same runs with its change.
func (r *Result) presentationLead(f Finding, nth string, brief bool) string {
	// In the primary metric, or in the tie-break when that is where the
	// change helps (a deficit metric the presentation does not touch).
	m, cost := r.metric, f.Cost
	if !(cost.Significant && cost.Mean > 0) {
		m, cost = r.tie, f.FixTie
		cost.Mean = -cost.Mean
	}
	said := m.Label + " " + m.Quantity(FormatDiff(cost, m.Prec))
	if brief {
		return "The presentation costs " + said + " (the " + nth + " finding below)."
	}
	ref := r.Reference.Stat(m).Mean.Mean
	return fmt.Sprintf("The presentation (the %s finding below) costs %s: with %s, the same game underneath has %s %s "+
		"instead of %s.", nth, said, f.Fix, m.Label, m.Quantity(strconv.FormatFloat(ref-cost.Mean, 'f', m.Prec, 64)),
		m.Quantity(strconv.FormatFloat(ref, 'f', m.Prec, 64)))
}

// linkHeadline shares out what the link costs among the findings fs, the
// nth of the findings listed on; after the presentation's sentence
// (after) it says "of the link's cost" where a headline alone says "main
// cause".
func (r *Result) linkHeadline(fs []Finding, nth string, after, brief bool) string {
	m, link := r.metric, r.LinkCost[0]
	linkCosts := func(d stats.Diff) bool { return d.Significant && d.Mean > 0 }
	if after && !linkCosts(r.LinkCost[0]) && !linkCosts(r.LinkCost[1]) {
		// A problem the link does not add to is the game's own: said
		// with what it costs, or the presentation would seem all there is.
		if len(fs) > 0 && fs[0].Problem && linkCosts(fs[0].Cost) {
			cost := m.Label + " " + m.Quantity(FormatDiff(fs[0].Cost, m.Prec))
			if brief {
				return "The link costs nothing significant; the " + nth + " finding, the game's own, costs " + cost + "."
			}
			return fmt.Sprintf("The link costs nothing significant over the same game on a perfect link. The game's own "+
				"(the %s finding below) costs %s: %s.", nth, cost, fs[0].Text)
		}
		return "The link costs nothing significant over the same game on a perfect link."
	}
	if len(fs) > 0 && fs[0].Problem {
		f := fs[0]
		cost := m.Label + " " + m.Quantity(FormatDiff(link, m.Prec))
		// A mechanism is the main cause when it explains a real share of
		// what the link costs, measured in the same metric.
		if !linkCosts(link) || f.Cost.N == 0 || f.Cost.Mean >= mainCauseShare*link.Mean {
			switch {
			case brief && after:
				return "Main cause of the link's cost: the " + nth + " finding."
			case brief:
				return "Main cause: the first finding below."
			case after:
				return "Main cause of what the link costs (" + cost + "): " + f.Text + "."
			}
			return "Main cause: " + f.Text + "."
		}
		if !linkCosts(f.Cost) {
			if brief {
				return "The link costs " + cost + "; the " + nth + " finding explains no significant part of it: the ranked changes are the evidence."
			}
			// A problem for the tie-break only: no share of this metric.
			// Never a negative cost: nothing significant, or it lowers it.
			effect := "costs " + m.Label + " nothing significant: " + m.Quantity(plain(f.Cost, m.Prec))
			if f.Cost.Significant {
				effect = "lowers " + m.Label + " by " + m.Quantity(strings.TrimPrefix(plain(f.Cost, m.Prec), "-"))
			}
			return fmt.Sprintf("The link costs %s over the same game on a perfect link; no mechanism found explains a significant "+
				"part of it (the %s finding below %s), and the rules name no mechanism for the rest: the ranked changes below are the evidence.",
				cost, nth, effect)
		}
		share := 100 * f.Cost.Mean / link.Mean
		if brief {
			return fmt.Sprintf("The link costs %s; the %s finding explains %.0f %% of it: the ranked changes are the evidence for the rest.", cost, nth, share)
		}
		return fmt.Sprintf("The link costs %s over the same game on a perfect link; the largest mechanism found (the %s "+
			"finding below) explains %.0f %% of it (%s), and the rules name no mechanism for the rest: the ranked changes below are the evidence.",
			cost, nth, share, m.Quantity(FormatDiff(f.Cost, m.Prec)))
	}
	d := link
	if !linkCosts(d) {
		m, d = r.tie, r.LinkCost[1]
	}
	cost := m.Label + " " + m.Quantity(FormatDiff(d, m.Prec))
	why := "no rule names the mechanism"
	if len(fs) > 0 {
		why = "none of the mechanisms the findings name is what costs it (their changes do not improve it significantly)"
	}
	if brief {
		if len(fs) > 0 {
			why = "no finding's change improves it significantly"
		}
		return "The link costs " + cost + "; " + why + ": the ranked changes are the evidence."
	}
	return fmt.Sprintf("The link costs %s over the same game on a perfect link, and %s: "+
		"the ranked changes below are the evidence.", cost, why)
}

func (r *Result) noProblem() string {
	ref := r.Reference.Stat(r.metric).Mean
	s := fmt.Sprintf("the report card matches the same game on a perfect link within its intervals (%s %s; "+
		"difference %s)", r.metric.Label, r.metric.Quantity(ref.Format(r.metric.Prec)), FormatDiff(r.LinkCost[0], r.metric.Prec))
	costs := func(f Finding) bool { return f.Cost.Significant && f.Cost.Mean > 0 }
	if i := slices.IndexFunc(r.Findings, costs); i >= 0 {
		// No problem, yet a cost: a trade, or a mechanism its counters do
		// not show (Finding.Confirmed).
		f, why := r.Findings[i], "removing it makes "+r.tie.Label+" significantly worse: a trade"
		if !f.Confirmed && f.Counters != nil {
			why = "its counters do not show the mechanism"
		}
		s += fmt.Sprintf("; the %s finding's mechanism costs %s %s, but it is no problem here: %s.", ordinal(i), r.metric.Label,
			r.metric.Quantity(FormatDiff(f.Cost, r.metric.Prec)), why)
	} else if len(r.Findings) == 0 {
		s += " and no rule found a mechanism that a change fixes."
	} else {
		s += "; the mechanisms the findings name cost nothing significant here."
	}
	if len(r.Recommended) == 0 {
		return s + " What remains is the game's own, the same on a perfect link."
	}
	var effects []string
	for i, m := range Metrics {
		if d := r.BestVsReference[i]; d.Significant {
			effects = append(effects, m.Effect(d))
		}
	}
	return s + " Still, independent of the link, " + strings.Join(r.Recommended, " ") + " would change " +
		strings.Join(effects, ", ") + " (the combination below)."
}

// ChangeLine says what the finding's change does to the reference: which
// report-card metrics it makes significantly better and which worse; ""
// when the finding names no change (no change tried acts on a timeline
// mechanism).
func (r *Result) ChangeLine(f *Finding) string {
	if f.Fix == "" {
		return ""
	}
	verdict := "no significant effect on the report card here"
	switch {
	case len(f.Better) > 0 && len(f.Worse) > 0:
		verdict = "significantly better: " + strings.Join(f.Better, ", ") + "; significantly worse: " + strings.Join(f.Worse, ", ")
	case len(f.Better) > 0:
		verdict = "significantly better: " + strings.Join(f.Better, ", ")
	case len(f.Worse) > 0:
		verdict = "significantly worse: " + strings.Join(f.Worse, ", ")
	}
	s := fmt.Sprintf("change %s: %s %s, %s %s: %s", f.Fix, r.metric.Label, r.metric.Quantity(FormatDiff(f.FixPrimary, r.metric.Prec)),
		r.tie.Label, r.tie.Quantity(FormatDiff(f.FixTie, r.tie.Prec)), verdict)
	if len(f.Counters) > 0 {
		s += "; per run " + strings.Join(f.Counters, ", ")
	}
	if name, ok := implied[f.Rule]; ok && !f.Confirmed {
		s += "; not confirmed: the " + name + " count does not fall with it"
	}
	return s
}

// NoRecommendation says why nothing is recommended: no change improves the
// metric significantly, or each one that does makes the tie-break
// significantly worse (the search takes no change at that cost).
func (r *Result) NoRecommendation() string {
	var refused []string
	for _, c := range r.Changes {
		// A change marked the same as another is not counted twice.
		if c.Primary.Significant && c.Primary.Mean < 0 && !c.improves() && c.SameAs == "" {
			refused = append(refused, fmt.Sprintf("%s (%s %s; %s)", c.Set, r.metric.Label, plain(c.Primary, r.metric.Prec), r.refusal(c)))
		}
	}
	pairs := ""
	beats := 0
	for _, p := range r.Pairs {
		if p.Beats {
			beats++
		}
	}
	switch {
	case len(r.Pairs) == 0:
	case beats > 0:
		pairs = fmt.Sprintf("; %d of the %d pairs tried meet%s the bar against the reference and against each of its parts, but not in "+
			"every cell of the ensemble", beats, len(r.Pairs), map[bool]string{true: "s", false: ""}[beats == 1])
	case len(r.Pairs) == 1:
		pairs = "; the 1 pair tried does not meet the bar against the reference and against each of its parts"
	default:
		pairs = fmt.Sprintf("; none of the %d pairs tried meets the bar against the reference and against each of its parts", len(r.Pairs))
	}
	var fragile []string
	for _, c := range r.Changes {
		if c.Robust != nil && !c.Robust.Everywhere() {
			fragile = append(fragile, c.Set)
		}
	}
	if len(fragile) > 0 {
		// Met here, failed elsewhere: the steps below say where.
		verb := "meets"
		if len(fragile) > 1 {
			verb = "meet"
		}
		pairs = fmt.Sprintf("; %s %s the bar here but not in every cell of the ensemble (the step below says where)%s",
			strings.Join(fragile, ", "), verb, pairs)
	}
	switch len(refused) {
	case 0:
		if len(fragile) > 0 {
			return "no change meets the bar in every cell" + pairs + ": nothing to recommend"
		}
		return "no change improves " + r.metric.Label + " significantly" + pairs + ": nothing to recommend"
	case 1:
		return "1 change improves " + r.metric.Label + " significantly, but at a cost the bar does not allow: " +
			refused[0] + pairs + "; nothing is recommended without a cost"
	}
	return fmt.Sprintf("%d changes improve %s significantly, but each at a cost the bar does not allow: %s%s; "+
		"nothing is recommended without a cost", len(refused), r.metric.Label, strings.Join(refused, ", "), pairs)
}

// PairsHead says which pairs were tried, and what they cost in runs.
func (r *Result) PairsHead() string {
	var known []string
	for _, p := range r.Pairs {
		if knownPair(p.Sets) {
			known = append(known, strings.Join(p.Sets, " + "))
		}
	}
	with := ""
	if len(known) > 0 {
		with = ", and the changes known to act together (" + strings.Join(known, ", ") + ")"
	}
	return fmt.Sprintf("pairs (the best %d single changes that improve %s or %s significantly, two at a time%s: %d pair%s, %d more "+
		"runs; paired over %d seeds; a pair is taken only when it meets the bar against the reference and against each of its parts alone)",
		maxPairParts, r.metric.Label, r.tie.Label, with, len(r.Pairs), plural(len(r.Pairs)), len(r.Pairs)*len(r.Conditions.Seeds), len(r.Conditions.Seeds))
}

// knownPair reports whether sets is a pair known to act together: one of
// together's, or a prerequisite's change with the setting it needs.
func knownPair(sets []string) bool {
	for _, k := range together {
		if comboKey(sets) == comboKey(k[:]) {
			return true
		}
	}
	for _, p := range prerequisites {
		if slices.Contains(sets, p.needs) && slices.ContainsFunc(sets, p.matches) {
			return true
		}
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// PairLine states one pair: against the reference and against each part
// alone, and whether it beats them all.
func (r *Result) PairLine(i int) string {
	p := r.Pairs[i]
	both := func(c Change) string {
		return fmt.Sprintf("%s %s, %s %s", r.metric.Label, r.metric.Quantity(FormatDiff(c.Primary, r.metric.Prec)),
			r.tie.Label, r.tie.Quantity(FormatDiff(c.TieBreak, r.tie.Prec)))
	}
	verdict := "it meets the bar against the reference and each part alone"
	parts := [2]Change{r.single(p.Sets[0]), r.single(p.Sets[1])}
	switch {
	case !p.VsReference.improves():
		verdict = "it does not meet the bar against the reference (" + r.shortfall(p.VsReference) + ")"
	case !p.OnParts[0].takenOn(parts[0]):
		verdict = "it does not beat " + p.Sets[0] + " alone (" + r.shortfall(p.OnParts[0]) + ")"
	case !p.OnParts[1].takenOn(parts[1]):
		verdict = "it does not beat " + p.Sets[1] + " alone (" + r.shortfall(p.OnParts[1]) + ")"
	case len(r.Steps) > 0 && r.Steps[0].Pair && r.Steps[0].Taken == p.VsReference.Set:
		verdict += ": taken"
	case r.robustness(p.Sets) != nil && !r.robustness(p.Sets).Everywhere():
		verdict += ", but it does not hold in every cell of the ensemble: it " + r.robustness(p.Sets).Text()
	default:
		verdict += ", but the search found better"
	}
	on := func(i int) string {
		s := both(p.OnParts[i])
		if rp := p.OnParts[i].repays(parts[i]); len(rp) > 0 {
			s += ", and it pays back " + strings.Join(rp, ", ")
		}
		return s
	}
	return fmt.Sprintf("%s + %s: against the reference %s; against %s alone %s; against %s alone %s: %s", p.Sets[0], p.Sets[1],
		both(p.VsReference), p.Sets[0], on(0), p.Sets[1], on(1), verdict)
}

// single is the single change set on the reference.
func (r *Result) single(set string) Change {
	if i := slices.IndexFunc(r.Changes, func(c Change) bool { return c.Set == set }); i >= 0 {
		return r.Changes[i]
	}
	return Change{}
}

// shortfall says why a change does not meet the bar (Change.improves):
// the metric worse, or better at the tie-break's cost or at a cost the
// bar does not allow; or no significant change in it and the tie-break
// worse, not better, or better at such a cost (it names the first two).
func (r *Result) shortfall(c Change) string {
	m, t := r.metric.Label, r.tie.Label
	switch {
	case c.Primary.Significant && c.Primary.Mean > 0:
		return m + " worse"
	case c.Primary.Significant && c.TieBreak.Significant && c.TieBreak.Mean > 0:
		return m + " better, but " + t + " worse"
	case c.Primary.Significant:
		return m + " better, but " + r.breaks(c)
	case c.TieBreak.Significant && c.TieBreak.Mean > 0:
		return "no significant " + m + " change, " + t + " worse"
	case c.TieBreak.Significant:
		return "no significant " + m + " change; " + t + " better, but " + r.breaks(c)
	}
	return "no significant change in " + m + " or " + t
}

// RankingLegend says how the changes are ranked: those that meet the bar
// first (Change.improves), then the others, each group best first, and
// what the mark § says (Result.ShortOfTheBar).
func (r *Result) RankingLegend() string {
	return fmt.Sprintf("ranked: first the changes that meet the bar, best first; then the others, best first (by %s, then %s). "+
		"§ marks a change that improves one of them significantly but does not meet the bar; the notes say why.", r.metric.Label, r.tie.Label)
}

// MarkedSet is ch's set as the changes table shows it, with its marks (†
// a change that is another here, Change.SameAs; § one that improves but
// does not meet the bar, ShortOfTheBar), and the note each mark refers to
// ("" for a mark it does not have).
func (r *Result) MarkedSet(ch Change) (set, sameAs, short string) {
	set = ch.Set
	if ch.SameAs != "" {
		set += " †"
		sameAs = "† " + ch.Set + ": " + ch.SameAs
	}
	if why := r.ShortOfTheBar(ch); why != "" {
		set += " §"
		short = "§ " + ch.Set + " does not meet the bar: " + why
	}
	return set, sameAs, short
}

// ChangesTable is the changes table, one row per change in rank (its
// rank, the change with its marks, the primary and the tie-break
// differences, where it holds), and the notes the marks refer to: †, a
// change that is another here (Change.SameAs), then §, one that improves
// but does not meet the bar (ShortOfTheBar).
func (r *Result) ChangesTable() (rows [][]string, notes []string) {
	var shorts []string
	for i, ch := range r.Changes {
		set, same, short := r.MarkedSet(ch)
		if same != "" {
			notes = append(notes, same)
		}
		if short != "" {
			shorts = append(shorts, short)
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), set, FormatDiff(ch.Primary, r.metric.Prec), FormatDiff(ch.TieBreak, r.tie.Prec), ch.HoldsIn()})
	}
	return rows, append(notes, shorts...)
}

// ShortOfTheBar says why a change that makes the metric or the tie-break
// significantly better does not meet the bar (Result.shortfall), which
// ranks it below every change that does, even one it improves more than:
// "judder better, but snaps +1.05 ± 0.04 /min worse". It is "" for a
// change that meets the bar or improves neither.
func (r *Result) ShortOfTheBar(c Change) string {
	better := func(d stats.Diff) bool { return d.Significant && d.Mean < 0 }
	if c.improves() || !(better(c.Primary) || better(c.TieBreak)) {
		return ""
	}
	return r.shortfall(c)
}

// Bar states the bar every change is held to (Change.improves): what must
// get better, the costs that may get worse and by how much, and against
// what a single change, a pair and a step of the search are measured.
func (r *Result) Bar() string {
	return fmt.Sprintf("the bar: a change is taken when it makes %s or %s significantly better and neither significantly worse, "+
		"keeps each cost within its allowance (%s, the mean difference as shown, when significant) and makes no other figure significantly worse; "+
		"the same for a single change (against the reference), a pair (against the reference and against each part alone) and a "+
		"step of the search (against the combination before it, and the combination it makes against the reference); a pair or a step "+
		"that holds and pays back a figure its part or the combination before it made significantly worse is taken too",
		r.metric.Label, r.tie.Label, AllowanceText())
}

// FloorLine states the practical floor the bar reads "significantly" by
// (docs/explanation/diagnose-bar.md).
func (r *Result) FloorLine() string {
	return "the floor: " + FloorText()
}

// AllowanceText states the costs and their allowances: "local response p50,
// p95, p99 up to +50.0 ms, visible lag p50, p99 up to +50.0 ms".
func AllowanceText() string {
	var parts []string
	last := ""
	for _, a := range Costs {
		m, _ := LookupMetric(a.Metric)
		name, pct, _ := strings.Cut(m.Label, " p")
		up := " up to +" + m.Quantity(strconv.FormatFloat(a.Max, 'f', m.Prec, 64))
		if n := len(parts); n > 0 && strings.HasPrefix(last, name+" ") && strings.HasSuffix(parts[n-1], up) {
			parts[n-1] = strings.TrimSuffix(parts[n-1], up) + ", p" + pct + up
			continue
		}
		parts = append(parts, m.Label+up)
		last = m.Label
	}
	return strings.Join(parts, ", ")
}

// breaks names the first two figures that break the bar (Change.breaks).
func (r *Result) breaks(c Change) string {
	b := c.breaks()
	if len(b) > 2 { // the first two say it; --json lists them all
		return fmt.Sprintf("%s and %d more figure%s", strings.Join(b[:2], ", "), len(b)-2, plural(len(b)-2))
	}
	return strings.Join(b, ", ")
}

// refusal is what keeps a change that improves the metric from the bar:
// the tie-break's cost, or the figures that break it.
func (r *Result) refusal(c Change) string {
	if c.TieBreak.Significant && c.TieBreak.Mean > 0 {
		return "costs " + r.tie.Label + " " + r.tie.Quantity(plain(c.TieBreak, r.tie.Prec))
	}
	return r.breaks(c)
}

// StepLine states one step of the search: the change taken
// and the metric after it, or why it ends (its best change, and that
// change's cost when it improves the metric but is not taken).
func (r *Result) StepLine(s Step) string {
	if s.Pair {
		return fmt.Sprintf("+ %s together (a pair: together they beat the reference and each alone) → %s %s%s",
			strings.Join(strings.Fields(s.Taken), " + "), r.metric.Name, strconv.FormatFloat(s.Primary, 'f', r.metric.Prec, 64), notRobust(s))
	}
	if s.Taken != "" {
		repays := ""
		if len(s.Repays) > 0 {
			repays = " (pays back " + strings.Join(s.Repays, ", ") + ")"
		}
		return fmt.Sprintf("+ %s → %s %s%s%s", s.Taken, r.metric.Name, strconv.FormatFloat(s.Primary, 'f', r.metric.Prec, 64), repays, notRobust(s))
	}
	if len(s.Over) > 0 {
		return fmt.Sprintf("chosen over %s (a longer path): against it no figure is significantly worse, and %s better",
			strings.Join(s.Over, " + "), strings.Join(s.OverBetter, ", "))
	}
	if len(s.NotRobust) > 0 {
		return "no further change meets the bar in every cell of the ensemble" + notRobust(s)
	}
	if len(s.Tried) == 0 {
		return "no further change improves significantly (nothing left to try)"
	}
	c := s.Tried[0]
	if c.improves() && c.arm != nil && r.Reference != nil {
		// It meets the bar on the combination, not against the reference.
		return fmt.Sprintf("no further change meets the bar (best %s %s; against the reference the combination with it: %s)",
			c.Set, plain(c.Primary, r.metric.Prec), r.shortfall(r.vsReference(c)))
	}
	if c.Primary.Significant && c.Primary.Mean < 0 {
		// It improves the metric but is not taken: say its cost.
		return fmt.Sprintf("no further change improves %s significantly without a cost (best %s %s; %s)",
			r.metric.Label, c.Set, plain(c.Primary, r.metric.Prec), r.refusal(c))
	}
	return fmt.Sprintf("no further change improves significantly (best %s %s)", c.Set, FormatDiff(c.Primary, r.metric.Prec))
}

// notRobust says which better candidates a step passed over because
// they fail somewhere in the ensemble: "; not taken: client.smoothing=
// movetowards, which holds at 4 of 4 latency offsets and 1 of 3 inputs; …".
func notRobust(s Step) string {
	var out []string
	for _, rb := range s.NotRobust {
		// The changes it adds to the combination before the step.
		out = append(out, strings.Join(rb.Sets[min(len(s.On), len(rb.Sets)-1):], " + ")+", which "+rb.Text())
	}
	if len(out) == 0 {
		return ""
	}
	return " (meets the bar here but not in every cell, so not taken: " + strings.Join(out, "; and ") + ")"
}

// EnsembleLine states the ensemble: "inputs steady, stopgo, random ×
// uplink latency +0, +12.5, +25, +37.5 ms: 12 cells; …".
func (r *Result) EnsembleLine() string {
	c := &r.Conditions
	var offs []string
	for _, o := range c.OffsetsMs {
		offs = append(offs, "+"+strconv.FormatFloat(o, 'f', -1, 64))
	}
	n := len(c.OffsetsMs) * len(c.Inputs)
	return fmt.Sprintf("inputs %s × uplink latency %s ms: %d cell%s; the search runs in the first (%s, %s ms), and a change "+
		"is taken only when it holds in every cell", strings.Join(c.Inputs, ", "), strings.Join(offs, ", "), n, plural(n), c.Input, offs[0])
}

// HoldsIn is the changes table's "holds in" cell: the cells of the
// ensemble the change holds in ("11/12 ‡", ‡ where it fails), for a change
// that meets the bar in the user's cell; "" for others.
func (c *Change) HoldsIn() string {
	rb := c.Robust
	if rb == nil {
		return ""
	}
	s := fmt.Sprintf("%d/%d", rb.Held(), len(rb.Cells))
	if !rb.Everywhere() {
		s += " ‡"
	}
	return s
}

// RobustnessNotes are the lines under the changes table: what "holds in"
// means, then where each change marked ‡ fails.
func (r *Result) RobustnessNotes() []string {
	var out []string
	for _, c := range r.Changes {
		if c.Robust == nil {
			continue
		}
		if len(out) == 0 {
			out = append(out, "holds in: the cells of the ensemble a change that meets the bar here holds in (nothing significantly "+
				"worse beyond the costs' allowances, against each cell's reference)")
		}
		if !c.Robust.Everywhere() {
			out = append(out, "‡ "+c.Set+" "+c.Robust.Text())
		}
	}
	return out
}

// RecommendedAcross states the recommendation across the ensemble
// ("" without one).
func (r *Result) RecommendedAcross() string {
	if rb := r.RecommendedRobustness(); rb != nil {
		return "across the ensemble: " + rb.Text()
	}
	return ""
}

// robustness is sets across the ensemble, when tried (nil otherwise).
func (r *Result) robustness(sets []string) *Robustness {
	for _, rb := range r.Robustness {
		if comboKey(rb.Sets) == comboKey(sets) {
			return rb
		}
	}
	return nil
}

// RecommendedRobustness is the recommendation across the ensemble (nil
// without one).
func (r *Result) RecommendedRobustness() *Robustness {
	for i := len(r.Steps) - 1; i >= 0; i-- {
		if r.Steps[i].Robust != nil {
			return r.Steps[i].Robust
		}
	}
	return nil
}

// plain is FormatDiff without the significance star.
func plain(d stats.Diff, prec int) string { return strings.TrimSuffix(FormatDiff(d, prec), " *") }

// Costs are the report-card metrics the recommendation makes significantly
// worse than the reference: "snaps +0.81 ± 0.24 /min".
func (r *Result) Costs() []string {
	var out []string
	for i, m := range Metrics {
		if d := r.BestVsReference[i]; d.Significant && d.Mean > 0 {
			out = append(out, m.Effect(d))
		}
	}
	return out
}

// CardPercent is the report card's change in percent for Metrics[i],
// recommended against reference ("-100 %"), or "" where none is given
// (ab's rule, batch.Result.Percent: not on a base near zero, half and ten
// times the last digit shown).
func (r *Result) CardPercent(i int) string {
	m := Metrics[i]
	ref, best := r.Reference.Stat(m).Mean, r.Best.Stat(m).Mean
	if p, ok := stats.ChangePercent(r.BestVsReference[i], ref, best, stats.SmallestEffect(m.Prec), stats.PercentFloor(m.Prec)); ok {
		return fmt.Sprintf("%+.0f %%", p)
	}
	return ""
}

// LinkLine compares the reference with the same game on a perfect link.
func (r *Result) LinkLine() string {
	return fmt.Sprintf("the link: against the same game on a perfect link, %s %s, %s %s "+
		"(95 %% intervals over %d seeds, * significant)", r.metric.Label, r.metric.Quantity(FormatDiff(r.LinkCost[0], r.metric.Prec)),
		r.tie.Label, r.tie.Quantity(FormatDiff(r.LinkCost[1], r.tie.Prec)), len(r.Conditions.Seeds))
}

// WriteText prints the diagnosis.
func (r *Result) WriteText(w io.Writer) error {
	var b bytes.Buffer
	c := &r.Conditions
	n := len(c.Seeds)
	fmt.Fprintln(&b, "lab diagnose: why does the player jitter, and what fixes it?")
	fmt.Fprintln(&b)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "conditions")
	fmt.Fprintf(tw, "  scenario\t%s\n", c.Scenario)
	if c.About != "" {
		fmt.Fprintf(tw, "  \t%s\n", c.About)
	}
	fmt.Fprintf(tw, "  overrides\t%s\n", orNone(strings.Join(c.Overrides, " ")))
	if len(c.Pinned) > 0 {
		fmt.Fprintf(tw, "  timeline entries overridden by --set\t%s (an override pins its key for the whole run)\n", strings.Join(c.Pinned, ", "))
	}
	fmt.Fprintf(tw, "  seeds\t%s (%d, the same for every variant)\n", SeedList(c.Seeds), n)
	fmt.Fprintf(tw, "  duration\t%v each\n", time.Duration(c.DurationS*float64(time.Second)))
	fmt.Fprintf(tw, "  version\t%s\n", c.Version)
	fmt.Fprintf(tw, "  ensemble\t%s\n", r.EnsembleLine())
	fmt.Fprintf(tw, "  metric\t%s, %s; %s breaks ties\n", r.metric.Named(), r.metric.Better(), r.tie.Name)
	tw.Flush()

	fmt.Fprintln(&b)
	if len(r.Findings) > 0 && r.Findings[0].Rule == "no-game" {
		fmt.Fprintln(&b, wrap(upper(r.Findings[0].Text)+".", "", "", 100))
		fmt.Fprintln(&b)
		fmt.Fprintln(&b, "Nothing else was run: every change would compare figures without data.")
		_, err := w.Write(b.Bytes())
		return err
	}
	fmt.Fprintln(&b, wrap(r.Headline(), "", "", 100))
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, wrap(r.LinkLine(), "", "", 100))

	if len(r.Attribution) > 0 {
		fmt.Fprintln(&b)
		fmt.Fprintln(&b, wrap(r.AttributionHead(), "", "  ", 100))
		for _, a := range r.Attribution {
			fmt.Fprintln(&b, wrap("- "+r.AttributionLine(a), "  ", "    ", 100))
		}
	}

	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "findings (ranked by what each costs)")
	if len(r.Findings) == 0 {
		fmt.Fprintln(&b, "  none: no rule's mechanism is at work here")
	}
	for i, f := range r.Findings {
		fmt.Fprintln(&b, wrap(fmt.Sprintf("%d. %s.", i+1, f.Text), "  ", "     ", 100))
		if f.Fix != "" {
			fmt.Fprintln(&b, wrap(r.ChangeLine(&f), "     ", "       ", 100))
		}
	}

	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "changes, one at a time on the reference (paired over %d seeds, change − reference)\n", n)
	fmt.Fprintln(&b, wrap(r.RankingLegend(), "  ", "    ", 100))
	changes, notes := r.ChangesTable()
	table(&b, append([][]string{{"", "change", r.metric.Name, r.tie.Name, "holds in"}}, settingLines(changes, 1)...))
	for _, s := range notes {
		fmt.Fprintln(&b, wrap(s, "  ", "    ", 100))
	}
	for _, s := range r.RobustnessNotes() {
		fmt.Fprintln(&b, wrap(s, "  ", "    ", 100))
	}

	if len(r.Pairs) > 0 {
		fmt.Fprintln(&b)
		fmt.Fprintln(&b, wrap(r.PairsHead(), "", "  ", 100))
		for i := range r.Pairs {
			fmt.Fprintln(&b, wrap(fmt.Sprintf("%d. %s.", i+1, r.PairLine(i)), "  ", "     ", 100))
		}
	}

	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "combination (beam search: keep the %d best combinations that meet the bar and hold in every cell, try every other change on top of each; the path to the best)\n", beamWidth)
	fmt.Fprintln(&b, wrap(r.Bar(), "  ", "    ", 100))
	fmt.Fprintln(&b, wrap(r.FloorLine(), "  ", "    ", 100))
	if len(r.Recommended) == 0 {
		fmt.Fprintln(&b, wrap(r.NoRecommendation(), "  ", "    ", 100))
	}
	for i, s := range r.Steps {
		fmt.Fprintln(&b, wrap(fmt.Sprintf("%d. %s", i+1, r.StepLine(s)), "  ", "     ", 100))
	}
	fmt.Fprintln(&b)
	fmt.Fprintf(&b, "recommended: %s\n", orNone(strings.Join(r.Recommended, " ")))
	if rb := r.RecommendedRobustness(); rb != nil {
		fmt.Fprintln(&b, wrap(r.RecommendedAcross(), "", "  ", 100))
	}
	if costs := r.Costs(); len(costs) > 0 {
		// Broken between costs only, so that each reads whole.
		line := "costs (significantly worse than the reference): " + costs[0]
		for _, c := range costs[1:] {
			if len([]rune(line))+2+len([]rune(c)) > 100 {
				fmt.Fprintln(&b, line+",")
				line = "  " + c
				continue
			}
			line += ", " + c
		}
		fmt.Fprintln(&b, line)
	}
	if r.Reproduce != "" {
		// One line, however long: it is to be copied.
		fmt.Fprintf(&b, "reproduce with: %s\n", r.Reproduce)
	}
	fmt.Fprintln(&b)
	rows := [][]string{{"report card", "reference", "recommended", "difference", ""}}
	for i, m := range Metrics {
		ref, best := r.Reference.Stat(m).Mean, r.Best.Stat(m).Mean
		d := r.BestVsReference[i]
		rows = append(rows, []string{m.Name, FormatInterval(ref, m.Prec), FormatInterval(best, m.Prec), FormatDiff(d, m.Prec), r.CardPercent(i)})
	}
	table(&b, rows)
	fmt.Fprintf(&b, "\n± is the 95 %% interval over the seeds; * the interval excludes 0. Seed %d is the one nearest the mean %s.\n",
		r.Representative, r.metric.Label)
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSON writes the diagnosis as indented JSON.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// settingLines is rows with the cell in column col of a change of several
// settings (assignments) on one line per setting, each but the last ending
// in its comma, the row's other cells on the first, the lines padded to
// one width so the right-aligned column keeps them flush: one row of the
// table, as narrow as its longest setting.
func settingLines(rows [][]string, col int) [][]string {
	var out [][]string
	for _, row := range rows {
		parts := strings.SplitAfter(row[col], ",")
		width := 0
		for _, p := range parts {
			width = max(width, utf8.RuneCountInString(p))
		}
		for i, p := range parts {
			line := make([]string, len(row))
			if i == 0 {
				copy(line, row)
			}
			if len(parts) > 1 {
				p += strings.Repeat(" ", width-utf8.RuneCountInString(p))
			}
			line[col] = p
			out = append(out, line)
		}
	}
	return out
}

func table(b *bytes.Buffer, rows [][]string) {
	start := b.Len()
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range rows {
		fmt.Fprintln(tw, "  "+strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	lines := strings.Split(strings.TrimSuffix(b.String()[start:], "\n"), "\n")
	b.Truncate(start)
	for _, l := range lines {
		b.WriteString(strings.TrimRight(l, " ") + "\n")
	}
}

// upper is s with its first letter upper-case.
func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// wrap breaks s into lines of at most width runes: the first line starts
// with first, the others with rest.
func wrap(s, first, rest string, width int) string {
	var lines []string
	line := first
	for _, w := range strings.Fields(s) {
		if strings.TrimSpace(line) != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = rest
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}
