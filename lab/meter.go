package lab

import (
	"math"
	"time"

	"jitterlab/client"
	"jitterlab/metrics"
	"jitterlab/motion"
	"jitterlab/netem"
	"jitterlab/observer"
	"jitterlab/proto"
	"jitterlab/server"
	"jitterlab/sim"
)

// WarmUp is how long after login the summary starts counting frames: the
// tank needs a moment to reach speed and the corrector to settle.
const WarmUp = time.Second

// meter measures a session. The event loop (Session) owns the model: the
// queue, the clocks, the client, the server, the links and the viewer. It
// calls the meter at each point where it measures, and the meter keeps
// every figure the samples, the Summary and its report card are computed
// from.
//
// The contract:
//   - The meter only observes. It draws no random number, schedules
//     nothing and calls no method that changes what it is handed, so the
//     session runs the same events in the same order whatever it measures.
//   - It observes, each at the true time the loop handles it: a client
//     frame, when the client has run it (frameRan), each input it sends
//     (inputSent) and what it shows, after its messages were sent (frame);
//     an uplink packet sent (sentUp), and a downlink message sent, which
//     takes the delay of the latest uplink packet sent strictly before it
//     for its round trip (upDelayBefore); a copy a link delivers
//     (delivered); a MoveInput reaching the server (inputArrived); a
//     server step (serverStep); a remote-view frame rendered (view); the
//     end of a sample window (endWindow).
//   - A sample window's delays are means over the copies delivered in
//     it, its visible error, correction and visible speed the frames'
//     maxima and distance over the window; jitter is the RFC 3550
//     estimate when the window ends.
//   - The summary's one-way delays and round trips count every copy
//     delivered from the start. Frames, server steps, input samples, the
//     remote view and the windows' jitter count from WarmUp after login.
//   - After reset(every) it is the meter of a new session, with the
//     memory of its histograms, its report card and its input-sample
//     rings kept.
type meter struct {
	everyS float64 // the sample period, s

	// The sample window: the delay columns are sums and counts over the
	// copies delivered in it, the frame columns maxima and a distance.
	upJ, downJ                 metrics.Jitter
	downPDV                    metrics.PDV
	upSent, upSentPrev         upSend // the latest uplink packet sent, and the latest at an earlier instant
	winUp, winDown, winPDV     time.Duration
	winRTT                     time.Duration
	winUpN, winDownN, winRTTN  int
	winErrM, winErrDeg, winCor float64
	winDist                    float64
	sample                     metrics.Sample

	// The summary, from warmFrom on once warm.
	warmFrom                   sim.Time
	warm                       bool
	visErr, rtt, upJit, downJt *metrics.Histogram
	upOWD, downOWD             *metrics.Histogram
	corr                       *metrics.Histogram
	inputDelay                 *metrics.Histogram
	visDist                    float64 // the visible distance; its time and the commanded distance are the card's (timeS, cmdM)
	card                       *CardMeter
	cf                         CardFrame // the report card's frame, filled in place by frame
	inputs                     inputSamples
	vars                       variantStats
}

// upSend is an uplink packet's send time and one-way delay (of its first
// copy to arrive), known when it is sent.
type upSend struct {
	at    sim.Time
	delay time.Duration
	ok    bool
}

// reset makes m the meter of a new session with sample period every,
// keeping its memory.
func (m *meter) reset(every time.Duration) {
	card := m.card
	if card == nil {
		card = NewCardMeter(DefaultCardThresholds)
	}
	card.Reset(DefaultCardThresholds)
	viewDelay := reuse(m.vars.viewDelay, 0.01)
	*m = meter{everyS: sim.Seconds(every), card: card,
		corr: reuse(m.corr, 1e-4), rtt: reuse(m.rtt, 0.01), upOWD: reuse(m.upOWD, 0.01), downOWD: reuse(m.downOWD, 0.01),
		upJit: reuse(m.upJit, 0.001), downJt: reuse(m.downJt, 0.001),
		// The report card counts the same frames and input samples as the
		// summary: its visible lag in metres is the summary's visible
		// error, its server input delay the summary's input delay.
		visErr: card.lag, inputDelay: card.delay,
	}
	m.vars.viewDelay = viewDelay
}

// reuse returns h emptied (see [metrics.Histogram.Reset]), or a new
// histogram of unit when there is none.
func reuse(h *metrics.Histogram, unit float64) *metrics.Histogram {
	if h == nil || h.Unit != unit {
		return metrics.NewHistogram(unit)
	}
	h.Reset()
	return h
}

// frames is how many client frames the meter has seen.
func (m *meter) frames() uint64 { return m.inputs.frames }

// counting reports whether the summary counts what happens at now.
func (m *meter) counting(now sim.Time) bool { return m.warm && now >= m.warmFrom }

// frameRan observes that the client ran a frame at now, before its
// outbox is sent.
func (m *meter) frameRan(now sim.Time) { m.inputs.frame(now) }

// inputSent observes the input for tick, sampling throttle, sent in the
// latest frame.
func (m *meter) inputSent(tick uint32, throttle float64) { m.inputs.sent(tick, throttle) }

// frame observes a client frame at now, after the client ran it and its
// outbox was sent: prev is the visible pose and snaps the snap count
// before the frame.
func (m *meter) frame(now sim.Time, cl *client.Client, cfg *Config, prev motion.Pose, snaps uint64) {
	st := cl.StatsRef()
	m.vars.longestFrame = max(m.vars.longestFrame, st.Dt)
	raise(&m.winErrM, st.VisibleErrM)
	raise(&m.winErrDeg, st.VisibleErrDeg)
	raise(&m.winCor, st.CorrectionM)
	moved := st.MovedM
	m.winDist += moved
	if !m.warm && cl.LoggedIn() {
		m.warm, m.warmFrom = true, now.Add(WarmUp)
	}
	if m.counting(now) && st.Dt > 0 {
		dt := sim.Seconds(st.Dt)
		// st.VisibleErrM goes to m.visErr through the card,
		// and the frame's time and commanded distance are the card's.
		m.visDist += moved
		if st.Reconciled > 0 {
			m.corr.Add(st.CorrectionM)
		}
		// The report card's frame, filled in place field by field (a
		// CardFrame literal is zeroed on the stack before its fields are
		// written), here rather than in a function of its own: one call
		// fewer per frame.
		f := &m.cf
		v := cl.Visible()
		move := cfg.Client.Tuning.MoveSpeed
		f.Dt, f.X, f.Y, f.Rot = dt, v.X, v.Y, v.Rot
		f.PrevX, f.PrevY, f.PrevRot = prev.X, prev.Y, prev.Rot
		f.Throttle, f.MoveSpeed, f.PredSpeed = cl.Input().Throttle, move, float64(abs(m.inputs.sentThrottle)*move)
		f.VisibleErrM, f.CorrectionM, f.Reconciled, f.Snapped = st.VisibleErrM, st.CorrectionM, st.Reconciled, cl.Snaps() > snaps
		m.card.Frame(f)
		if cfg.Client.Corrector == client.Dilation {
			m.vars.addScale(cl.Dilation())
		}
	}
}

// raise sets *m to max(*m, v), for a maximum that starts at +0 and values
// that are never −0 (distances, absolute angles): then a compare that
// lets a NaN through gives the builtin's bits (a NaN stays a NaN),
// without its blend of both operands' signs each time.
func raise(m *float64, v float64) {
	if v > *m || v != v {
		*m = v
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// serverStep observes a server step at now whose PlayerState is ps.
func (m *meter) serverStep(now sim.Time, ps *proto.PlayerState) {
	// Input delay: from each input sample to the server step applying the
	// input that carries it (m.inputDelay through the card).
	if m.warm {
		m.inputs.applied(now, ps.AckTick, m.warmFrom, m.card)
	}
	if ps.HasDepth && m.counting(now) {
		m.vars.depth.add(ps.BufferDepth)
		if ps.HasTarget {
			m.vars.target.add(ps.BufferTarget)
		}
	}
}

// inputArrived observes a MoveInput for tick reaching the server, with
// the redundant copies of the n inputs before it.
func (m *meter) inputArrived(tick uint32, n uint8) { m.inputs.arrive(tick, n) }

// sentUp observes an uplink packet sent at now that the link scheduled as
// res says.
func (m *meter) sentUp(now sim.Time, res *netem.SendResult) {
	if res.Scheduled == 0 {
		return
	}
	first := res.At[0]
	if res.Scheduled == 2 {
		first = min(first, res.At[1])
	}
	if m.upSent.at < now {
		m.upSentPrev = m.upSent
	}
	m.upSent = upSend{at: now, delay: first.Sub(now), ok: true}
}

// upDelayBefore is the one-way delay of the latest uplink packet sent
// strictly before now (chosen by send time, not by delay), and whether
// there is one: a downlink message sent at now carries it for its round
// trip.
func (m *meter) upDelayBefore(now sim.Time) (time.Duration, bool) {
	u := m.upSent
	if u.at >= now {
		u = m.upSentPrev
	}
	return u.delay, u.ok
}

// delivered observes a copy delivered on the uplink (up) or the downlink;
// a downlink copy with hasUp is a round trip of upDelay plus its own delay.
func (m *meter) delivered(up bool, d *netem.Delivery, upDelay time.Duration, hasUp bool) {
	owd := d.At.Sub(d.SentAt)
	if up {
		m.upJ.Add(d.SentAt, d.At)
		m.upOWD.Add(ms(owd))
		m.winUp += owd
		m.winUpN++
		return
	}
	m.downJ.Add(d.SentAt, d.At)
	m.downOWD.Add(ms(owd))
	m.winDown += owd
	m.winPDV += m.downPDV.Add(owd)
	m.winDownN++
	if hasUp {
		m.rtt.Add(ms(upDelay + owd))
		m.winRTT += upDelay + owd
		m.winRTTN++
	}
}

// view observes the remote view's frame at now: the viewer vw rendered
// pose, doing st; sClock is the server's clock.
func (m *meter) view(now sim.Time, pose motion.Pose, st observer.State, vw *observer.Viewer, sClock *sim.Clock) {
	v := &m.vars
	if !v.viewStarted {
		v.viewPrev, v.viewLast, v.viewStarted = pose, now, true
		return
	}
	dt := now.Sub(v.viewLast)
	if m.counting(now) && dt > 0 {
		d := motion.Distance(v.viewPrev, pose)
		v.viewSpeed.Add(d / dt.Seconds())
		v.viewDist += d
		v.viewTime[st] += dt
		if st != observer.Waiting {
			v.viewDelay.Add(ms(sClock.Local(now).Sub(vw.RenderTime(now))))
		}
		v.viewUsed.Add(ms(vw.Delay()))
	}
	v.viewPrev, v.viewLast = pose, now
}

// endWindow ends the sample window at now. With a watcher (fill), it
// returns the window's sample, built from the window and the model's
// counters (valid until the next call); else nil.
func (m *meter) endWindow(now sim.Time, fill bool, cl *client.Client, sv *server.Server, up, down *netem.Link) *metrics.Sample {
	if m.counting(now) {
		if j := m.upJ.Ms(); !math.IsNaN(j) {
			m.upJit.Add(j)
		}
		if j := m.downJ.Ms(); !math.IsNaN(j) {
			m.downJt.Add(j)
		}
	}
	var smp *metrics.Sample
	if fill { // the sample is built only for a watcher
		m.fillSample(now, cl, sv, up, down)
		smp = &m.sample
	}
	m.winErrM, m.winErrDeg, m.winCor, m.winDist = 0, 0, 0, 0
	m.winUp, m.winDown, m.winPDV, m.winRTT = 0, 0, 0, 0
	m.winUpN, m.winDownN, m.winRTTN = 0, 0, 0
	return smp
}

// fillSample sets m.sample from the window that ends now: every field of
// metrics.Sample, one by one (a Sample literal is built on the stack and
// copied with wide loads that stall on its narrow stores), the client's
// snaps without a copy of all its counters.
func (m *meter) fillSample(now sim.Time, cl *client.Client, sv *server.Server, up, down *netem.Link) {
	svc := sv.Counters()
	uc, dc := up.Counters(), down.Counters()
	s := &m.sample
	s.TS = now.Seconds()
	s.ServerTick, s.ClientTick, s.AckTick, s.TickOffset = sv.Tick(), cl.Tick(), cl.AckTick(), cl.Offset()
	s.SendIntervalS = sim.Seconds(cl.SendInterval())
	s.PendingInputs = len(cl.Pending())
	s.RTTMs = meanMs(m.winRTT, m.winRTTN)
	s.UpOWDMs = meanMs(m.winUp, m.winUpN)
	s.DownOWDMs = meanMs(m.winDown, m.winDownN)
	s.UpJitterMs, s.DownJitterMs = m.upJ.Ms(), m.downJ.Ms()
	s.PDVMs = meanMs(m.winPDV, m.winDownN)
	s.VisibleErrorM, s.VisibleErrorDeg, s.CorrectionM = m.winErrM, m.winErrDeg, m.winCor
	s.VisibleSpeedMPS = m.winDist / m.everyS
	s.Snaps = cl.Snaps()
	s.UpLost, s.DownLost = uc.Lost+uc.QueueDropped, dc.Lost+dc.QueueDropped
	s.LateDropped, s.Overwritten, s.Starved = svc.LateDropped, svc.Overwritten, svc.Starved
}

// meanMs is sum/n in milliseconds, or NaN (no data) when n is 0.
func meanMs(sum time.Duration, n int) float64 {
	if n == 0 {
		return math.NaN()
	}
	return float64(sum) / float64(n) / 1e6
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// summarize sets sum's measured figures: the quantiles, the speeds, the
// report card and the variants' sections. cfg is the settings in force,
// cl and sv the client and the server (for the variants' counters).
func (m *meter) summarize(sum *Summary, cfg *Config, cl *client.Client, sv *server.Server) {
	sum.VisibleErrorM, sum.CorrectionM = quantiles(m.visErr), quantiles(m.corr)
	sum.RTTMs, sum.UpOWDMs, sum.DownOWDMs = quantiles(m.rtt), quantiles(m.upOWD), quantiles(m.downOWD)
	sum.InputDelayMs, sum.UpJitterMs, sum.DownJitterMs = quantiles(m.inputDelay), quantiles(m.upJit), quantiles(m.downJt)
	sum.Card = m.card.Card()
	m.vars.summarize(sum, cfg, cl, sv)
	// One judder: the report card's (docs/explanation/report-card.md). The top-level
	// figure repeats it for older readers, 0 where the card has no data.
	if !math.IsNaN(sum.Card.JudderMPS) {
		sum.JudderMPS = sum.Card.JudderMPS
	}
	if t := m.card.timeS; t > 0 {
		sum.MeanVisibleSpeedMPS = m.visDist / t
		sum.CommandedSpeedMPS = m.card.cmdM / t
	}
}
