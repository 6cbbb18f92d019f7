package diagnose

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"jitterlab/stats"
)

// Floor is a figure's practical floor: a difference counts as an effect
// (better or worse) only when it is at least Share of the base's value and
// at least Min (in the figure's unit), besides excluding 0 from its 95 %
// interval. A 0.002 m/s change is real but no player sees it, and must not
// block an 88 % cut in judder (docs/explanation/diagnose-bar.md).
type Floor struct {
	Metric string
	Share  float64
	Min    float64
}

// FloorShare is the share of the base's value below which a difference in
// any figure is no effect: a tenth, about the smallest change in a speed or
// a delay that people notice.
const FloorShare = 0.10

// Floors are the figures' absolute minima. A figure without an entry has
// FloorShare and ten times its last shown digit.
var Floors = []Floor{
	{"progress_deficit_mps", FloorShare, 0.040}, // 2 % of the tank's 2 m/s
	{"progress_deficit_pct", FloorShare, 2},
	{"judder_mps", FloorShare, 0.010},
	{"backward_excursions_per_min", FloorShare, 0.5},
	{"backward_m_per_min", FloorShare, 0.010},
	{"hesitations_per_min", FloorShare, 0.5},
	{"hesitation_share", FloorShare, 0.005},
	{"snaps_per_min", FloorShare, 0.2},
	{"snap_distance_p50_m", FloorShare, 0.010},
	{"snap_distance_max_m", FloorShare, 0.010},
	{"corrections_under_1cm_per_min", FloorShare, 5},
	{"corrections_1_to_10cm_per_min", FloorShare, 5},
	{"corrections_over_10cm_per_min", FloorShare, 1},
	{"local_response_p50_ms", FloorShare, 2},
	{"local_response_p95_ms", FloorShare, 2},
	{"local_response_p99_ms", FloorShare, 2},
	{"server_input_delay_p50_ms", FloorShare, 2},
	{"server_input_delay_p95_ms", FloorShare, 2},
	{"server_input_delay_p99_ms", FloorShare, 2},
	{"visible_lag_p50_ms", FloorShare, 2},
	{"visible_lag_p99_ms", FloorShare, 2},
}

// floorOf is m's Floor (the default when Floors has none).
func (m Metric) floorOf() Floor {
	for _, f := range Floors {
		if f.Metric == m.Name {
			return f
		}
	}
	return Floor{m.Name, FloorShare, 10 * stats.LastDigit(m.Prec)}
}

// Floor is the smallest difference from a base of value base that counts
// as an effect in m: the larger of the floor's share of |base|, its
// minimum and half the last digit shown (Smallest). A base without data
// (NaN) has the minimum.
func (m Metric) Floor(base float64) float64 {
	f := m.floorOf()
	v := max(f.Min, m.Smallest())
	if !math.IsNaN(base) && !math.IsInf(base, 0) {
		v = max(v, float64(f.Share*math.Abs(base)))
	}
	return v
}

// FloorText states the floors: "a difference counts when it is at least
// 10 % of the base's value and at least: judder 0.010 m/s, …".
func FloorText() string {
	var parts []string
	for _, m := range Metrics {
		f := m.floorOf()
		parts = append(parts, m.Label+" "+m.Quantity(strconv.FormatFloat(f.Min, 'f', m.Prec, 64)))
	}
	return fmt.Sprintf("a difference is an effect only when its interval excludes 0 and it is at least %.0f %% of the base's value "+
		"and at least %s", 100*FloorShare, strings.Join(parts, ", "))
}
