package batch

import "jitterlab/lab"

// Metric is one figure a batch compares, named in snake_case with its unit
// as a suffix (the same name in the text tables, CSV and JSON). Every
// metric but the two speeds is worse when larger.
type Metric struct {
	Name string
	Prec int // decimals shown
	Get  func(*lab.Summary) float64
}

// Metrics are the report card (docs/report-card.md) first, then the
// summary's figures a comparison needs to explain it.
var Metrics = []Metric{
	{"judder_mps", 3, func(s *lab.Summary) float64 { return s.Card.JudderMPS }},
	{"speed_deficit_mps", 3, func(s *lab.Summary) float64 { return s.Card.SpeedDeficitMPS }},
	{"rubber_bands_per_min", 1, func(s *lab.Summary) float64 { return s.Card.RubberBandsPerMin }},
	{"freeze_pct", 1, func(s *lab.Summary) float64 { return 100 * s.Card.FreezeShare }},
	{"snaps_per_min", 2, func(s *lab.Summary) float64 { return s.Card.SnapsPerMin }},
	{"snap_distance_p50_m", 3, func(s *lab.Summary) float64 { return s.Card.SnapDistanceM.P50 }},
	{"snap_distance_max_m", 3, func(s *lab.Summary) float64 { return s.Card.SnapDistanceM.Max }},
	{"corrections_per_min", 1, func(s *lab.Summary) float64 { return s.Card.CorrectionsPerMin }},
	{"input_delay_p50_ms", 1, func(s *lab.Summary) float64 { return s.Card.InputDelayMs.P50 }},
	{"input_delay_p95_ms", 1, func(s *lab.Summary) float64 { return s.Card.InputDelayMs.P95 }},
	{"input_delay_p99_ms", 1, func(s *lab.Summary) float64 { return s.Card.InputDelayMs.P99 }},
	{"visible_lag_p50_m", 3, func(s *lab.Summary) float64 { return s.Card.VisibleLagM.P50 }},
	{"visible_lag_p99_m", 3, func(s *lab.Summary) float64 { return s.Card.VisibleLagM.P99 }},
	{"speed_mps", 3, func(s *lab.Summary) float64 { return s.MeanVisibleSpeedMPS }},
	{"commanded_speed_mps", 3, func(s *lab.Summary) float64 { return s.CommandedSpeedMPS }},
	{"visible_error_p99_m", 3, func(s *lab.Summary) float64 { return s.VisibleErrorM.P99 }},
	{"correction_p95_m", 3, func(s *lab.Summary) float64 { return s.CorrectionM.P95 }},
	{"rtt_p50_ms", 1, func(s *lab.Summary) float64 { return s.RTTMs.P50 }},
	{"snaps", 1, func(s *lab.Summary) float64 { return float64(s.Snaps) }},
	{"latch_flips", 1, func(s *lab.Summary) float64 { return float64(s.LatchFlips) }},
	{"inputs_overwritten", 1, func(s *lab.Summary) float64 { return float64(s.Overwritten) }},
	{"inputs_late_dropped", 1, func(s *lab.Summary) float64 { return float64(s.LateDropped) }},
	{"steps_starved", 1, func(s *lab.Summary) float64 { return float64(s.Starved) }},
}

// LastDigit is 10^-prec, the last digit shown (0 ≤ prec ≤ 6), from exact
// constants: math.Pow may round differently on other machines.
func (m Metric) LastDigit() float64 {
	return [...]float64{1, 0.1, 0.01, 0.001, 1e-4, 1e-5, 1e-6}[m.Prec]
}

// Smallest is the smallest difference a batch calls an effect: half the
// last digit shown. A smaller one is never significant, however consistent.
func (m Metric) Smallest() float64 { return 0.5 * m.LastDigit() }

// PercentFloor is the smallest base a percentage is given on: ten of the
// last digit shown. A percentage of a base near zero (0.0 snaps, a lag of
// 0.001 m) says nothing; the absolute difference stands alone.
func (m Metric) PercentFloor() float64 { return 10 * m.LastDigit() }
