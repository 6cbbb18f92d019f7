package lab

import (
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

// Card reports the frames and delays so far.
func (m *CardMeter) Card() ReportCard {
	c := ReportCard{Thresholds: m.th,
		JudderMPS:     m.judder.SD(),
		SnapDistanceM: P50Max{m.snapDist.Quantile(0.5), m.snapDist.Max()},
		InputDelayMs:  Percentile{m.delay.Quantile(0.5), m.delay.Quantile(0.95), m.delay.Quantile(0.99)},
		VisibleLagM:   P50P99{m.lag.Quantile(0.5), m.lag.Quantile(0.99)},
	}
	if m.timeS > 0 {
		min := m.timeS / 60
		c.SpeedDeficitMPS = (m.cmdM - m.visM) / m.timeS
		c.RubberBandsPerMin = float64(m.rubberBands) / min
		c.SnapsPerMin = float64(m.snaps) / min
		c.CorrectionsPerMin = float64(m.corrections) / min
	}
	if m.driving > 0 {
		c.FreezeShare = float64(m.frozen) / float64(m.driving)
	}
	return c
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

// WriteText prints the card, one figure a line, and a blank line.
func (c *ReportCard) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	th := &c.Thresholds
	fmt.Fprintln(w, "report card")
	fmt.Fprintf(tw, "  judder (sd of per-frame visible speed)\t%.3f m/s\n", c.JudderMPS)
	fmt.Fprintf(tw, "  speed deficit (commanded − visible)\t%.3f m/s\n", c.SpeedDeficitMPS)
	fmt.Fprintf(tw, "  rubber bands (back > %g cm in a frame)\t%.1f /min\n", 100*th.RubberBandM, c.RubberBandsPerMin)
	fmt.Fprintf(tw, "  freeze time (speed < %g %% of commanded)\t%.1f %% of driving frames\n", 100*th.FreezeShare, 100*c.FreezeShare)
	fmt.Fprintf(tw, "  snaps\t%.1f /min, distance p50 %.3f m, max %.3f m\n", c.SnapsPerMin, c.SnapDistanceM.P50, c.SnapDistanceM.Max)
	fmt.Fprintf(tw, "  corrections > %g cm\t%.1f /min\n", 100*th.CorrectionM, c.CorrectionsPerMin)
	fmt.Fprintf(tw, "  input delay, send → applied\tp50 %.1f ms, p95 %.1f ms, p99 %.1f ms\n", c.InputDelayMs.P50, c.InputDelayMs.P95, c.InputDelayMs.P99)
	fmt.Fprintf(tw, "  visible lag behind predicted\tp50 %.3f m, p99 %.3f m\n", c.VisibleLagM.P50, c.VisibleLagM.P99)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}
