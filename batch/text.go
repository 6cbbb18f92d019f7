package batch

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"jitterlab/internal/plural"
)

// ArmLabel names arm a in tables: "A (reference)" for an A without
// settings, "A", "B", or a sweep's combination.
func (r *Result) ArmLabel(a int) string {
	if r.Def.Kind == "ab" {
		if a == 1 {
			return "B"
		}
		if len(r.Def.A) == 0 {
			return "A (reference)"
		}
		return "A"
	}
	return strings.Join(r.Def.Arms()[a], " ")
}

// Conditions are the header's rows: what every run of the batch shares.
func (r *Result) Conditions() [][2]string {
	d := &r.Def
	scen := "none (the defaults)"
	if d.ScenarioFile != "" {
		scen = fmt.Sprintf("%s (%s)", d.Scenario, d.ScenarioFile)
		if d.TimelineChanges > 0 {
			scen += fmt.Sprintf(", a timeline of %s ('lab scenarios -v' lists them)", plural.Of(d.TimelineChanges, "change"))
		}
	}
	sets := "none"
	if len(d.Overrides) > 0 {
		sets = "--set " + strings.Join(d.Overrides, " --set ")
	}
	sameFor := "the same for every value"
	if d.Kind == "ab" {
		sameFor = "the same for A and B"
	}
	if len(d.Overridden) > 0 {
		sets += "; timeline entries overridden by --set: " + strings.Join(d.Overridden, ", ")
	}
	rows := [][2]string{{"scenario", scen}, {"overrides", sets},
		{"runs", fmt.Sprintf("seeds %s (%s), %v simulated each", FormatSeeds(d.Seeds), sameFor, d.Duration())},
		{"link", LinkText(d.Link)},
		{"version", d.Version}}
	if len(d.Axes) > 1 {
		rows = append(rows, [2]string{"grid", fmt.Sprintf("%d combinations of %d parameters", len(d.Arms()), len(d.Axes))})
	}
	if d.Kind == "sweep" && len(d.ArmsOverridden) > 0 {
		// Every combination sets the same keys: what one pins, all do.
		rows = append(rows, [2]string{"pinned", "timeline entries overridden by --over: " + strings.Join(d.ArmsOverridden[0], ", ") +
			" (a swept key is pinned for the whole run, as by --set)"})
	}
	return rows
}

// ArmLine is an A/B arm's settings (0: A, 1: B) with the timeline entries
// they pin away.
func (r *Result) ArmLine(a int) string {
	sets := [][]string{r.Def.A, r.Def.B}[a]
	s := strings.Join(sets, " ")
	if a == 0 {
		s = orNone(sets)
	}
	if d := r.Def.ArmsOverridden; len(d) > a && len(d[a]) > 0 {
		s += fmt.Sprintf(" (timeline entries overridden by --%s: %s)", [...]string{"a", "b"}[a], strings.Join(d[a], ", "))
	}
	return s
}

// Legend says how to read the tables.
func (r *Result) Legend() string {
	s := "means over seeds with their 95 % intervals"
	if r.Def.Kind == "ab" {
		s += "\nB − A: the paired difference seed by seed with its interval; * the interval excludes 0\nchange: B − A in % of A, only for a significant difference, where A is clearly away from 0 and B keeps its sign"
	}
	return s
}

// WriteText writes the header and the table a person reads.
func (r *Result) WriteText(w io.Writer) error {
	for _, c := range r.Conditions() {
		fmt.Fprintf(w, "%-10s %s\n", c[0], c[1])
	}
	if r.Def.Kind == "ab" {
		fmt.Fprintf(w, "A: %s\nB: %s\n", r.ArmLine(0), r.ArmLine(1))
	}
	fmt.Fprintf(w, "\n%s\n\n", r.Legend())
	head, rows := r.Table()
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range append(head, rows...) {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	for _, l := range strings.SplitAfter(b.String(), "\n") {
		if _, err := io.WriteString(w, strings.TrimRight(l, " \n")+strings.Repeat("\n", strings.Count(l, "\n"))); err != nil {
			return err
		}
	}
	return nil
}

// Table is the comparison as header rows and rows, one row per metric: for
// A/B the two means, the paired difference and the change in %; for a sweep
// one column per combination (a header row per axis).
func (r *Result) Table() (head, rows [][]string) {
	if r.Def.Kind == "ab" {
		head = [][]string{{"metric", r.ArmLabel(0), "B", "B − A", "change"}}
		for _, m := range Metrics {
			pct := ""
			if p, ok := r.Percent(0, 1, m); ok {
				pct = fmt.Sprintf("%+.0f%%", p)
				if pct == "-0%" || pct == "+0%" {
					pct = "0%" // rounds to zero: no direction
				}
			}
			rows = append(rows, []string{m.Name, FormatInterval(r.Mean(0, m), m.Prec), FormatInterval(r.Mean(1, m), m.Prec), FormatDiff(r.Paired(0, 1, m), m.Prec), pct})
		}
		return head, rows
	}
	arms := r.Def.Arms()
	for i, a := range r.Def.Axes {
		h := []string{a.Key}
		for _, arm := range arms {
			_, v, _ := strings.Cut(arm[i], "=")
			h = append(h, v)
		}
		head = append(head, h)
	}
	for _, m := range Metrics {
		row := []string{m.Name}
		for a := range arms {
			row = append(row, FormatInterval(r.Mean(a, m), m.Prec))
		}
		rows = append(rows, row)
	}
	return head, rows
}

func orNone(sets []string) string {
	if len(sets) == 0 {
		return "no settings of its own: the scenario and overrides above"
	}
	return strings.Join(sets, " ")
}

// LinkText is a link as the conditions say it: "latency 50ms, jitter
// 20ms, … (up/down where they differ)".
func LinkText(link []Setting) string {
	var parts []string
	for _, s := range link {
		parts = append(parts, s.Key+" "+s.Value)
	}
	return strings.Join(parts, ", ") + " (up/down where they differ)"
}
