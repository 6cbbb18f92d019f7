package batch

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"jitterlab/stats"
)

// Result is a complete batch: its definition and every run in index order.
type Result struct {
	Def  Definition
	Runs []Run
}

// NewResult checks that runs are exactly the definition's runs, each once
// and in index order, and returns the result.
func NewResult(def Definition, runs []Run) (*Result, error) {
	if len(runs) != def.Runs() {
		return nil, fmt.Errorf("%d runs of the batch's %d", len(runs), def.Runs())
	}
	for i := range runs {
		if runs[i].Index != i {
			return nil, fmt.Errorf("run %d is in place %d", runs[i].Index, i)
		}
	}
	return &Result{Def: def, Runs: runs}, nil
}

// PerSeed is metric m of arm a on every seed, in seed order.
func (r *Result) PerSeed(a int, m Metric) []float64 {
	n := len(r.Def.Seeds)
	out := make([]float64, n)
	for i := range n {
		out[i] = float64(r.Runs[a*n+i].Metrics[m.Name])
	}
	return out
}

// Mean is metric m of arm a over the seeds with its 95 % interval.
func (r *Result) Mean(a int, m Metric) stats.Interval { return stats.Mean(r.PerSeed(a, m)) }

// Paired is arm b − arm a in metric m seed by seed with its interval;
// significant only when the interval excludes 0 and the difference is at
// least half the last digit shown.
func (r *Result) Paired(a, b int, m Metric) stats.Diff {
	return stats.PairedMin(r.PerSeed(a, m), r.PerSeed(b, m), m.Smallest())
}

// Percent is the paired difference b − a as a percentage of a's mean, or
// false where a percentage says nothing: the difference is not significant
// (its interval includes 0), a's interval touches 0 or its mean is below
// [Metric.PercentFloor], or b's mean is clearly of the other sign (a
// change of −101 % is a sign flip, not a reduction; a b that rounds to 0
// is a change of −100 %).
func (r *Result) Percent(a, b int, m Metric) (float64, bool) {
	return stats.ChangePercent(r.Paired(a, b, m), r.Mean(a, m), r.Mean(b, m), m.Smallest(), m.PercentFloor())
}

// Representative is the seed index whose first-arm judder is nearest its
// mean (the first such seed): the seed whose timelines a report shows.
func (r *Result) Representative() int {
	vs := r.PerSeed(0, Metrics[0])
	mean := stats.Mean(vs).Mean
	rep := 0
	for i, v := range vs {
		if math.Abs(v-mean) < math.Abs(vs[rep]-mean) {
			rep = i
		}
	}
	return rep
}

// FormatInterval writes "mean ± half" with prec decimals, "-" for no data.
func FormatInterval(iv stats.Interval, prec int) string {
	if math.IsNaN(iv.Mean) {
		return "-"
	}
	return iv.Format(prec) // no "-0.000": Format drops the sign of a zero
}

// FormatDiff writes a paired difference "+d ± h", with " *" when
// significant.
func FormatDiff(d stats.Diff, prec int) string {
	if math.IsNaN(d.Mean) {
		return "-"
	}
	s := fmt.Sprintf("%+.*f", prec, d.Mean)
	if strings.Trim(s, "+-0.") == "" {
		s = s[1:] // rounds to zero: no sign of a direction
	}
	if math.IsInf(d.Half, 1) {
		s += " ± ?"
	} else {
		s += fmt.Sprintf(" ± %.*f", prec, d.Half)
	}
	if d.Significant {
		s += " *"
	}
	return s
}

// FormatSeeds writes seeds as --seeds reads them, runs of consecutive
// seeds as ranges: [1 2 3 9] is "1-3,9".
func FormatSeeds(seeds []uint64) string {
	var parts []string
	for i := 0; i < len(seeds); {
		j := i
		for j+1 < len(seeds) && seeds[j] != math.MaxUint64 && seeds[j+1] == seeds[j]+1 {
			j++
		}
		p := strconv.FormatUint(seeds[i], 10)
		if j > i {
			p += "-" + strconv.FormatUint(seeds[j], 10)
		}
		parts = append(parts, p)
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// MaxSeeds is the most seeds a list names, so the memory a batch holds
// does not grow with what a list asks for.
const MaxSeeds = 1000

// ParseSeeds reads a list of seeds as FormatSeeds writes it: "1-5",
// "1,2,7", "3" or a mix ("1-3,9"), at most MaxSeeds distinct seeds, each
// an integer in [0, 2^64). name is the flag or key the list came from, as
// errors name it (--seeds, seeds).
func ParseSeeds(name, s string) ([]uint64, error) {
	bad := func(why string) error {
		return fmt.Errorf("%s %q: %s; allowed up to %d distinct seeds in [0, 2^64) written like 1-5 or 1,4,9, e.g. %s", name, s, why, MaxSeeds, example(name))
	}
	var out []uint64
	seen := map[uint64]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 64)
		if err != nil {
			return nil, bad(fmt.Sprintf("%q is not a seed", part))
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(strings.TrimSpace(hi), 10, 64); err != nil || b < a {
				return nil, bad(fmt.Sprintf("%q is not a range from low to high", part))
			}
		}
		if b-a >= uint64(MaxSeeds-len(out)) {
			return nil, bad("too many seeds")
		}
		for i := uint64(0); i <= b-a; i++ {
			if seen[a+i] {
				return nil, bad(fmt.Sprintf("seed %d twice", a+i))
			}
			seen[a+i] = true
			out = append(out, a+i)
		}
	}
	return out, nil
}

// example is a list of seeds as name takes it.
func example(name string) string {
	if strings.HasPrefix(name, "-") {
		return name + " 1-10"
	}
	return name + ` = "1-10"`
}
