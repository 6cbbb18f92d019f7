package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"jitterlab/detmath"
	"jitterlab/metrics"
	"jitterlab/stats"
)

// CardThresholds are the report card's thresholds (docs/explanation/report-card.md).
type CardThresholds struct {
	ThrottleOnMin    float64 `json:"throttle_on_min"`    // |throttle| above this means the player is driving (0)
	JudderWindowS    float64 `json:"judder_window_s"`    // the centred moving mean judder subtracts spans this (0.2 s)
	BackwardM        float64 `json:"backward_m"`         // a backward excursion longer than this is a rubber band (0.01 m)
	HesitationShare  float64 `json:"hesitation_share"`   // below this share of the commanded speed a driving frame hesitates (0.5)
	HesitationS      float64 `json:"hesitation_s"`       // a hesitation lasts at least this (0.1 s)
	ResponseM        float64 `json:"response_m"`         // the visible pose has responded once it is this far from where it was going (0.05 m)
	ResponseStep     float64 `json:"response_step"`      // a throttle change of at least this starts a local response (0.5)
	CorrectionFloorM float64 `json:"correction_floor_m"` // a reconciliation moving the prediction less is no correction (0.0001 m)
	CorrectionSmallM float64 `json:"correction_small_m"` // corrections below this are small (0.01 m)
	CorrectionLargeM float64 `json:"correction_large_m"` // corrections above this are large (0.10 m)
}

// DefaultCardThresholds are the thresholds every summary uses.
var DefaultCardThresholds = CardThresholds{JudderWindowS: 0.2, BackwardM: 0.01, HesitationShare: 0.5, HesitationS: 0.1,
	ResponseM: 0.05, ResponseStep: 0.5, CorrectionFloorM: 1e-4, CorrectionSmallM: 0.01, CorrectionLargeM: 0.10}

// ReportCard is what the player sees in a run, in the player's terms (the
// card's second edition). Every figure is defined in docs/explanation/report-card.md;
// frames count from WarmUp after login, as the rest of the Summary. A
// figure without data is NaN.
type ReportCard struct {
	ProgressDeficitMPS          float64
	ProgressDeficitPct          float64
	JudderMPS                   float64
	BackwardExcursionsPerMin    float64
	BackwardMPerMin             float64
	HesitationsPerMin           float64
	HesitationShare             float64
	SnapsPerMin                 float64
	SnapDistanceM               P50Max
	CorrectionsSmallPerMin      float64
	CorrectionsMediumPerMin     float64
	CorrectionsLargePerMin      float64
	LocalResponseMs             Percentile
	ServerInputDelayMs          Percentile
	ServerInputLostShare        float64
	ServerInputOverwrittenShare float64
	VisibleLagMs                P50P99
	VisibleLagM                 P50P99

	Thresholds CardThresholds
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
	PredSpeed   float64 // m/s of the input the prediction integrates (the latest sent)
	VisibleErrM float64 // |visible − predicted| after the frame
	CorrectionM float64 // largest reconciliation correction this frame
	Reconciled  int     // PlayerStates reconciled this frame
	Snapped     bool    // the visible pose snapped this frame
}

// lagRing bounds how far back the visible lag in time looks for the
// prediction's past path: 256 frames, 4.3 s at 60 fps and 0.26 s at 1000
// fps. A lag longer than the ring continues at the oldest frame's speed.
const lagRing = 256

// predFrame is the prediction's path after one frame: its end time, the
// path length so far and the speed it moved at during the frame.
type predFrame struct{ t, m, v float64 }

// edgeM is how close to a correction bucket's edge a correction counts as
// on it (1 µm).
const edgeM = 1e-6

// judderRing bounds the frames judder's centred window holds: 200 ms at
// client.fps 1000 is 201 frames. A game drawing more (a real one's
// telemetry can) is judged on the judderRing frames around each frame:
// half before it, half after, still centred.
const judderRing = 256

// judderFrame is one frame waiting for the window after it.
type judderFrame struct {
	t, dt, v      float64 // end time (s since the first counted frame), length, speed along the travel direction
	driving, snap bool
}

// CardMeter computes a ReportCard from frames and input samples. Its zero
// value is not ready: use NewCardMeter. It never allocates after that.
type CardMeter struct {
	th            CardThresholds
	half          float64 // half the judder window, s
	frames        uint64
	driving       uint64
	timeS, driveS float64
	cmdM, progM   float64 // commanded distance, signed progress along the travel direction
	dir           float64 // +1, or −1 after a negative throttle: the direction of travel
	// The last heading's sine and cosine (rotOK once there is one).
	rot, sin, cos float64
	rotOK         bool

	// Judder: frames wait in ring[centre, next) until the window after
	// them is complete; ring[tail, next) is the window, sumVD and sumDT
	// its non-snap distance and time.
	ring               [judderRing]judderFrame
	tail, centre, next uint64
	sumVD, sumDT       float64
	judSS              float64
	judN               uint64
	quietFrom, quietTo float64 // a throttle change's transition, out of judder

	// Rubber bands: the backward run so far.
	backRun      float64
	backCounted  bool
	excursions   uint64
	backM        float64
	hesRun, hesS float64
	hesCounted   bool
	hesitations  uint64

	// Local response: a throttle change waiting for the visible pose.
	lastThrottle   float64
	hasThrottle    bool
	respPending    bool
	respT0         float64 // the change frame's end time
	respX, respY   float64 // the pose before the change frame
	respStart      float64 // its time
	respUX, respUY float64 // the heading at the change (unit)
	respV          float64 // the signed speed commanded before the change

	snaps                         uint64
	corrSmall, corrMid, corrLarge uint64
	lost, overwritten             uint64 // input samples; those applied are delay's count
	snapDist, lag, lagMs          *metrics.Histogram

	// Visible lag in time: the prediction's path length predM after each
	// of the last lagRing frames (pred[i%lagRing]), to find when the
	// prediction was where the visible pose is now.
	pred            [lagRing]predFrame
	predN           uint64
	predM           float64
	lagAge          uint64 // the last lag's answer (frames back from the newest), where the next search starts
	response, delay *metrics.Histogram
}

// NewCardMeter returns a meter with thresholds th.
func NewCardMeter(th CardThresholds) *CardMeter {
	m := &CardMeter{snapDist: metrics.NewHistogram(1e-4), lag: metrics.NewHistogram(1e-4), lagMs: metrics.NewHistogram(0.01),
		response: metrics.NewHistogram(0.01), delay: metrics.NewHistogram(0.01)}
	m.Reset(th)
	return m
}

// Reset makes m the meter NewCardMeter(th) returns, keeping its
// histograms' memory (see [metrics.Histogram.Reset]).
func (m *CardMeter) Reset(th CardThresholds) {
	hs := [...]*metrics.Histogram{m.snapDist, m.lag, m.lagMs, m.response, m.delay}
	for _, h := range hs {
		h.Reset()
	}
	*m = CardMeter{th: th, half: th.JudderWindowS / 2, dir: 1, quietFrom: math.Inf(1), quietTo: math.Inf(1),
		snapDist: hs[0], lag: hs[1], lagMs: hs[2], response: hs[3], delay: hs[4]}
}

// Frame counts one frame.
func (m *CardMeter) Frame(f *CardFrame) {
	dx, dy := f.X-f.PrevX, f.Y-f.PrevY
	start := m.timeS
	m.frames++
	m.timeS += f.Dt
	t := m.timeS
	cmd := math.Abs(f.Throttle) * f.MoveSpeed
	m.cmdM += float64(cmd * f.Dt)
	driving := math.Abs(f.Throttle) > m.th.ThrottleOnMin
	if driving {
		m.driving++
		m.driveS += f.Dt
		m.dir = math.Copysign(1, f.Throttle)
	}
	// Along the direction of travel: the heading before the frame,
	// reversed while reversing.
	if math.Float64bits(f.PrevRot) != math.Float64bits(m.rot) || !m.rotOK { // a heading held over frames keeps its sine and cosine (bit for bit: −0 is not +0)
		m.rot, m.rotOK = f.PrevRot, true
		m.sin, m.cos = detmath.Sincos(f.PrevRot * (math.Pi / 180))
	}
	sin, cos := m.sin, m.cos
	along := float64((float64(dx*sin) + float64(dy*cos)) * m.dir) // float64(): not fused into the sums below
	m.progM += along
	speed := along / f.Dt

	// The local response: a throttle change starts one, which runs until
	// the visible pose answers it. Calls only then: most frames need
	// neither.
	if m.hasThrottle && math.Abs(f.Throttle-m.lastThrottle) >= m.th.ResponseStep {
		m.startResponse(f, t, start, sin, cos)
	}
	m.lastThrottle, m.hasThrottle = f.Throttle, true
	if m.respPending {
		m.respond(f, t)
	}

	// Rubber bands: a run of frames moving backward.
	if along < 0 {
		m.backRun -= along
		m.backM -= along
		if !m.backCounted && m.backRun > m.th.BackwardM {
			m.excursions++
			m.backCounted = true
		}
	} else {
		m.backRun, m.backCounted = 0, false
	}
	// Hesitations: a run of driving frames below a share of the commanded
	// speed, once the visible pose has answered the last throttle change
	// (the wait for that answer is the local response).
	if driving && !m.respPending && speed < m.th.HesitationShare*cmd {
		m.hesRun += f.Dt
		switch {
		case m.hesCounted:
			m.hesS += f.Dt
		case m.hesRun >= m.th.HesitationS-1e-9:
			m.hesitations++
			m.hesCounted = true
			m.hesS += m.hesRun
		}
	} else {
		m.hesRun, m.hesCounted = 0, false
	}

	if f.Snapped {
		m.snaps++
		m.snapDist.Add(math.Sqrt(float64(dx*dx) + float64(dy*dy))) // math.Hypot may fuse
	}
	// A correction within a micrometre of a bucket's edge is on the edge:
	// one tick's motion (0.1 m at 2 m/s and 20 Hz) is the commonest size,
	// and rounding must not split it between two buckets.
	if f.Reconciled > 0 && f.CorrectionM > m.th.CorrectionFloorM {
		switch {
		case f.CorrectionM < m.th.CorrectionSmallM-edgeM:
			m.corrSmall++
		case f.CorrectionM <= m.th.CorrectionLargeM+edgeM:
			m.corrMid++
		default:
			m.corrLarge++
		}
	}
	m.lag.Add(f.VisibleErrM)
	// Judder after every figure that needs this frame's values, and
	// before the lag, which needs none of them: fewer values to save
	// across the call.
	m.judder(t, f.Dt, speed, driving, f.Snapped)
	m.predM += float64(f.PredSpeed * f.Dt)
	m.pred[m.predN%lagRing] = predFrame{t: t, m: m.predM, v: f.PredSpeed}
	m.predN++
	if f.PredSpeed > 0 {
		m.lagMs.Add(1000 * m.lagTime(t, f.VisibleErrM))
	}
}

// lagTime is how long ago (s, at time t) the prediction's path was errM
// short of where it is now: the visible lag in time. At a steady
// prediction speed it is errM ÷ the speed; after the prediction slows it
// is the time the prediction took to cover the last errM, not errM ÷ the
// new, slower speed (0.2 m behind a tank that just slowed from 2 to 0.1
// m/s is 0.1 s behind, not 2 s).
func (m *CardMeter) lagTime(t, errM float64) float64 {
	target := m.predM - errM
	n := min(m.predN, lagRing)
	// The newest frame whose path is at or short of target. The path
	// grows with each frame, so "at or short" is false for the ages below
	// the answer and true from it on (ages: 0 newest … n−1 oldest; n, before
	// the ring, counts as true). The search gallops from the last answer's
	// age g, where the lag mostly still is, probing g∓1, g∓2, g∓4, …, then
	// halves the bracket found: an answer one or two frames from g (at 60
	// fps it moves −1, −1, +2 in a cycle) takes three probes.
	at := func(age uint64) float64 { return m.pred[(m.predN-1-age)%lagRing].m }
	// The answer is in [lo, hi].
	g := min(m.lagAge, n)
	var lo, hi uint64
	if g == n || at(g) <= target { // at g or newer
		lo, hi = 0, g
		for d := uint64(1); d <= g; d *= 2 {
			if at(g-d) > target {
				lo = g - d + 1
				break
			}
			hi = g - d
		}
	} else { // older than g
		lo, hi = g+1, n
		for d := uint64(1); g+d < n; d *= 2 {
			if at(g+d) <= target {
				hi = g + d
				break
			}
			lo = g + d + 1
		}
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if at(mid) <= target {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	m.lagAge = lo
	if lo == n { // before the ring: on at the oldest frame's speed
		o := m.pred[(m.predN-n)%lagRing]
		if o.v <= 0 {
			return t - o.t
		}
		return t - o.t + (o.m-target)/o.v
	}
	if lo == 0 {
		return 0
	}
	// b, the frame after the one found, moved the path past target, at
	// its speed.
	b := m.pred[(m.predN-lo)%lagRing]
	return t - b.t + (b.m-target)/b.v
}

// startResponse starts a local response at a frame ending at t (started
// at start) whose throttle changed by at least ResponseStep; sin and cos
// are the heading before it. m.lastThrottle is the throttle before it.
func (m *CardMeter) startResponse(f *CardFrame, t, start, sin, cos float64) {
	m.respPending, m.respT0 = true, t
	m.respX, m.respY, m.respStart = f.PrevX, f.PrevY, start
	m.respUX, m.respUY = sin, cos
	m.respV = m.lastThrottle * f.MoveSpeed
	// The change's transition is no judder: from half a window
	// before it until half a window after the response.
	h := m.half
	if m.quietTo <= t-h || math.IsInf(m.quietFrom, 1) {
		m.quietFrom = t - h
	}
	m.quietTo = math.Inf(1)
}

// respond ends the pending local response at the frame ending at t once
// the visible pose is ResponseM away from where the old speed was taking
// it.
func (m *CardMeter) respond(f *CardFrame, t float64) {
	s := float64((f.X-m.respX)*m.respUX) + float64((f.Y-m.respY)*m.respUY)
	if math.Abs(s-float64(m.respV*(t-m.respStart))) >= m.th.ResponseM {
		m.respPending = false
		m.response.Add(1000 * (t - m.respT0))
		m.quietTo = t + m.half
	}
}

// judder queues a frame and judges every queued frame whose window is
// complete: its speed minus the window's mean speed, squared, for a
// driving frame that is no snap and outside a throttle change's transition.
func (m *CardMeter) judder(t, dt, v float64, driving, snap bool) {
	// The ring's indices and the window's sums in locals while frames are
	// judged: in m's fields each loop condition reloads them from memory
	// after every store (half the card's judder cost).
	h := m.half
	tail, centre, next := m.tail, m.centre, m.next
	sumVD, sumDT := m.sumVD, m.sumDT
	for centre < next {
		c := &m.ring[centre%judderRing]
		if !(c.t+h <= t || next-centre >= judderRing/2) {
			break
		}
		// Judge c against the frames within half a window either side
		// of it: the older ones leave the window first.
		for from := c.t - h; tail < centre; tail++ {
			o := &m.ring[tail%judderRing]
			if !(o.t < from || centre-tail > judderRing/2) {
				break
			}
			if !o.snap {
				sumVD -= float64(o.v * o.dt)
				sumDT -= o.dt
			}
		}
		centre++
		// Not judged: a frame whose window starts before the first counted
		// frame (incomplete), or that is not driving, a snap, or within a
		// throttle change's transition.
		if c.t < h || !c.driving || c.snap || (c.t >= m.quietFrom && c.t < m.quietTo) || !(sumDT > 0) {
			continue
		}
		r := c.v - sumVD/sumDT
		m.judSS += float64(r * r)
		m.judN++
	}
	if next-tail == judderRing { // full: the window loses its oldest, judged already
		if o := &m.ring[tail%judderRing]; !o.snap {
			sumVD -= float64(o.v * o.dt)
			sumDT -= o.dt
		}
		tail++
	}
	// Field by field: a composite literal is built on the stack and copied
	// in 16-byte loads, each spanning two of its 8-byte stores, which
	// cannot be forwarded (a stall of ~3 % of a session's time).
	r := &m.ring[next%judderRing]
	r.t, r.dt, r.v, r.driving, r.snap = t, dt, v, driving, snap
	next++
	if !snap {
		sumVD += float64(v * dt)
		sumDT += dt
	}
	m.tail, m.centre, m.next = tail, centre, next
	m.sumVD, m.sumDT = sumVD, sumDT
}

// ServerInputDelay counts one input sample's delay from the frame that read
// it to the server step that applied the input carrying it, in ms.
func (m *CardMeter) ServerInputDelay(ms float64) {
	m.delay.Add(ms) // its count is the samples applied: one add, so this inlines
}

// UnappliedSamples counts input samples whose input the server never
// applied: lost (no copy arrived before the server moved past it) and
// overwritten (one arrived and a later input replaced it).
func (m *CardMeter) UnappliedSamples(lost, overwritten uint64) {
	m.lost += lost
	m.overwritten += overwritten
}

// Card reports the frames and samples so far. A figure without data is
// NaN (null in JSON, "no data" in the text), never 0: with no counted frame
// every frame figure; with no driving frame (throttle on) the progress
// deficit, judder, rubber bands and hesitations; judder with no judged
// frame; the local response with no throttle change answered; the visible
// lag in ms with no frame predicting motion; the server input delay with
// no sample applied; its shares with no sample decided. Snap distances are
// 0 when frames show no snap.
func (m *CardMeter) Card() ReportCard {
	nan := math.NaN()
	c := ReportCard{Thresholds: m.th,
		ProgressDeficitMPS: nan, ProgressDeficitPct: nan, JudderMPS: nan,
		BackwardExcursionsPerMin: nan, BackwardMPerMin: nan, HesitationsPerMin: nan, HesitationShare: nan,
		SnapsPerMin: nan, SnapDistanceM: P50Max{nan, nan},
		CorrectionsSmallPerMin: nan, CorrectionsMediumPerMin: nan, CorrectionsLargePerMin: nan,
		LocalResponseMs: percentiles(m.response), ServerInputDelayMs: percentiles(m.delay),
		ServerInputLostShare: nan, ServerInputOverwrittenShare: nan,
		VisibleLagMs: P50P99{nan, nan}, VisibleLagM: P50P99{nan, nan},
	}
	if n := m.delay.Count() + m.lost + m.overwritten; n > 0 {
		c.ServerInputLostShare = float64(m.lost) / float64(n)
		c.ServerInputOverwrittenShare = float64(m.overwritten) / float64(n)
	}
	if m.frames == 0 || m.timeS <= 0 {
		return c
	}
	min := m.timeS / 60
	c.SnapsPerMin = float64(m.snaps) / min
	c.SnapDistanceM = P50Max{m.snapDist.Quantile(0.5), m.snapDist.Max()}
	c.CorrectionsSmallPerMin = float64(m.corrSmall) / min
	c.CorrectionsMediumPerMin = float64(m.corrMid) / min
	c.CorrectionsLargePerMin = float64(m.corrLarge) / min
	c.VisibleLagM = P50P99{m.lag.Quantile(0.5), m.lag.Quantile(0.99)}
	if m.lagMs.Count() > 0 {
		c.VisibleLagMs = P50P99{m.lagMs.Quantile(0.5), m.lagMs.Quantile(0.99)}
	}
	if m.driving == 0 {
		return c
	}
	deficit := m.cmdM - m.progM
	c.ProgressDeficitMPS = deficit / m.timeS
	if m.cmdM > 0 {
		c.ProgressDeficitPct = 100 * deficit / m.cmdM
	}
	if m.judN > 0 {
		c.JudderMPS = math.Sqrt(m.judSS / float64(m.judN))
	}
	c.BackwardExcursionsPerMin = float64(m.excursions) / min
	c.BackwardMPerMin = m.backM / min
	c.HesitationsPerMin = float64(m.hesitations) / min
	c.HesitationShare = m.hesS / m.driveS
	return c
}

// percentiles is h's median, 95th and 99th percentiles, NaN when h is empty.
func percentiles(h *metrics.Histogram) Percentile {
	if h.Count() == 0 {
		nan := math.NaN()
		return Percentile{nan, nan, nan}
	}
	return Percentile{h.Quantile(0.5), h.Quantile(0.95), h.Quantile(0.99)}
}

// cardJSON is a ReportCard as JSON: figures without data are null.
type cardJSON struct {
	ProgressDeficitMPS          Figure         `json:"progress_deficit_mps"`
	ProgressDeficitPct          Figure         `json:"progress_deficit_pct"`
	JudderMPS                   Figure         `json:"judder_mps"`
	BackwardExcursionsPerMin    Figure         `json:"backward_excursions_per_min"`
	BackwardMPerMin             Figure         `json:"backward_m_per_min"`
	HesitationsPerMin           Figure         `json:"hesitations_per_min"`
	HesitationShare             Figure         `json:"hesitation_share"`
	SnapsPerMin                 Figure         `json:"snaps_per_min"`
	SnapDistance                figMax         `json:"snap_distance_m"`
	CorrectionsSmallPerMin      Figure         `json:"corrections_under_1cm_per_min"`
	CorrectionsMediumPerMin     Figure         `json:"corrections_1_to_10cm_per_min"`
	CorrectionsLargePerMin      Figure         `json:"corrections_over_10cm_per_min"`
	LocalResponseMs             figPct         `json:"local_response_ms"`
	ServerInputDelayMs          figPct         `json:"server_input_delay_ms"`
	ServerInputLostShare        Figure         `json:"server_input_lost_share"`
	ServerInputOverwrittenShare Figure         `json:"server_input_overwritten_share"`
	VisibleLagMs                fig99          `json:"visible_lag_ms"`
	VisibleLagM                 fig99          `json:"visible_lag_m"`
	Thresholds                  CardThresholds `json:"thresholds"`
}

type figMax struct {
	P50 Figure `json:"p50"`
	Max Figure `json:"max"`
}

type figPct struct {
	P50 Figure `json:"p50"`
	P95 Figure `json:"p95"`
	P99 Figure `json:"p99"`
}

type fig99 struct {
	P50 Figure `json:"p50"`
	P99 Figure `json:"p99"`
}

func toPct(p Percentile) figPct   { return figPct{Figure(p.P50), Figure(p.P95), Figure(p.P99)} }
func fromPct(p figPct) Percentile { return Percentile{float64(p.P50), float64(p.P95), float64(p.P99)} }
func to99(p P50P99) fig99         { return fig99{Figure(p.P50), Figure(p.P99)} }
func from99(p fig99) P50P99       { return P50P99{float64(p.P50), float64(p.P99)} }

// MarshalJSON writes a figure without data as null.
func (c ReportCard) MarshalJSON() ([]byte, error) {
	return json.Marshal(cardJSON{
		ProgressDeficitMPS: Figure(c.ProgressDeficitMPS), ProgressDeficitPct: Figure(c.ProgressDeficitPct), JudderMPS: Figure(c.JudderMPS),
		BackwardExcursionsPerMin: Figure(c.BackwardExcursionsPerMin), BackwardMPerMin: Figure(c.BackwardMPerMin),
		HesitationsPerMin: Figure(c.HesitationsPerMin), HesitationShare: Figure(c.HesitationShare),
		SnapsPerMin: Figure(c.SnapsPerMin), SnapDistance: figMax{Figure(c.SnapDistanceM.P50), Figure(c.SnapDistanceM.Max)},
		CorrectionsSmallPerMin: Figure(c.CorrectionsSmallPerMin), CorrectionsMediumPerMin: Figure(c.CorrectionsMediumPerMin),
		CorrectionsLargePerMin: Figure(c.CorrectionsLargePerMin),
		LocalResponseMs:        toPct(c.LocalResponseMs), ServerInputDelayMs: toPct(c.ServerInputDelayMs),
		ServerInputLostShare: Figure(c.ServerInputLostShare), ServerInputOverwrittenShare: Figure(c.ServerInputOverwrittenShare),
		VisibleLagMs: to99(c.VisibleLagMs), VisibleLagM: to99(c.VisibleLagM), Thresholds: c.Thresholds,
	})
}

// UnmarshalJSON reads null as NaN (no data).
func (c *ReportCard) UnmarshalJSON(b []byte) error {
	var j cardJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = ReportCard{
		ProgressDeficitMPS: float64(j.ProgressDeficitMPS), ProgressDeficitPct: float64(j.ProgressDeficitPct), JudderMPS: float64(j.JudderMPS),
		BackwardExcursionsPerMin: float64(j.BackwardExcursionsPerMin), BackwardMPerMin: float64(j.BackwardMPerMin),
		HesitationsPerMin: float64(j.HesitationsPerMin), HesitationShare: float64(j.HesitationShare),
		SnapsPerMin: float64(j.SnapsPerMin), SnapDistanceM: P50Max{float64(j.SnapDistance.P50), float64(j.SnapDistance.Max)},
		CorrectionsSmallPerMin: float64(j.CorrectionsSmallPerMin), CorrectionsMediumPerMin: float64(j.CorrectionsMediumPerMin),
		CorrectionsLargePerMin: float64(j.CorrectionsLargePerMin),
		LocalResponseMs:        fromPct(j.LocalResponseMs), ServerInputDelayMs: fromPct(j.ServerInputDelayMs),
		ServerInputLostShare: float64(j.ServerInputLostShare), ServerInputOverwrittenShare: float64(j.ServerInputOverwrittenShare),
		VisibleLagMs: from99(j.VisibleLagMs), VisibleLagM: from99(j.VisibleLagM), Thresholds: j.Thresholds,
	}
	return nil
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
	// q formats percentiles named names, or says "no data".
	q := func(names []string, vs ...float64) string {
		if math.IsNaN(vs[0]) {
			return "no data"
		}
		out := ""
		for i, v := range vs {
			if i > 0 {
				out += ", "
			}
			out += fmt.Sprintf("%s %.1f ms", names[i], v)
		}
		return out
	}
	p3, p2 := []string{"p50", "p95", "p99"}, []string{"p50", "p99"}
	fmt.Fprintln(w, "report card")
	deficit := f("%.3f m/s", c.ProgressDeficitMPS)
	if !math.IsNaN(c.ProgressDeficitMPS) {
		deficit = stats.Fixed(c.ProgressDeficitMPS, 3) + " m/s"
	}
	if !math.IsNaN(c.ProgressDeficitPct) {
		deficit += " (" + stats.Fixed(c.ProgressDeficitPct, 1) + " % of commanded)"
	}
	fmt.Fprintf(tw, "  progress deficit (commanded − forward progress)\t%s\n", deficit)
	fmt.Fprintf(tw, "  judder (rms of speed − its %g ms mean)\t%s\n", 1000*th.JudderWindowS, f("%.3f m/s", c.JudderMPS))
	back := f("%.1f /min", c.BackwardExcursionsPerMin)
	if !math.IsNaN(c.BackwardMPerMin) {
		back += fmt.Sprintf(", %.3f m/min backward", c.BackwardMPerMin)
	}
	fmt.Fprintf(tw, "  rubber bands (backward runs > %g cm)\t%s\n", 100*th.BackwardM, back)
	hes := f("%.1f /min", c.HesitationsPerMin)
	if !math.IsNaN(c.HesitationShare) {
		hes += fmt.Sprintf(", %.1f %% of driving time", 100*c.HesitationShare)
	}
	fmt.Fprintf(tw, "  hesitations (≥ %g ms below %g %% of commanded)\t%s\n", 1000*th.HesitationS, 100*th.HesitationShare, hes)
	if math.IsNaN(c.SnapsPerMin) {
		fmt.Fprintf(tw, "  snaps\tno data\n")
	} else {
		fmt.Fprintf(tw, "  snaps\t%.1f /min, distance p50 %.3f m, max %.3f m\n", c.SnapsPerMin, c.SnapDistanceM.P50, c.SnapDistanceM.Max)
	}
	if math.IsNaN(c.CorrectionsSmallPerMin) {
		fmt.Fprintf(tw, "  corrections\tno data\n")
	} else {
		fmt.Fprintf(tw, "  corrections < %g cm, %g–%g cm, > %g cm\t%.1f, %.1f, %.1f /min\n", 100*th.CorrectionSmallM, 100*th.CorrectionSmallM,
			100*th.CorrectionLargeM, 100*th.CorrectionLargeM, c.CorrectionsSmallPerMin, c.CorrectionsMediumPerMin, c.CorrectionsLargePerMin)
	}
	r := &c.LocalResponseMs
	fmt.Fprintf(tw, "  local response (throttle → %g cm on screen)\t%s\n", 100*th.ResponseM, q(p3, r.P50, r.P95, r.P99))
	d := &c.ServerInputDelayMs
	sv := q(p3, d.P50, d.P95, d.P99)
	if !math.IsNaN(c.ServerInputLostShare) {
		sv += fmt.Sprintf("; lost %.1f %%, overwritten %.1f %%", 100*c.ServerInputLostShare, 100*c.ServerInputOverwrittenShare)
	}
	fmt.Fprintf(tw, "  server input delay (sample → applied)\t%s\n", sv)
	lag := q(p2, c.VisibleLagMs.P50, c.VisibleLagMs.P99)
	if !math.IsNaN(c.VisibleLagM.P50) {
		lag += fmt.Sprintf(" (p50 %.3f m, p99 %.3f m)", c.VisibleLagM.P50, c.VisibleLagM.P99)
	}
	fmt.Fprintf(tw, "  visible lag behind predicted\t%s\n", lag)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

// CardMetric is one report-card figure under the one name every output
// gives it: diagnose's --metric, text and JSON, the tables, CSV and JSON of
// ab and sweep: the name 'lab run --json' gives it, a percentile flattened
// (local_response_ms.p50 is local_response_p50_ms). Every card metric is
// worse when larger; a Magnitude metric (the progress deficit) is worse
// when farther from 0, either way.
type CardMetric struct {
	Name      string // judder_mps
	Label     string // in sentences: "judder"
	Unit      string // in sentences: "m/s"; "" for a share
	Prec      int    // decimals shown
	Get       func(*ReportCard) float64
	Magnitude bool // ranked by |Get|
	// Server: the server's side (what other players see of this one),
	// shown but not the local player's cost (diagnose's bar leaves it out).
	Server bool
}

// Score is the figure as it is ranked: |Get| for a Magnitude metric.
func (m CardMetric) Score(c *ReportCard) float64 {
	if m.Magnitude {
		return math.Abs(m.Get(c))
	}
	return m.Get(c)
}

// CardMetrics are the report card's figures, in the card's order.
var CardMetrics = []CardMetric{
	{Name: "progress_deficit_mps", Label: "progress deficit", Unit: "m/s", Prec: 3, Get: func(c *ReportCard) float64 { return c.ProgressDeficitMPS }, Magnitude: true},
	{Name: "progress_deficit_pct", Label: "progress deficit", Unit: "%", Prec: 1, Get: func(c *ReportCard) float64 { return c.ProgressDeficitPct }, Magnitude: true},
	{Name: "judder_mps", Label: "judder", Unit: "m/s", Prec: 3, Get: func(c *ReportCard) float64 { return c.JudderMPS }},
	{Name: "backward_excursions_per_min", Label: "rubber bands", Unit: "/min", Prec: 1, Get: func(c *ReportCard) float64 { return c.BackwardExcursionsPerMin }},
	{Name: "backward_m_per_min", Label: "backward motion", Unit: "m/min", Prec: 3, Get: func(c *ReportCard) float64 { return c.BackwardMPerMin }},
	{Name: "hesitations_per_min", Label: "hesitations", Unit: "/min", Prec: 1, Get: func(c *ReportCard) float64 { return c.HesitationsPerMin }},
	{Name: "hesitation_share", Label: "hesitation share", Prec: 3, Get: func(c *ReportCard) float64 { return c.HesitationShare }},
	{Name: "snaps_per_min", Label: "snaps", Unit: "/min", Prec: 2, Get: func(c *ReportCard) float64 { return c.SnapsPerMin }},
	{Name: "snap_distance_p50_m", Label: "snap distance p50", Unit: "m", Prec: 3, Get: func(c *ReportCard) float64 { return c.SnapDistanceM.P50 }},
	{Name: "snap_distance_max_m", Label: "snap distance max", Unit: "m", Prec: 3, Get: func(c *ReportCard) float64 { return c.SnapDistanceM.Max }},
	{Name: "corrections_under_1cm_per_min", Label: "corrections < 1 cm", Unit: "/min", Prec: 1, Get: func(c *ReportCard) float64 { return c.CorrectionsSmallPerMin }},
	{Name: "corrections_1_to_10cm_per_min", Label: "corrections 1–10 cm", Unit: "/min", Prec: 1, Get: func(c *ReportCard) float64 { return c.CorrectionsMediumPerMin }},
	{Name: "corrections_over_10cm_per_min", Label: "corrections > 10 cm", Unit: "/min", Prec: 1, Get: func(c *ReportCard) float64 { return c.CorrectionsLargePerMin }},
	{Name: "local_response_p50_ms", Label: "local response p50", Unit: "ms", Prec: 1, Get: func(c *ReportCard) float64 { return c.LocalResponseMs.P50 }},
	{Name: "local_response_p95_ms", Label: "local response p95", Unit: "ms", Prec: 1, Get: func(c *ReportCard) float64 { return c.LocalResponseMs.P95 }},
	{Name: "local_response_p99_ms", Label: "local response p99", Unit: "ms", Prec: 1, Get: func(c *ReportCard) float64 { return c.LocalResponseMs.P99 }},
	{Name: "server_input_delay_p50_ms", Label: "server input delay p50", Unit: "ms", Prec: 1, Get: func(c *ReportCard) float64 { return c.ServerInputDelayMs.P50 }, Server: true},
	{Name: "server_input_delay_p95_ms", Label: "server input delay p95", Unit: "ms", Prec: 1, Get: func(c *ReportCard) float64 { return c.ServerInputDelayMs.P95 }, Server: true},
	{Name: "server_input_delay_p99_ms", Label: "server input delay p99", Unit: "ms", Prec: 1, Get: func(c *ReportCard) float64 { return c.ServerInputDelayMs.P99 }, Server: true},
	{Name: "server_input_lost_share", Label: "inputs lost", Prec: 3, Get: func(c *ReportCard) float64 { return c.ServerInputLostShare }, Server: true},
	{Name: "server_input_overwritten_share", Label: "inputs overwritten", Prec: 3, Get: func(c *ReportCard) float64 { return c.ServerInputOverwrittenShare }, Server: true},
	{Name: "visible_lag_p50_ms", Label: "visible lag p50", Unit: "ms", Prec: 1, Get: func(c *ReportCard) float64 { return c.VisibleLagMs.P50 }},
	{Name: "visible_lag_p99_ms", Label: "visible lag p99", Unit: "ms", Prec: 1, Get: func(c *ReportCard) float64 { return c.VisibleLagMs.P99 }},
}

// Quantity is a value of the metric as a sentence states it: "+0.3 m/s",
// "0.012" for a share.
func (m CardMetric) Quantity(v string) string {
	if m.Unit == "" {
		return v
	}
	return v + " " + m.Unit
}
