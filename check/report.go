package check

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"jitterlab/batch"
	"jitterlab/internal/plural"
	"jitterlab/stats"
)

// Report is a check's verdicts: every gate and every assertion's result,
// in file and assertion order. Under Strict an inconclusive verdict fails.
type Report struct {
	Gates   []*Gate
	Results []Result
	Strict  bool
	Version string // the build
	// Warnings are, by gate, what went wrong with the game itself on some
	// seeds (RunGate): said beside the verdicts, which they do not change.
	Warnings map[*Gate][]string
}

// Counts are the verdicts: passed, failed and inconclusive assertions.
func (r *Report) Counts() (pass, fail, inconclusive int) {
	for _, x := range r.Results {
		switch x.Status {
		case Pass:
			pass++
		case Fail:
			fail++
		default:
			inconclusive++
		}
	}
	return
}

// Status is the check's verdict: Fail when an assertion failed, else
// Inconclusive when one is, else Pass.
func (r *Report) Status() Status {
	_, fail, inc := r.Counts()
	switch {
	case fail > 0:
		return Fail
	case inc > 0:
		return Inconclusive
	}
	return Pass
}

// Failing reports whether x fails the check: a failed assertion, or an
// inconclusive one under Strict.
func (r *Report) Failing(x *Result) bool {
	return x.Status == Fail || (r.Strict && x.Status == Inconclusive)
}

// Claim is the assertion as a sentence's subject: "judder_mps ≤ 0.3 m/s",
// "judder_mps − baseline ≤ 0.02 m/s".
func (a *Assertion) Claim() string {
	name := a.Metric.Name
	if a.Relative() {
		name += " − baseline"
	}
	op := "≤"
	if !a.Upper() {
		op = "≥"
	}
	return fmt.Sprintf("%s %s %s", name, op, quantity(fmt.Sprintf("%g", a.Limit), a.Unit))
}

func quantity(v, unit string) string {
	if unit == "" {
		return v
	}
	if strings.HasPrefix(unit, "/") || unit == "%" {
		return v + unit
	}
	return v + " " + unit
}

// Value is the figure as measured: "0.112 ± 0.004 m/s", a difference to
// the baseline with its sign, "-" without data.
func (x *Result) Value() string {
	iv := x.Interval
	if math.IsNaN(iv.Mean) {
		return "-"
	}
	if x.Gate != nil && x.Gate.Game != nil { // one run: its figure, no interval
		return quantity(strconv.FormatFloat(iv.Mean, 'f', x.Metric.Prec, 64), x.Unit)
	}
	s := batch.FormatInterval(iv, x.Metric.Prec)
	if x.Relative() {
		s = batch.FormatDiff(stats.Diff{Interval: iv}, x.Metric.Prec)
	}
	return quantity(s, x.Unit)
}

// Why says the verdict: "pass", "FAIL", "inconclusive: about 48 seeds
// would decide it".
func (r *Report) Why(x *Result) string {
	switch x.Status {
	case Pass:
		return "pass"
	case Fail:
		return "FAIL"
	}
	s := "inconclusive"
	if r.Strict {
		s = "INCONCLUSIVE (fails under --strict)"
	}
	switch {
	case x.NoData > 0 && x.Gate != nil && x.Gate.Game != nil:
		return s + ": no data: the run's frames did not measure it"
	case x.NoData > 0:
		return fmt.Sprintf("%s: no data on %d of %d seeds", s, x.NoData, x.Interval.N)
	case x.SeedsNeeded == 0:
		return s + ": the mean is on the bound; no number of seeds decides it"
	case x.SeedsNeeded > MaxSeeds:
		return fmt.Sprintf("%s: more than %d seeds would be needed to decide it", s, MaxSeeds)
	}
	return fmt.Sprintf("%s: about %d seeds would decide it", s, x.SeedsNeeded)
}

// Message is one line saying a result with its figures and its place:
// what CI formats show for an assertion.
func (r *Report) Message(x *Result) string {
	s := fmt.Sprintf("%s: %s over %d seeds (95 %% interval)", x.Claim(), x.Value(), x.Interval.N)
	if x.Gate.Game != nil {
		s = fmt.Sprintf("%s: %s in %s (no interval)", x.Claim(), x.Value(), x.Gate.Game.runText())
	}
	if x.Base != nil {
		s += fmt.Sprintf(", baseline %s", quantity(batch.FormatInterval(*x.Base, x.Metric.Prec), x.Unit))
	}
	return fmt.Sprintf("%s: %s (%s:%d, scenario %s)", s, r.Why(x), x.File, x.Line, x.Gate.Scenario.Name)
}

// WriteText writes a line per gate, then a line per assertion (figure,
// bound, value ± interval, verdict), then a summary.
func (r *Report) WriteText(w io.Writer) error {
	var g *Gate
	for i := range r.Results {
		x := &r.Results[i]
		if x.Gate != g {
			g = x.Gate
			if g.Game != nil {
				fmt.Fprintf(w, "%s: the game's report card, %s\n", g.File, g.Game.runText())
			} else {
				fmt.Fprintf(w, "%s: %s, %d seeds (%s) of %v\n", g.File, g.Scenario.Name, len(g.Seeds), batch.FormatSeeds(g.Seeds), g.Duration())
			}
			for _, warn := range r.Warnings[g] {
				fmt.Fprintf(w, "  warning: %s\n", warn)
			}
		}
		fmt.Fprintf(w, "  %-46s %-26s %s\n", x.Claim(), x.Value(), r.Why(x))
	}
	seeded, game := false, false
	for _, g := range r.Gates {
		seeded, game = seeded || g.Game == nil, game || g.Game != nil
	}
	if seeded {
		fmt.Fprintln(w, "± is the 95 % interval over the seeds; a bound passes when the interval lies wholly inside it, fails when wholly past it.")
	}
	if game {
		fmt.Fprintln(w, GameRule)
	}
	_, err := fmt.Fprintln(w, r.Summary())
	return err
}

// Summary is the last line: the counts and the check's verdict.
func (r *Report) Summary() string {
	pass, fail, inc := r.Counts()
	verdict := "passed"
	switch {
	case fail > 0:
		verdict = "FAILED"
	case inc > 0 && r.Strict:
		verdict = "FAILED (inconclusive under --strict)"
	case inc > 0:
		verdict = "passed, with inconclusive assertions (--strict fails them)"
	}
	return fmt.Sprintf("%s, %s: %d pass, %d fail, %d inconclusive; check %s", plural.Of(len(r.Gates), "scenario"), plural.Of(len(r.Results), "assertion"), pass, fail, inc, verdict)
}
