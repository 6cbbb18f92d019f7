package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"jitterlab/client"
	"jitterlab/detmath"
	"jitterlab/metrics"
	"jitterlab/motion"
)

// CardThresholds are the report card's thresholds (docs/report-card.md).
type CardThresholds struct {
	RubberBandM   float64 `json:"rubber_band_m"`   // a backwards move along the heading larger than this is a rubber band (0.01 m)
	FreezeShare   float64 `json:"freeze_share"`    // a frame below this share of the commanded speed is frozen (0.10)
	CorrectionM   float64 `json:"correction_m"`    // a reconciliation correction larger than this counts (0.01 m)
	ThrottleOnMin float64 `json:"throttle_on_min"` // |throttle| above this means the player is driving (0)
}

// DefaultCardThresholds are the thresholds every summary uses.
var DefaultCardThresholds = CardThresholds{RubberBandM: 0.01, FreezeShare: 0.10, CorrectionM: 0.01}

// ReportCard is what the player sees in a run, in the player's terms. Every
// figure is defined in docs/report-card.md; frames count from WarmUp after
// login, as the rest of the Summary.
type ReportCard struct {
	JudderMPS         float64    `json:"judder_mps"`
	SpeedDeficitMPS   float64    `json:"speed_deficit_mps"`
	RubberBandsPerMin float64    `json:"rubber_bands_per_min"`
	FreezeShare       float64    `json:"freeze_share"`
	SnapsPerMin       float64    `json:"snaps_per_min"`
	SnapDistanceM     P50Max     `json:"snap_distance_m"`
	CorrectionsPerMin float64    `json:"corrections_per_min"`
	InputDelayMs      Percentile `json:"input_delay_ms"`
	VisibleLagM       P50P99     `json:"visible_lag_m"`

	Thresholds CardThresholds `json:"thresholds"`
}

// P50Max is a median and a maximum.
type P50Max struct {
	P50 float64 `json:"p50"`
	Max float64 `json:"max"`
}

// P50P99 is a median and a 99th percentile.
type P50P99 struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

// Percentile is the median, 95th and 99th percentiles.
type Percentile struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
}

// CardFrame is one counted render frame, as the report card needs it.
type CardFrame struct {
	Dt          float64 // seconds since the previous frame (> 0)
	X, Y, Rot   float64 // visible pose after the frame (Rot in degrees, forward = (sin, cos))
	PrevX       float64 // visible pose before the frame
	PrevY       float64
	PrevRot     float64
	Throttle    float64 // sampled this frame, −1..1
	MoveSpeed   float64 // m/s at full throttle
	VisibleErrM float64 // |visible − predicted| after the frame
	CorrectionM float64 // largest reconciliation correction this frame
	Reconciled  int     // PlayerStates reconciled this frame
	Snapped     bool    // the visible pose snapped this frame
}

// CardMeter computes a ReportCard from frames and input delays. Its zero
// value is not ready: use NewCardMeter. It never allocates after that.
type CardMeter struct {
	th                   CardThresholds
	judder               metrics.Welford
	timeS, visM, cmdM    float64
	rubberBands          uint64
	backwards            bool // the previous frame was a rubber-band frame
	frames               uint64
	driving, frozen      uint64
	snaps, corrections   uint64
	snapDist, lag, delay *metrics.Histogram
}

// NewCardMeter returns a meter with thresholds th.
func NewCardMeter(th CardThresholds) *CardMeter {
	return &CardMeter{th: th, snapDist: metrics.NewHistogram(1e-4), lag: metrics.NewHistogram(1e-4), delay: metrics.NewHistogram(0.01)}
}

// Frame counts one frame.
func (m *CardMeter) Frame(f *CardFrame) {
	dx, dy := f.X-f.PrevX, f.Y-f.PrevY
	moved := math.Sqrt(float64(dx*dx) + float64(dy*dy)) // math.Hypot may fuse
	speed := moved / f.Dt
	m.frames++
	m.judder.Add(speed)
	m.timeS += f.Dt
	m.visM += moved
	cmd := math.Abs(f.Throttle) * f.MoveSpeed
	m.cmdM += float64(cmd * f.Dt)
	back := false
	if math.Abs(f.Throttle) > m.th.ThrottleOnMin {
		m.driving++
		if speed < m.th.FreezeShare*cmd {
			m.frozen++
		}
		// Travel direction: the heading, reversed when reversing.
		sin, cos := detmath.Sincos(f.PrevRot * (math.Pi / 180))
		along := (float64(dx*sin) + float64(dy*cos)) * math.Copysign(1, f.Throttle)
		back = along < -m.th.RubberBandM
	}
	if back && !m.backwards {
		m.rubberBands++
	}
	m.backwards = back
	if f.Snapped {
		m.snaps++
		m.snapDist.Add(moved)
	}
	if f.Reconciled > 0 && f.CorrectionM > m.th.CorrectionM {
		m.corrections++
	}
	m.lag.Add(f.VisibleErrM)
}

// InputDelay counts one input's delay from send to applied, in ms.
func (m *CardMeter) InputDelay(ms float64) { m.delay.Add(ms) }

// Card reports the frames and delays so far. A figure without data is NaN
// (null in JSON, "no data" in the text), never 0: with no counted frame
// every frame figure, with no driving frame (throttle on) the judder, the
// speed deficit, rubber bands and freeze time, with no input applied the
// input delay. Snap distances are 0 when frames show no snap.
func (m *CardMeter) Card() ReportCard {
	nan := math.NaN()
	c := ReportCard{Thresholds: m.th,
		JudderMPS:         nan,
		SpeedDeficitMPS:   nan,
		RubberBandsPerMin: nan,
		FreezeShare:       nan,
		SnapsPerMin:       nan,
		SnapDistanceM:     P50Max{nan, nan},
		CorrectionsPerMin: nan,
		InputDelayMs:      Percentile{nan, nan, nan},
		VisibleLagM:       P50P99{nan, nan},
	}
	if m.delay.Count() > 0 {
		c.InputDelayMs = Percentile{m.delay.Quantile(0.5), m.delay.Quantile(0.95), m.delay.Quantile(0.99)}
	}
	if m.frames == 0 || m.timeS <= 0 {
		return c
	}
	min := m.timeS / 60
	c.SnapsPerMin = float64(m.snaps) / min
	c.CorrectionsPerMin = float64(m.corrections) / min
	c.SnapDistanceM = P50Max{m.snapDist.Quantile(0.5), m.snapDist.Max()}
	c.VisibleLagM = P50P99{m.lag.Quantile(0.5), m.lag.Quantile(0.99)}
	if m.driving > 0 {
		c.JudderMPS = m.judder.SD()
		c.SpeedDeficitMPS = (m.cmdM - m.visM) / m.timeS
		c.RubberBandsPerMin = float64(m.rubberBands) / min
		c.FreezeShare = float64(m.frozen) / float64(m.driving)
	}
	return c
}

// cardJSON is a ReportCard as JSON: figures without data are null.
type cardJSON struct {
	JudderMPS         *float64       `json:"judder_mps"`
	SpeedDeficitMPS   *float64       `json:"speed_deficit_mps"`
	RubberBandsPerMin *float64       `json:"rubber_bands_per_min"`
	FreezeShare       *float64       `json:"freeze_share"`
	SnapsPerMin       *float64       `json:"snaps_per_min"`
	SnapDistanceJSON  map2           `json:"snap_distance_m"`
	CorrectionsPerMin *float64       `json:"corrections_per_min"`
	InputDelayMs      pctJSON        `json:"input_delay_ms"`
	VisibleLagM       p50p99JSON     `json:"visible_lag_m"`
	Thresholds        CardThresholds `json:"thresholds"`
}

type map2 struct {
	P50 *float64 `json:"p50"`
	Max *float64 `json:"max"`
}

type pctJSON struct {
	P50 *float64 `json:"p50"`
	P95 *float64 `json:"p95"`
	P99 *float64 `json:"p99"`
}

type p50p99JSON struct {
	P50 *float64 `json:"p50"`
	P99 *float64 `json:"p99"`
}

// orNull is v, or nil (null) for NaN and infinities.
func orNull(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// orNaN is *p, or NaN (no data) for nil.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes a figure without data as null.
func (c ReportCard) MarshalJSON() ([]byte, error) {
	return json.Marshal(cardJSON{
		JudderMPS: orNull(c.JudderMPS), SpeedDeficitMPS: orNull(c.SpeedDeficitMPS), RubberBandsPerMin: orNull(c.RubberBandsPerMin),
		FreezeShare: orNull(c.FreezeShare), SnapsPerMin: orNull(c.SnapsPerMin),
		SnapDistanceJSON:  map2{orNull(c.SnapDistanceM.P50), orNull(c.SnapDistanceM.Max)},
		CorrectionsPerMin: orNull(c.CorrectionsPerMin),
		InputDelayMs:      pctJSON{orNull(c.InputDelayMs.P50), orNull(c.InputDelayMs.P95), orNull(c.InputDelayMs.P99)},
		VisibleLagM:       p50p99JSON{orNull(c.VisibleLagM.P50), orNull(c.VisibleLagM.P99)},
		Thresholds:        c.Thresholds,
	})
}

// UnmarshalJSON reads null as NaN (no data).
func (c *ReportCard) UnmarshalJSON(b []byte) error {
	var j cardJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = ReportCard{JudderMPS: orNaN(j.JudderMPS), SpeedDeficitMPS: orNaN(j.SpeedDeficitMPS), RubberBandsPerMin: orNaN(j.RubberBandsPerMin),
		FreezeShare: orNaN(j.FreezeShare), SnapsPerMin: orNaN(j.SnapsPerMin),
		SnapDistanceM:     P50Max{orNaN(j.SnapDistanceJSON.P50), orNaN(j.SnapDistanceJSON.Max)},
		CorrectionsPerMin: orNaN(j.CorrectionsPerMin),
		InputDelayMs:      Percentile{orNaN(j.InputDelayMs.P50), orNaN(j.InputDelayMs.P95), orNaN(j.InputDelayMs.P99)},
		VisibleLagM:       P50P99{orNaN(j.VisibleLagM.P50), orNaN(j.VisibleLagM.P99)},
		Thresholds:        j.Thresholds}
	return nil
}

// cardFrame feeds the session's report card one counted frame: st is what
// it showed, prev the visible pose before it and snaps the client's snap
// count before it.
func (s *Session) cardFrame(st *client.FrameStats, prev motion.Pose, snaps uint64) {
	v := s.cl.Visible()
	s.card.Frame(&CardFrame{Dt: seconds(st.Dt), X: v.X, Y: v.Y, Rot: v.Rot, PrevX: prev.X, PrevY: prev.Y, PrevRot: prev.Rot,
		Throttle: s.cl.Input().Throttle, MoveSpeed: s.cfg.Client.Tuning.MoveSpeed, VisibleErrM: st.VisibleErrM,
		CorrectionM: st.CorrectionM, Reconciled: st.Reconciled, Snapped: s.cl.Counters().Snaps > snaps})
}

// WriteText prints the card, one figure a line ("no data" for a figure
// without data), and a blank line.
func (c *ReportCard) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	th := &c.Thresholds
	// f formats v, or says "no data".
	f := func(format string, v float64) string {
		if math.IsNaN(v) {
			return "no data"
		}
		return fmt.Sprintf(format, v)
	}
	fmt.Fprintln(w, "report card")
	fmt.Fprintf(tw, "  judder (sd of per-frame visible speed)\t%s\n", f("%.3f m/s", c.JudderMPS))
	fmt.Fprintf(tw, "  speed deficit (commanded − visible)\t%s\n", f("%.3f m/s", c.SpeedDeficitMPS))
	fmt.Fprintf(tw, "  rubber bands (back > %g cm in a frame)\t%s\n", 100*th.RubberBandM, f("%.1f /min", c.RubberBandsPerMin))
	fmt.Fprintf(tw, "  freeze time (speed < %g %% of commanded)\t%s\n", 100*th.FreezeShare, f("%.1f %% of driving frames", 100*c.FreezeShare))
	if math.IsNaN(c.SnapsPerMin) {
		fmt.Fprintf(tw, "  snaps\tno data\n")
	} else {
		fmt.Fprintf(tw, "  snaps\t%.1f /min, distance p50 %.3f m, max %.3f m\n", c.SnapsPerMin, c.SnapDistanceM.P50, c.SnapDistanceM.Max)
	}
	fmt.Fprintf(tw, "  corrections > %g cm\t%s\n", 100*th.CorrectionM, f("%.1f /min", c.CorrectionsPerMin))
	if math.IsNaN(c.InputDelayMs.P50) {
		fmt.Fprintf(tw, "  input delay, send → applied\tno data\n")
	} else {
		fmt.Fprintf(tw, "  input delay, send → applied\tp50 %.1f ms, p95 %.1f ms, p99 %.1f ms\n", c.InputDelayMs.P50, c.InputDelayMs.P95, c.InputDelayMs.P99)
	}
	if math.IsNaN(c.VisibleLagM.P50) {
		fmt.Fprintf(tw, "  visible lag behind predicted\tno data\n")
	} else {
		fmt.Fprintf(tw, "  visible lag behind predicted\tp50 %.3f m, p99 %.3f m\n", c.VisibleLagM.P50, c.VisibleLagM.P99)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// CardMetric is one report-card figure under the one name every output
// gives it: diagnose's --metric, text and JSON, the tables, CSV and JSON of
// ab and sweep: the name 'lab run --json' gives it, a percentile flattened
// (input_delay_ms.p50 is input_delay_p50_ms). Every card metric is worse
// when larger.
type CardMetric struct {
	Name  string // judder_mps
	Label string // in sentences: "judder"
	Unit  string // in sentences: "m/s"; "" for a share
	Prec  int    // decimals shown
	Get   func(*ReportCard) float64
}

// CardMetrics are the report card's figures, in the card's order.
var CardMetrics = []CardMetric{
	{"judder_mps", "judder", "m/s", 3, func(c *ReportCard) float64 { return c.JudderMPS }},
	{"speed_deficit_mps", "speed deficit", "m/s", 3, func(c *ReportCard) float64 { return c.SpeedDeficitMPS }},
	{"rubber_bands_per_min", "rubber bands", "/min", 1, func(c *ReportCard) float64 { return c.RubberBandsPerMin }},
	{"freeze_share", "freeze share", "", 3, func(c *ReportCard) float64 { return c.FreezeShare }},
	{"snaps_per_min", "snaps", "/min", 2, func(c *ReportCard) float64 { return c.SnapsPerMin }},
	{"snap_distance_p50_m", "snap distance p50", "m", 3, func(c *ReportCard) float64 { return c.SnapDistanceM.P50 }},
	{"snap_distance_max_m", "snap distance max", "m", 3, func(c *ReportCard) float64 { return c.SnapDistanceM.Max }},
	{"corrections_per_min", "corrections", "/min", 1, func(c *ReportCard) float64 { return c.CorrectionsPerMin }},
	{"input_delay_p50_ms", "input delay p50", "ms", 1, func(c *ReportCard) float64 { return c.InputDelayMs.P50 }},
	{"input_delay_p95_ms", "input delay p95", "ms", 1, func(c *ReportCard) float64 { return c.InputDelayMs.P95 }},
	{"input_delay_p99_ms", "input delay p99", "ms", 1, func(c *ReportCard) float64 { return c.InputDelayMs.P99 }},
	{"visible_lag_p50_m", "visible lag p50", "m", 3, func(c *ReportCard) float64 { return c.VisibleLagM.P50 }},
	{"visible_lag_p99_m", "visible lag p99", "m", 3, func(c *ReportCard) float64 { return c.VisibleLagM.P99 }},
}

// Quantity is a value of the metric as a sentence states it: "+0.3 m/s",
// "0.012" for a share.
func (m CardMetric) Quantity(v string) string {
	if m.Unit == "" {
		return v
	}
	return v + " " + m.Unit
}
