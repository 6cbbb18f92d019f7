package tui

import (
	"fmt"
	"math"
	"strings"

	"jitterlab/lab"
)

// toggleCard switches the side box between the live counters and the
// player's report card (the same figures as 'lab run' prints).
func (a *App) toggleCard() { a.showCard = !a.showCard }

// cardText is the report card in the side box: the same six lines and
// columns as the counters, so it fits wherever they do.
func cardText(c *lab.ReportCard) string {
	line := func(l1, v1, l2, v2 string) string { return fmt.Sprintf(" %-9s %8s  %-8s %8s", l1, v1, l2, v2) }
	wide := func(l, v string) string { return fmt.Sprintf(" %-18s %19s", l, v) }
	perMin := func(v float64) string {
		if math.IsNaN(v) {
			return "–"
		}
		if v >= 100 {
			return fmt.Sprintf("%.0f/min", v)
		}
		return fmt.Sprintf("%.1f/min", v)
	}
	// Before the first input or frame a figure is NaN: a dash.
	f := func(format string, vs ...float64) string {
		args := make([]any, len(vs))
		for i, v := range vs {
			if math.IsNaN(v) {
				return "–"
			}
			args[i] = v
		}
		return fmt.Sprintf(format, args...)
	}
	return strings.Join([]string{
		line("judder", f("%.2fm/s", c.JudderMPS), "deficit", f("%.2fm/s", c.SpeedDeficitMPS)),
		line("rubber", perMin(c.RubberBandsPerMin), "freeze", f("%.1f %%", 100*c.FreezeShare)),
		line("snaps", perMin(c.SnapsPerMin), "snap p50", f("%.2f m", c.SnapDistanceM.P50)),
		line("correct.", perMin(c.CorrectionsPerMin), "snap max", f("%.2f m", c.SnapDistanceM.Max)),
		wide("in delay p50/95/99", f("%.0f / %.0f / %.0f ms", c.InputDelayMs.P50, c.InputDelayMs.P95, c.InputDelayMs.P99)),
		wide("visible lag p50/99", f("%.2f / %.2f m", c.VisibleLagM.P50, c.VisibleLagM.P99)),
	}, "\n")
}
