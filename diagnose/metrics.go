package diagnose

import (
	"fmt"
	"strings"

	"jitterlab/lab"
	"jitterlab/stats"
)

// Metric is one report-card figure as diagnose compares it. Every metric is
// worse when larger.
type Metric struct {
	Name  string // as --metric takes it
	Label string
	Unit  string
	Prec  int
	Get   func(*lab.ReportCard) float64
}

// Metrics are the report card's figures, in the card's order.
var Metrics = []Metric{
	{"judder", "judder", "m/s", 3, func(c *lab.ReportCard) float64 { return c.JudderMPS }},
	{"speed_deficit", "speed deficit", "m/s", 3, func(c *lab.ReportCard) float64 { return c.SpeedDeficitMPS }},
	{"rubber_bands", "rubber bands", "/min", 1, func(c *lab.ReportCard) float64 { return c.RubberBandsPerMin }},
	{"freeze", "freeze time", "%", 1, func(c *lab.ReportCard) float64 { return 100 * c.FreezeShare }},
	{"snaps", "snaps", "/min", 2, func(c *lab.ReportCard) float64 { return c.SnapsPerMin }},
	{"snap_distance_p50", "snap distance p50", "m", 3, func(c *lab.ReportCard) float64 { return c.SnapDistanceM.P50 }},
	{"snap_distance_max", "snap distance max", "m", 3, func(c *lab.ReportCard) float64 { return c.SnapDistanceM.Max }},
	{"corrections", "corrections", "/min", 1, func(c *lab.ReportCard) float64 { return c.CorrectionsPerMin }},
	{"input_delay_p50", "input delay p50", "ms", 1, func(c *lab.ReportCard) float64 { return c.InputDelayMs.P50 }},
	{"input_delay_p95", "input delay p95", "ms", 1, func(c *lab.ReportCard) float64 { return c.InputDelayMs.P95 }},
	{"input_delay_p99", "input delay p99", "ms", 1, func(c *lab.ReportCard) float64 { return c.InputDelayMs.P99 }},
	{"visible_lag_p50", "visible lag p50", "m", 3, func(c *lab.ReportCard) float64 { return c.VisibleLagM.P50 }},
	{"visible_lag_p99", "visible lag p99", "m", 3, func(c *lab.ReportCard) float64 { return c.VisibleLagM.P99 }},
}

// LookupMetric finds a metric by name; the error lists the names.
func LookupMetric(name string) (Metric, error) {
	var names []string
	for _, m := range Metrics {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Metric{}, fmt.Errorf("--metric %q: allowed one of %s", name, strings.Join(names, ", "))
}

// Smallest is the smallest difference diagnose calls an effect: half the
// last digit it shows.
func (m Metric) Smallest() float64 { return 0.5 * lastDigit(m.Prec) }

// lastDigit is 10^-prec, the last digit shown with prec decimals (0 ≤ prec ≤ 6),
// from exact constants: math.Pow may round differently on other machines.
func lastDigit(prec int) float64 {
	return [...]float64{1, 0.1, 0.01, 0.001, 1e-4, 1e-5, 1e-6}[prec]
}

// Effect is a significant difference in m as a cost or a gain is stated:
// "snaps +0.81 ± 0.24 /min".
func (m Metric) Effect(d stats.Diff) string {
	d.Significant = false // no star: the sentence says it
	return m.Label + " " + FormatDiff(d, m.Prec) + " " + m.Unit
}
