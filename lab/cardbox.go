package lab

import (
	"fmt"
	"math"
	"strings"
)

// SideText is the report card in a screen's side box (the lab's p, the
// proxy's with the game's telemetry): six lines of two figures in fixed
// columns, 41 wide whatever the figures reach — the progress deficit,
// rubber bands and hesitations, snaps, corrections over 1 and 10 cm, local
// response and server input delay p50, visible lag in ms. A figure
// without data (NaN) is a dash.
func (c *ReportCard) SideText() string {
	line := func(l1, v1, l2, v2 string) string { return fmt.Sprintf(" %-9s %8s  %-8s %8s", l1, v1, l2, v2) }
	wide := func(l, v string) string { return fmt.Sprintf(" %-22s %15s", l, v) }
	perMin := func(v float64) string {
		if math.IsNaN(v) {
			return "–"
		}
		if v >= 100 {
			return fmt.Sprintf("%.0f/min", v)
		}
		return fmt.Sprintf("%.1f/min", v)
	}
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
		line("judder", f("%.2fm/s", c.JudderMPS), "deficit", f("%.2fm/s", c.ProgressDeficitMPS)),
		line("rubber", perMin(c.BackwardExcursionsPerMin), "hesitate", perMin(c.HesitationsPerMin)),
		line("snaps", perMin(c.SnapsPerMin), "snap max", f("%.2f m", c.SnapDistanceM.Max)),
		line("corr 1-10", perMin(c.CorrectionsMediumPerMin), "corr >10", perMin(c.CorrectionsLargePerMin)),
		wide("response/server input", f("%.0f", c.LocalResponseMs.P50)+" / "+f("%.0f ms", c.ServerInputDelayMs.P50)),
		wide("visible lag p50/99", f("%.0f / %.0f ms", c.VisibleLagMs.P50, c.VisibleLagMs.P99)),
	}, "\n")
}
