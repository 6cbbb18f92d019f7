package lab

import (
	"math"
	"time"

	"jitterlab/client"
	"jitterlab/motion"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// TelemetryFrame is the telemetry frame (docs/reference/telemetry.md) of
// cl's frame number n, just rendered at local time local: what lab game's
// client sends after each frame, and what a session hands its OnFrame.
func TelemetryFrame(cl *client.Client, local sim.Time, n uint64) telemetry.Frame {
	return telemetry.Frame{TS: local.Seconds(), Frame: n, Input: cl.Input(), Visible: cl.Visible(), Predicted: cl.Predicted(),
		TickOffset: int64(cl.Offset()), SendIntervalS: sim.Seconds(cl.SendInterval()), AckTick: cl.AckTick(), PendingInputs: int64(len(cl.Pending()))}
}

// NotInTelemetry names the report card's figures (CardMetrics' names) a
// game's telemetry frames cannot give, each with the reason: what
// reconciliation corrected happens inside the client, and what the server
// did with each input sample inside the server. A [TelemetryMeter]'s card
// has them NaN (no data).
var NotInTelemetry = map[string]string{
	"corrections_under_1cm_per_min": correctionsInside, "corrections_1_to_10cm_per_min": correctionsInside, "corrections_over_10cm_per_min": correctionsInside,
	"server_input_delay_p50_ms": serverInside, "server_input_delay_p95_ms": serverInside, "server_input_delay_p99_ms": serverInside,
	"server_input_lost_share": serverInside, "server_input_overwritten_share": serverInside,
}

const (
	correctionsInside = "what reconciliation corrected happens inside the client: a telemetry frame carries the visible and the predicted pose, not the corrections"
	serverInside      = "what the server did with each input sample happens inside the server: a client's telemetry frame does not carry it"
)

// TelemetryMeter computes the report card of a game from its telemetry
// frames with the [CardMeter] a session uses, and the session's rules:
//   - a frame counts from [WarmUp] after login, in the client's local time
//     (t_s); login is the first frame that has sent an input (ack_tick +
//     pending_inputs above 0: the client sends in the frame it logs in);
//   - a frame's length is the time since the frame before it, to the
//     nanosecond, and its motion is from that frame's visible pose to its own;
//   - the prediction integrates the throttle of the latest input sent: a
//     frame sent one when ack_tick + pending_inputs (the latest tick sent)
//     grew, and it sent the throttle it sampled;
//   - the visible lag in metres is [client.VisibleError] of each frame;
//   - a frame snapped when its visible pose moved more than client.snap:
//     the model's client snaps a visible pose farther than that from the
//     prediction onto it, and its smoothing moves one less than that.
//
// A frame not later than the one before it (reordered, or repeated) is
// skipped and counted. A frame lost on the way makes its successor one
// longer frame. The figures of [NotInTelemetry] are NaN.
type TelemetryMeter struct {
	card         *CardMeter
	moveSpeed    float64
	snapM        float64
	prev         telemetry.Frame
	started      bool
	warm         bool
	warmFrom     float64
	sent         uint64 // ack_tick + pending_inputs of the previous frame
	sentThrottle float64
	skipped      uint64
	counted      uint64
}

// NewTelemetryMeter returns a meter for a game whose settings are cfg's:
// its tank's speed is client.move_speed, its snap distance client.snap.
func NewTelemetryMeter(cfg *Config) *TelemetryMeter {
	return &TelemetryMeter{card: NewCardMeter(DefaultCardThresholds), moveSpeed: cfg.Client.Tuning.MoveSpeed, snapM: cfg.Client.Snap}
}

// Frame takes one frame, in the order the game rendered them, and
// reports whether the card counts it (from WarmUp after login on).
func (m *TelemetryMeter) Frame(f *telemetry.Frame) (counted bool) {
	if m.started && !(f.TS > m.prev.TS) {
		m.skipped++
		return false
	}
	sent := uint64(f.AckTick) + uint64(max(f.PendingInputs, 0))
	if sent > m.sent {
		m.sentThrottle = f.Input.Throttle
	}
	m.sent = sent
	if m.started {
		if !m.warm && sent > 0 {
			m.warm, m.warmFrom = true, f.TS+WarmUp.Seconds()
		} else if counted = m.warm && f.TS >= m.warmFrom; counted {
			p := &m.prev.Visible
			// The frame's length to the nanosecond, as the session's
			// (sim.Seconds of its duration): the judder window's edges
			// fall on frame times, and a last bit decides which side.
			dt := sim.Seconds(time.Duration(math.Round(float64((f.TS - m.prev.TS) * 1e9))))
			m.card.Frame(&CardFrame{Dt: dt, X: f.Visible.X, Y: f.Visible.Y, Rot: f.Visible.Rot, PrevX: p.X, PrevY: p.Y, PrevRot: p.Rot,
				Throttle: f.Input.Throttle, MoveSpeed: m.moveSpeed, PredSpeed: float64(math.Abs(m.sentThrottle) * m.moveSpeed),
				VisibleErrM: client.VisibleError(f.Visible, f.Predicted), Snapped: motion.Distance(*p, f.Visible) > m.snapM})
		}
	}
	m.prev, m.started = *f, true
	if counted {
		m.counted++
	}
	return counted
}

// Skipped is how many frames were not later than the one before them.
func (m *TelemetryMeter) Skipped() uint64 { return m.skipped }

// Counted is how many frames the card counts (those from WarmUp after
// login on).
func (m *TelemetryMeter) Counted() uint64 { return m.counted }

// Card is the report card of the frames so far.
func (m *TelemetryMeter) Card() ReportCard {
	c := m.card.Card()
	for _, cm := range CardMetrics {
		if NotInTelemetry[cm.Name] != "" {
			setNaN(&c, cm.Name)
		}
	}
	return c
}

// setNaN makes the figure named name NaN.
func setNaN(c *ReportCard, name string) {
	nan := math.NaN()
	switch name {
	case "corrections_under_1cm_per_min":
		c.CorrectionsSmallPerMin = nan
	case "corrections_1_to_10cm_per_min":
		c.CorrectionsMediumPerMin = nan
	case "corrections_over_10cm_per_min":
		c.CorrectionsLargePerMin = nan
	case "server_input_delay_p50_ms":
		c.ServerInputDelayMs.P50 = nan
	case "server_input_delay_p95_ms":
		c.ServerInputDelayMs.P95 = nan
	case "server_input_delay_p99_ms":
		c.ServerInputDelayMs.P99 = nan
	case "server_input_lost_share":
		c.ServerInputLostShare = nan
	case "server_input_overwritten_share":
		c.ServerInputOverwrittenShare = nan
	}
}

// TelemetryCard is the report card of frames, a game's telemetry in the
// order it rendered them, for a game with cfg's settings ([TelemetryMeter]).
func TelemetryCard(cfg *Config, frames []telemetry.Frame) ReportCard {
	m := NewTelemetryMeter(cfg)
	for i := range frames {
		m.Frame(&frames[i])
	}
	return m.Card()
}
