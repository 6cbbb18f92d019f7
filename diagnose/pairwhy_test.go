package diagnose

import (
	"regexp"
	"strings"
	"testing"

	"jitterlab/stats"
)

// A pair that is not taken says why (qa2): handover's client.snap=2.5 +
// client.corrector=proportional read "against client.snap=2.5 alone judder
// -0.057 ± 0.060 m/s, progress deficit -0.124 ± 0.115 * m/s: it does not
// beat client.snap=2.5 alone", though the tie-break is significantly
// better; what kept it was a third figure, visible lag p50, made worse,
// which the line never named. Each way a pair falls short is said.
func TestPairVerdictSaysWhy(t *testing.T) {
	judder, _ := LookupMetric("judder_mps")
	deficit, _ := LookupMetric("progress_deficit_mps")
	sig := func(m float64) stats.Diff {
		return stats.Diff{Interval: stats.Interval{N: 20, Mean: m, Half: 0.01}, Significant: true}
	}
	none := stats.Diff{Interval: stats.Interval{N: 20, Mean: -0.05, Half: 0.06}}
	good := Change{Primary: sig(-1.4), TieBreak: none}
	for _, c := range []struct {
		name          string
		ref, onA, onB Change
		want          string
	}{
		{"the reference, tie-break worse", Change{Primary: sig(-1.43), TieBreak: sig(0.016)}, good, good,
			"it does not meet the bar against the reference (judder better, but progress deficit worse)"},
		// Since qa3 a cost within its allowance (visible lag p50 +0.015 m)
		// no longer stops it; a figure outside the costs made worse does.
		{"a part, a third figure worse", good, card(map[string][2]float64{"progress_deficit_mps": {-0.124, 0.010}, "hesitation_share": {0.049, 0.017}}), good,
			"it does not beat a=1 alone (no significant judder change; progress deficit better, but hesitation share +0.049 ± 0.017 worse)"},
		{"a part, nothing significant", good, good, Change{Primary: none, TieBreak: none},
			"it does not beat b=2 alone (no significant change in judder or progress deficit)"},
		{"a part, judder worse", good, Change{Primary: sig(0.2), TieBreak: none}, good,
			"it does not beat a=1 alone (judder worse)"},
		{"a part, tie-break worse", good, Change{Primary: none, TieBreak: sig(0.1)}, good,
			"it does not beat a=1 alone (no significant judder change, progress deficit worse)"},
	} {
		r := &Result{metric: judder, tie: deficit, Pairs: []Pair{{Sets: []string{"a=1", "b=2"}, VsReference: c.ref, OnParts: [2]Change{c.onA, c.onB}}}}
		if got := r.PairLine(0); !strings.HasSuffix(got, ": "+c.want) {
			t.Errorf("%s: %q\nwant it to end %q", c.name, got, c.want)
		}
	}
}

// The headline never says a finding "costs" a negative amount (qa2):
// mobile-4g read "the first finding below costs judder -0.031 ± 0.056
// m/s". A finding that changes the metric by nothing significant says so,
// and one that lowers it significantly says it lowers it.
func TestHeadlineSaysNoNegativeCost(t *testing.T) {
	judder, _ := LookupMetric("judder_mps")
	deficit, _ := LookupMetric("progress_deficit_mps")
	diff := func(mean, half float64) stats.Diff { return knownDiff(20, mean, half) }
	for _, c := range []struct {
		cost stats.Diff
		want string
	}{
		{diff(-0.031, 0.056), "(the first finding below costs judder nothing significant: -0.031 ± 0.056 m/s)"},
		{diff(0.020, 0.056), "(the first finding below costs judder nothing significant: +0.020 ± 0.056 m/s)"},
		{diff(-0.040, 0.020), "(the first finding below lowers judder by 0.040 ± 0.020 m/s)"},
	} {
		r := &Result{metric: judder, tie: deficit, Problem: true, LinkCost: [2]stats.Diff{diff(0.342, 0.044), diff(0.401, 0.064)}}
		r.Findings = []Finding{{Text: "the server overwrote", Problem: true, Cost: c.cost}}
		if got := r.Headline(); !strings.Contains(got, c.want) {
			t.Errorf("cost %+v: headline %q\nwant it to contain %q", c.cost.Interval, got, c.want)
		}
	}
}

// A lasting latency step is measured by the input delay it moves (qa2):
// handover's step from 100 to 60 ms at 21 s read "input delay p99 144.4 ±
// 5.8 ms with the latency step and 144.4 ± 5.8 ms without", true and
// empty, since the p99 lies in the first 21 s at 100 ms either way. A step
// gives the p50 (the level it moves), a spike the p99 (latency-spike: its
// 2 s at 300 ms), and the two figures differ.
func TestLatencyStepSaysTheInputDelayItMoves(t *testing.T) {
	re := regexp.MustCompile(`input delay (p\d\d) (\S+) ± \S+ ms with the latency (?:step|spike) and (\S+) ± \S+ ms without`)
	for _, c := range []struct{ scenario, pct string }{{"handover", "p50"}, {"latency-spike", "p99"}} {
		o := options(t, c.scenario)
		if c.scenario == "handover" {
			o = sharedOptions(t, c.scenario)
		}
		r := run(t, o)
		f, ok := finding(r, "latency-step")
		if !ok {
			t.Fatalf("%s: no latency-step finding", c.scenario)
		}
		m := re.FindStringSubmatch(f.Text)
		if m == nil || m[1] != c.pct || m[2] == m[3] {
			t.Errorf("%s: want the input delay %s, different with and without; got %q in\n%s", c.scenario, c.pct, m, f.Text)
		}
	}
}
