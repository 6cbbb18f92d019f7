package diagnose

import (
	"errors"
	"fmt"
	"strings"

	"jitterlab/lab"
	"jitterlab/stats"
)

// Metric is one report-card figure as diagnose compares it, under the
// name ab and sweep give it (lab.CardMetrics). Every metric is worse when
// larger.
type Metric struct{ lab.CardMetric }

// Metrics are the report card's figures, in the card's order.
var Metrics = func() []Metric {
	var out []Metric
	for _, m := range lab.CardMetrics {
		out = append(out, Metric{m})
	}
	return out
}()

// LookupMetric finds a metric by name; the error lists the names, and
// names the one meant when the name lacks its unit (judder: judder_mps).
func LookupMetric(name string) (Metric, error) {
	var names []string
	for _, m := range Metrics {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	err := fmt.Sprintf("--metric %q: allowed one of %s", name, strings.Join(names, ", "))
	if meant := meantMetric(name); meant != "" {
		err += "; did you mean " + meant + "?"
	}
	return Metric{}, errors.New(err)
}

// meantMetric is the metric an older or shorter name means: the name with
// its unit (visible_lag_p99: visible_lag_p99_ms), or the one metric whose
// name starts with it (backward_m: backward_m_per_min); "" when none or several.
func meantMetric(name string) string {
	var starts []string
	for _, m := range Metrics {
		if strings.HasPrefix(m.Name, name+"_") && !strings.Contains(m.Name[len(name)+1:], "_") {
			return m.Name
		}
		if name != "" && strings.HasPrefix(m.Name, name) {
			starts = append(starts, m.Name)
		}
	}
	if len(starts) == 1 {
		return starts[0]
	}
	return ""
}

// Named is the metric's name with what it measures: "judder_mps (judder,
// m/s)", "hesitation_share (hesitation share)".
func (m Metric) Named() string {
	if m.Unit == "" {
		return m.Name + " (" + m.Label + ")"
	}
	return m.Name + " (" + m.Label + ", " + m.Unit + ")"
}

// Better says which way the metric is better: "lower is better", or for a
// Magnitude metric "nearer 0 is better" (it is compared by its magnitude).
func (m Metric) Better() string {
	if m.Magnitude {
		return "nearer 0 is better"
	}
	return "lower is better"
}

// Smallest is the smallest difference diagnose calls an effect
// ([stats.SmallestEffect] at the decimals shown).
func (m Metric) Smallest() float64 { return stats.SmallestEffect(m.Prec) }

// Effect is a significant difference in m as a cost or a gain is stated:
// "snaps +0.81 ± 0.24 /min".
func (m Metric) Effect(d stats.Diff) string {
	d.Significant = false // no star: the sentence says it
	return m.Label + " " + m.Quantity(FormatDiff(d, m.Prec))
}
