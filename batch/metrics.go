package batch

import (
	"jitterlab/lab"
	"jitterlab/stats"
)

// Metric is one figure a batch compares, named in snake_case with its unit
// as a suffix, and named as 'lab run --json' names the same figure (a
// percentile flattened: input_delay_ms.p50 is input_delay_p50_ms), in the
// text tables, CSV and JSON alike. Every metric but the two speeds is
// worse when larger.
type Metric struct {
	Name  string
	Prec  int // decimals shown
	Get   func(*lab.Summary) float64
	Count bool // an integer per run (its mean over seeds is not)
}

// Metrics are the report card (docs/explanation/report-card.md, lab.CardMetrics: the
// names diagnose gives them too) first, then the summary's figures a
// comparison needs to explain it.
var Metrics = append(cardMetrics(), []Metric{
	{"mean_visible_speed_mps", 3, func(s *lab.Summary) float64 { return s.MeanVisibleSpeedMPS }, false},
	{"commanded_speed_mps", 3, func(s *lab.Summary) float64 { return s.CommandedSpeedMPS }, false},
	{"visible_error_p99_m", 3, func(s *lab.Summary) float64 { return s.VisibleErrorM.P99 }, false},
	{"correction_p95_m", 3, func(s *lab.Summary) float64 { return s.CorrectionM.P95 }, false},
	{"rtt_p50_ms", 1, func(s *lab.Summary) float64 { return s.RTTMs.P50 }, false},
	{"snaps", 1, func(s *lab.Summary) float64 { return float64(s.Snaps) }, true},
	{"latch_flips", 1, func(s *lab.Summary) float64 { return float64(s.LatchFlips) }, true},
	{"overwritten", 1, func(s *lab.Summary) float64 { return float64(s.Overwritten) }, true},
	{"late_dropped", 1, func(s *lab.Summary) float64 { return float64(s.LateDropped) }, true},
	{"starved", 1, func(s *lab.Summary) float64 { return float64(s.Starved) }, true},
}...)

// cardMetrics are lab.CardMetrics as batch metrics.
func cardMetrics() []Metric {
	var out []Metric
	for _, m := range lab.CardMetrics {
		get := m.Get
		out = append(out, Metric{m.Name, m.Prec, func(s *lab.Summary) float64 { return get(&s.Card) }, false})
	}
	return out
}

// Smallest is the smallest difference a batch calls an effect
// ([stats.SmallestEffect] at the decimals shown).
func (m Metric) Smallest() float64 { return stats.SmallestEffect(m.Prec) }

// PercentFloor is the smallest base a percentage is given on
// ([stats.PercentFloor] at the decimals shown).
func (m Metric) PercentFloor() float64 { return stats.PercentFloor(m.Prec) }
