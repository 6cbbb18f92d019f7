package client

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"jitterlab/detmath"
	"jitterlab/motion"
	"jitterlab/proto"
	"jitterlab/sim"
)

// Script is the player's hands: the controls at a local time. Calls come
// with non-decreasing times, once per render frame.
type Script interface {
	Input(local sim.Time) motion.Input
}

// Config is the client's settings; DefaultConfig is the reference client.
type Config struct {
	FPS         int           // render frames per second (60)
	FrameJitter time.Duration // seeded extra delay of each frame in [0, FrameJitter), < one frame
	FixedDT     time.Duration // fixed update period (20ms)
	Cadence     time.Duration // server step: prediction unit and replay substep (50ms)

	Sender     Sender
	Corrector  CorrectorMode
	Predict    Predict
	Replay     Replay
	Smoothing  Smoothing
	Redundancy Redundancy
	AlphaPer   AlphaPer    // what Alpha is the fraction of: a frame, or 1/60 s
	InputDelay InputDelay  // local input delay in ticks (0)
	Law        DilationLaw // the dilation corrector's constants

	SendInterval time.Duration // base send interval (50ms)
	IntervalFast time.Duration // corrector's faster interval (48ms)
	IntervalSlow time.Duration // corrector's slower interval (52ms)
	Band         int           // dead band half-width in ticks (2)

	Alpha  float64       // lerp factor per frame (0.15)
	Snap   float64       // snap threshold in metres (0.5)
	Tuning motion.Tuning // turn °/s and move m/s (180, 2)

	LoginRetry time.Duration // login resend period until acknowledged (500ms)

	// Frame cost and the death-spiral guard: the CPU time one fixed update
	// takes (0), and the most local time one frame may advance the game
	// clock (off; Unity's maximum allowed timestep).
	FixedCost  time.Duration
	MaxCatchup MaxCatchup

	// Time dilation (Corrector = Dilation): the largest fractional change
	// of the fixed-update and send rates (0.05), and the server's target
	// buffer depth in ticks (the lab copies server.buffer).
	DilationMax  float64
	BufferTarget int
}

// DefaultConfig is the first user's client (spec 000–004) before any fix
// other than the substep replay.
var DefaultConfig = Config{
	FPS: 60, FixedDT: 20 * time.Millisecond, Cadence: 50 * time.Millisecond,
	Sender: SenderFrame, Corrector: Deadband, Predict: Attribute, Replay: Substep, Smoothing: Lerp,
	SendInterval: 50 * time.Millisecond, IntervalFast: 48 * time.Millisecond, IntervalSlow: 52 * time.Millisecond, Band: 2,
	Alpha: 0.15, Snap: 0.5, Tuning: motion.DefaultTuning, LoginRetry: 500 * time.Millisecond,
	DilationMax: 0.05, BufferTarget: 2,
}

// Validate reports the first bad setting, naming its registry key.
func (c Config) Validate() error {
	period := time.Second / time.Duration(max(c.FPS, 1))
	switch {
	case c.FPS < 1 || c.FPS > 1000:
		return fmt.Errorf("client.fps %d: allowed 1..1000", c.FPS)
	case c.FrameJitter < 0 || c.FrameJitter >= period:
		return fmt.Errorf("client.frame_jitter %v: allowed 0 ≤ jitter < one frame (%v)", c.FrameJitter, period)
	case c.FixedDT <= 0:
		return fmt.Errorf("client.fixed_dt %v: allowed > 0", c.FixedDT)
	case c.Cadence <= 0:
		return fmt.Errorf("server.tick %v: allowed > 0", c.Cadence)
	case c.SendInterval <= 0 || c.IntervalFast <= 0 || c.IntervalSlow <= 0:
		return fmt.Errorf("client send intervals %v/%v/%v: allowed > 0", c.SendInterval, c.IntervalFast, c.IntervalSlow)
	case c.Band < 0:
		return fmt.Errorf("client.band %d: allowed ≥ 0", c.Band)
	case !(c.Alpha > 0 && c.Alpha <= 1):
		return fmt.Errorf("client.alpha %v: allowed (0, 1]", c.Alpha)
	case !(c.Snap > 0) || math.IsInf(c.Snap, 0):
		return fmt.Errorf("client.snap %v: allowed > 0 metres", c.Snap)
	case c.LoginRetry <= 0:
		return fmt.Errorf("client login retry %v: allowed > 0", c.LoginRetry)
	case !(c.DilationMax > 0 && c.DilationMax <= MaxDilation):
		return fmt.Errorf("client.dilation_max %v: allowed (0, %v]", c.DilationMax, MaxDilation)
	case c.FixedCost < 0:
		return fmt.Errorf("client.fixed_cost %v: allowed ≥ 0", c.FixedCost)
	case c.BufferTarget < 0:
		return fmt.Errorf("server.buffer %d: allowed ≥ 0", c.BufferTarget)
	case int(c.Sender) >= len(SenderNames), int(c.Corrector) >= len(CorrectorNames), int(c.Predict) >= len(PredictNames),
		int(c.Replay) >= len(ReplayNames), int(c.Smoothing) >= len(SmoothingNames), int(c.Redundancy) >= len(RedundancyNames),
		int(c.MaxCatchup) >= len(MaxCatchupNames), int(c.AlphaPer) >= len(AlphaPerNames),
		int(c.InputDelay) >= len(InputDelayNames), int(c.Law) >= len(DilationLawNames):
		return fmt.Errorf("client variant out of range")
	}
	return nil
}

// PredictedMoveStep is one sent input awaiting acknowledgement, with the
// simulated duration live prediction has spent on it.
type PredictedMoveStep struct {
	Tick      uint32
	Input     motion.Input
	Duration  time.Duration
	Predicted bool // Consume: a unit has predicted it
}

// MessageKind tells the client's outgoing messages apart.
type MessageKind uint8

const (
	MsgLogin MessageKind = iota + 1
	MsgMoveInput
)

// Message is one outgoing message.
type Message struct {
	Kind    MessageKind
	Move    proto.MoveInput
	Earlier proto.Earlier // the inputs Move repeats (client.redundancy), valid until the next frame
}

// FrameStats is what one render frame showed.
type FrameStats struct {
	Dt            time.Duration // local time since the previous frame
	VisibleErrM   float64       // |visible − predicted| after presentation
	VisibleErrDeg float64
	MovedM        float64 // visible distance moved this frame: from the pose drawn last frame, a snap's jump included
	CorrectionM   float64 // largest reconciliation correction this frame
	Reconciled    int     // PlayerStates reconciled this frame
	FixedUpdates  int     // fixed updates run this frame
}

// SpeedMPS is the visible speed over the frame, MovedM ÷ Dt (0 for the
// first frame). A method, not a field: a division per frame that nothing
// in the session reads.
func (s *FrameStats) SpeedMPS() float64 {
	if s.Dt <= 0 {
		return 0
	}
	return s.MovedM / sim.Seconds(s.Dt)
}

// Counters are the client's cumulative totals.
type Counters struct {
	Sent         uint64 // MoveInputs sent
	Snaps        uint64
	LatchFlips   uint64 // changes of the send interval
	StaleStates  uint64 // PlayerStates ignored as not newer than the last
	UnitsDropped uint64 // prediction units with nothing to predict
	// The death-spiral guard: the most fixed updates one frame ran, and the
	// game time max_catchup cut from long frames (the game clock's lag
	// behind local time).
	MaxFixedPerFrame int
	CatchupLost      time.Duration
	// Local time spent with the send interval below, at and above the base.
	TimeFast, TimeBase, TimeSlow time.Duration
}

// Client is the controlled client. The caller runs [Client.Frame] at each
// local time [Client.NextFrame], hands arriving messages to
// [Client.OnLoginAck] and [Client.OnPlayerState] (they are processed at the
// next frame, as a game polls its socket in Update), and sends
// [Client.Outbox] after each frame.
//
// A frame, in Unity's player-loop order: the fixed updates that have come
// due (each adds FixedDT to the prediction accumulator, which is spent in
// Cadence units); then Update: received messages (login, reconciliation),
// input sampling, the sender; then presentation.
type Client struct {
	cfg    Config
	script Script
	frames *rand.Rand // frame jitter stream

	frameBase   sim.Time // local time of frame 0 of the current fps grid
	frameK      int64    // index of the next frame in that grid
	grid        sim.Grid // the grid's instants, the next from the last by an addition
	frameJitter sim.Time // the next frame's jitter draw
	framed      bool     // a frame has run
	lastFrame   sim.Time
	nextFixed   sim.Time
	fixedStep   time.Duration // local time between fixed updates: FixedDT ÷ dilation
	dil         dilation
	accum       time.Duration

	loggedIn  bool
	nextLogin sim.Time
	startTick uint32
	tick      uint32 // client tick: MoveInputs sent
	lastSend  sim.Time
	sentOnce  bool
	corr      Corrector
	input     motion.Input // sampled this frame
	cur       motion.Input // the current tick's input (Attribute): the latest sent, or with input delay the one tagged for this tick
	hasCur    bool
	earlier   [proto.MaxEarlier]motion.Input // the inputs the last MoveInput repeats

	pending   []PredictedMoveStep
	baseline  motion.Pose
	ackTick   uint32
	predicted motion.Pose
	target    motion.Pose
	visible   motion.Pose

	// Smoothing = Predicted: the last prediction unit's motion, the offset
	// visible − interpolated prediction, and the game clock of the frame
	// with the time of its last fixed update.
	unitMove  motion.Pose
	errOffset motion.Pose
	game      sim.Time
	lastFixed sim.Time

	serverTick uint32 // highest seen in PlayerStates
	offset     int

	inbox    []proto.PlayerState
	ackStart uint32
	acked    bool

	out     []Message
	stats   FrameStats
	c       Counters
	heading motion.Heading // the live prediction's last heading
	replay  motion.Heading // the last replay's

	// keep's memory, after the fields every frame touches: only the
	// smoothings that scale by the frame's length read it.
	keeps    [2]keepMemo // keep's last two answers
	keepNext int         // the one the next new answer replaces
	keepLog  keepMemo    // Log(1 − alpha) for the alpha in force

	// The rings, last: cold beside the fields every frame touches.
	byTag  [InputDelayRing]motion.Input // input sent tagged k, at k % InputDelayRing
	sentAt [sentRing]sim.Time           // game time of the send tagged k, at k % sentRing (LawUnity)
}

// New returns a client about to render frame 0 at local time 0. frames
// draws the frame jitter and may be nil when FrameJitter is 0.
func New(cfg Config, script Script, frames *rand.Rand) (*Client, error) {
	c := new(Client)
	if err := c.Reset(cfg, script, frames); err != nil {
		return nil, err
	}
	return c, nil
}

// Reset makes c the client New(cfg, script, frames) returns, keeping the
// memory of its queues (a worker running many sessions reuses one client).
// After an error c must be Reset again before use.
func (c *Client) Reset(cfg Config, script Script, frames *rand.Rand) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.FrameJitter > 0 && frames == nil {
		return fmt.Errorf("client.frame_jitter %v needs a random stream", cfg.FrameJitter)
	}
	pending, inbox, out := c.pending[:0], c.inbox[:0], c.out[:0]
	if pending == nil {
		pending, inbox, out = make([]PredictedMoveStep, 0, 64), make([]proto.PlayerState, 0, 16), make([]Message, 0, 4)
	}
	*c = Client{
		cfg: cfg, script: script, frames: frames,
		nextFixed: sim.Time(cfg.FixedDT), fixedStep: cfg.FixedDT, dil: dilation{scale: 1},
		corr: *NewCorrector(Corrector{Mode: cfg.Corrector, Band: cfg.Band,
			Base: cfg.SendInterval, Fast: cfg.IntervalFast, Slow: cfg.IntervalSlow}),
		pending: pending, inbox: inbox, out: out,
	}
	return nil
}

// SetConfig changes settings live. A new FPS starts a new frame grid at the
// last frame; a new FixedDT applies from the next fixed update on; corrector
// settings keep the interval in force until the next offset.
func (c *Client) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.FrameJitter > 0 && c.frames == nil {
		return fmt.Errorf("client.frame_jitter %v needs a random stream", cfg.FrameJitter)
	}
	if cfg.InputDelay != c.cfg.InputDelay && c.sentOnce {
		return fmt.Errorf("client.input_delay %v: fixed once the client has sent (was %v)", InputDelayNames[cfg.InputDelay], InputDelayNames[c.cfg.InputDelay])
	}
	if cfg.FPS != c.cfg.FPS && c.framed {
		c.frameBase, c.frameK = c.lastFrame, 1
	}
	if cfg.Corrector != Dilation {
		c.dil = dilation{scale: 1}
	}
	if cfg.Smoothing == Predicted && c.cfg.Smoothing != Predicted {
		// The visible pose stays where it is: the offset holds the gap.
		in := c.interpolated()
		c.errOffset = motion.Pose{X: c.visible.X - in.X, Y: c.visible.Y - in.Y, Rot: wrap180(c.visible.Rot - in.Rot)}
	}
	step := c.dil.period(cfg.FixedDT)
	if step != c.fixedStep {
		c.nextFixed = c.nextFixed - sim.Time(c.fixedStep) + sim.Time(step)
		c.fixedStep = step
	}
	iv := c.corr.interval
	c.corr.Mode, c.corr.Band, c.corr.Base, c.corr.Fast, c.corr.Slow = cfg.Corrector, cfg.Band, cfg.SendInterval, cfg.IntervalFast, cfg.IntervalSlow
	c.corr.interval = iv
	switch cfg.Corrector {
	case Off:
		c.corr.interval = cfg.SendInterval
	case Dilation:
		c.corr.interval = c.dil.period(cfg.SendInterval)
	}
	if c.cfg.Corrector == Dilation && cfg.Corrector != Dilation {
		c.corr.interval = cfg.SendInterval
	}
	c.cfg = cfg
	return nil
}

// Config returns the settings in force.
func (c *Client) Config() Config { return c.cfg }

// NextFrame is the local time of the next render frame: k·1s/fps exactly,
// plus the frame's jitter draw.
func (c *Client) NextFrame() sim.Time {
	return c.frameBase + c.grid.Time(c.frameK, int64(c.cfg.FPS)) + c.frameJitter
}

// OnLoginAck queues the login answer carrying the server's start tick.
func (c *Client) OnLoginAck(startTick uint32) {
	if !c.acked {
		c.acked, c.ackStart = true, startTick
	}
}

// OnPlayerState queues an arriving PlayerState for the next frame.
func (c *Client) OnPlayerState(ps proto.PlayerState) { c.inbox = append(c.inbox, ps) }

// Outbox is what the last frame sent, valid until the next frame.
func (c *Client) Outbox() []Message { return c.out }

// Frame runs the render frame due at local time now (= NextFrame()).
func (c *Client) Frame(now sim.Time) {
	drawn := c.visible // the pose drawn last frame: a snap below moves it too
	c.out = c.out[:0]
	c.stats = FrameStats{}
	if c.framed {
		c.stats.Dt = now.Sub(c.lastFrame)
	}
	c.accountInterval(c.stats.Dt)
	c.lastFrame, c.framed = now, true
	c.frameK++
	c.frameJitter = 0
	if c.cfg.FrameJitter > 0 {
		c.frameJitter = sim.Time(c.frames.Int64N(int64(c.cfg.FrameJitter)))
	}

	// Fixed updates run up to the game clock: local time less what
	// max_catchup has cut from long frames (Unity's maximum allowed
	// timestep); each costs FixedCost of CPU time, which delays the next
	// frame (the death spiral when FixedCost > FixedDT).
	game := now
	if c.cfg.MaxCatchup != CatchupOff {
		if m := c.cfg.MaxCatchup.Duration(); c.stats.Dt > m {
			c.c.CatchupLost += c.stats.Dt - m
		}
		game -= sim.Time(c.c.CatchupLost)
	}
	n := 0
	for c.nextFixed <= game {
		c.fixedUpdate()
		c.lastFixed = c.nextFixed
		c.nextFixed += sim.Time(c.fixedStep)
		n++
	}
	c.game = game
	c.stats.FixedUpdates = n
	c.c.MaxFixedPerFrame = max(c.c.MaxFixedPerFrame, n)
	if c.cfg.FixedCost > 0 && n > 0 {
		if busy := now + sim.Time(time.Duration(n)*c.cfg.FixedCost); busy > c.NextFrame() {
			c.frameBase, c.frameK = busy, 0
		}
	}

	// Update: network, input, sender. Update's clock is the game clock
	// (Unity's Time.time, which maximumDeltaTime caps as it caps the fixed
	// updates); the player's hands sample local time.
	if c.acked && !c.loggedIn {
		c.loggedIn, c.startTick = true, c.ackStart
	}
	if !c.loggedIn && game >= c.nextLogin {
		c.out = append(c.out, Message{Kind: MsgLogin})
		c.nextLogin = game + sim.Time(c.cfg.LoginRetry)
	}
	if c.loggedIn {
		for i := range c.inbox {
			c.reconcile(&c.inbox[i])
		}
	}
	c.inbox = c.inbox[:0]
	c.input = c.script.Input(now)
	if c.loggedIn {
		c.send(game)
	}

	c.present(drawn)
}

func (c *Client) accountInterval(dt time.Duration) {
	switch iv := c.corr.interval; {
	case iv < c.cfg.SendInterval:
		c.c.TimeFast += dt
	case iv > c.cfg.SendInterval:
		c.c.TimeSlow += dt
	default:
		c.c.TimeBase += dt
	}
}

// fixedUpdate adds one fixed step to the prediction accumulator and spends
// it in whole Cadence units.
func (c *Client) fixedUpdate() {
	c.accum += c.cfg.FixedDT
	for c.accum >= c.cfg.Cadence {
		c.accum -= c.cfg.Cadence
		c.predictUnit()
	}
}

// predictUnit integrates one Cadence unit of live prediction.
func (c *Client) predictUnit() {
	before := c.predicted
	c.predictStep()
	c.unitMove = motion.Pose{X: c.predicted.X - before.X, Y: c.predicted.Y - before.Y, Rot: c.predicted.Rot - before.Rot}
}

// predictStep is one unit of the prediction variant in force.
func (c *Client) predictStep() {
	switch c.cfg.Predict {
	case Attribute:
		if !c.hasCur {
			c.c.UnitsDropped++
			return
		}
		c.predicted = c.heading.Step(c.predicted, c.cur, c.cfg.Cadence, c.cfg.Tuning)
		// The current tick's step is the last pending one (with input
		// delay N, N before the last) unless it has been acknowledged
		// already; then the unit moves the tank but is attributed to no
		// step.
		if i := len(c.pending) - 1 - int(c.cfg.InputDelay); i >= 0 && c.pending[i].Tick == c.tick {
			c.pending[i].Duration += c.cfg.Cadence
		}
	case Consume:
		for i := range c.pending {
			s := &c.pending[i]
			if s.Tick > c.tick {
				break // tagged for a later tick (input delay)
			}
			if !s.Predicted {
				s.Predicted, s.Duration = true, c.cfg.Cadence
				c.predicted = c.heading.Step(c.predicted, s.Input, c.cfg.Cadence, c.cfg.Tuning)
				return
			}
		}
		c.c.UnitsDropped++
	}
}

// send runs the sender for this frame.
func (c *Client) send(now sim.Time) {
	iv := sim.Time(c.corr.interval)
	switch c.cfg.Sender {
	case SenderFrame:
		if c.sentOnce && now-c.lastSend <= iv {
			return
		}
		c.lastSend = now
	case SenderAccumulator:
		if !c.sentOnce {
			c.lastSend = now
		} else if now-c.lastSend >= iv {
			c.lastSend += iv
		} else {
			return
		}
	}
	c.sentOnce = true
	c.tick++
	c.c.Sent++
	// Input delay N: the input goes out now tagged N ticks ahead; the
	// current tick's input is the one sent N ticks ago (none for the
	// first N ticks).
	tag := c.tick + uint32(c.cfg.InputDelay)
	c.byTag[tag%InputDelayRing] = c.input
	c.sentAt[tag%sentRing] = c.lastSend
	c.cur, c.hasCur = c.byTag[c.tick%InputDelayRing], true
	// Appended zeroed, then set field by field: a composite literal is
	// built on the stack and copied in 16-byte loads that span its 8-byte
	// stores, which the CPU cannot forward (a stall each).
	c.pending = append(c.pending, PredictedMoveStep{})
	p := &c.pending[len(c.pending)-1]
	p.Tick, p.Input = tag, c.input
	c.out = append(c.out, Message{})
	m := &c.out[len(c.out)-1]
	m.Kind, m.Move.Tick, m.Move.Input = MsgMoveInput, tag, c.input
	if r := c.cfg.Redundancy; r > 0 {
		c.repeatEarlier(&c.out[len(c.out)-1], r, tag)
	}
}

// repeatEarlier adds to m, the MoveInput of the step just appended to
// pending, the earlier inputs client.redundancy r repeats, newest first:
// the last r sent (tagged tag−1, tag−2, …, from the ring of inputs by
// tag), or for RedundancyUnacked the pending steps before it (every
// unacknowledged input, ticks ack + 1 on), at most proto.MaxEarlier.
func (c *Client) repeatEarlier(m *Message, r Redundancy, tag uint32) {
	k := 0
	if r == RedundancyUnacked {
		for p := len(c.pending) - 2; p >= 0 && k < proto.MaxEarlier; p-- {
			c.earlier[k] = c.pending[p].Input
			k++
		}
	} else {
		for k < int(r) && uint32(k)+1 < tag {
			c.earlier[k] = c.byTag[(tag-1-uint32(k))%InputDelayRing]
			k++
		}
	}
	m.Move.Redundant = uint8(k)
	m.Earlier = c.earlier[:k]
}

// reconcile applies one PlayerState (spec 000–002): a state not newer than
// the last accepted one is ignored; otherwise its pose and ack tick become
// the baseline, steps with tick ≤ ack are pruned, the rest are replayed from
// the baseline without being removed, and the result is the new predicted
// pose and presentation target. Past the snap threshold the visible pose
// snaps to it. Then the tick offset updates the send interval.
func (c *Client) reconcile(ps *proto.PlayerState) {
	if ps.ServerTick <= c.serverTick {
		c.c.StaleStates++
		return
	}
	c.serverTick = ps.ServerTick
	c.baseline, c.ackTick = ps.Pose, ps.AckTick
	c.prune(ps.AckTick)
	pose := replayPending(&c.replay, c.baseline, c.pending, c.cfg.Replay, c.cfg.Cadence, c.cfg.Tuning)
	c.stats.CorrectionM = max(c.stats.CorrectionM, motion.Distance(c.predicted, pose))
	c.stats.Reconciled++
	if c.cfg.Smoothing == Predicted {
		c.absorbCorrection(pose)
	}
	c.predicted, c.target = pose, pose
	if c.cfg.Smoothing == Predicted {
		if math.Sqrt(float64(c.errOffset.X*c.errOffset.X)+float64(c.errOffset.Y*c.errOffset.Y)) > c.cfg.Snap {
			c.errOffset = motion.Pose{}
			c.c.Snaps++
		}
	} else if motion.Distance(c.visible, c.predicted) > c.cfg.Snap {
		c.visible = c.predicted
		c.c.Snaps++
	}
	c.offset = int(c.serverTick) - int(c.tick) - int(c.startTick)
	before := c.corr.interval
	c.corr.Update(c.offset)
	if c.cfg.Corrector == Dilation && ps.HasDepth {
		target := c.cfg.BufferTarget
		if ps.HasTarget { // server.buffer_mode = auto
			target = int(ps.BufferTarget)
		}
		if c.cfg.Law == LawUnity {
			c.dil.updateUnity(ps.BufferDepth, target, c.inflight(ps.AckTick+uint32(max(ps.BufferDepth, 0))))
		} else {
			c.dil.update(ps.BufferDepth, target, c.cfg.DilationMax)
		}
		c.corr.interval = c.dil.period(c.cfg.SendInterval)
		c.fixedStep = c.dil.period(c.cfg.FixedDT) // from the next fixed update on
	}
	if c.corr.interval != before {
		c.c.LatchFlips++
	}
}

// sentRing is how many ticks of send times the client keeps: a round trip
// of up to 64 ticks (3.2 s at 20 Hz), as Unity keeps 64 slots of
// adjustments.
const sentRing = 64

// inflight is the ticks sent beyond the base send rate since the input
// tagged newest was sent: the depth a report shows lacks them (Unity's
// commandAgeAdjustment over the last round trip). 0 when newest is not
// among the last sentRing sends.
func (c *Client) inflight(newest uint32) float64 {
	last := c.tick + uint32(c.cfg.InputDelay)
	if newest > last || last-newest >= sentRing || newest == 0 {
		return 0
	}
	elapsed := c.lastSend.Sub(c.sentAt[newest%sentRing])
	return float64(last-newest) - float64(elapsed)/float64(c.cfg.SendInterval)
}

// absorbCorrection takes the correction pose − predicted out of the
// offset, so the visible pose does not move at the correction (Smoothing
// = Predicted): the interpolation moves with the prediction.
func (c *Client) absorbCorrection(pose motion.Pose) {
	dx, dy, dr := pose.X-c.predicted.X, pose.Y-c.predicted.Y, pose.Rot-c.predicted.Rot
	c.errOffset.X -= dx
	c.errOffset.Y -= dy
	c.errOffset.Rot = wrap180(c.errOffset.Rot - dr)
}

// prune removes the pending steps with tick ≤ ack.
func (c *Client) prune(ack uint32) {
	k := 0
	for k < len(c.pending) && c.pending[k].Tick <= ack {
		k++
	}
	if k > 0 {
		n := copy(c.pending, c.pending[k:])
		c.pending = c.pending[:n]
	}
}

// ReplayPending integrates steps from base in order and returns the pose.
// Substep integrates each step in min(remaining, cadence) substeps (the
// fix); Single integrates each step's whole duration at once (the pre-fix
// bug). It never modifies steps.
func ReplayPending(base motion.Pose, steps []PredictedMoveStep, mode Replay, cadence time.Duration, k motion.Tuning) motion.Pose {
	var h motion.Heading
	return replayPending(&h, base, steps, mode, cadence, k)
}

// replayPending is ReplayPending through h: steps that do not turn share
// their heading's sine and cosine, and a replay that starts at the
// heading and step length the last one used does not compute them again
// (a Heading gives Step's bits whatever it remembers).
func replayPending(h *motion.Heading, base motion.Pose, steps []PredictedMoveStep, mode Replay, cadence time.Duration, k motion.Tuning) motion.Pose {
	for i := range steps {
		s := &steps[i]
		if mode == Single {
			if s.Duration > 0 {
				base = h.Step(base, s.Input, s.Duration, k)
			}
			continue
		}
		base = h.Substeps(base, s.Input, s.Duration, cadence, k)
	}
	return base
}

// present moves the visible pose toward the target and measures the frame
// against drawn, the pose drawn in the previous frame (before any snap).
func (c *Client) present(drawn motion.Pose) {
	// The frame in seconds (sim.Seconds: Dt.Seconds()'s bits without its
	// split) is computed where a smoothing reads it: the reference lerp,
	// alpha per frame, does without the division.
	switch c.cfg.Smoothing {
	case Lerp:
		a := c.cfg.Alpha
		if c.cfg.AlphaPer == Per60Hz {
			a = 1 - c.keep(sim.Seconds(c.stats.Dt))
		}
		c.visible.X += float64((c.target.X - c.visible.X) * a)
		c.visible.Y += float64((c.target.Y - c.visible.Y) * a)
		c.visible.Rot += float64(wrap180(c.target.Rot-c.visible.Rot) * a)
	case MoveTowards:
		// The speed of the current input, as the user's code passes it
		// to MoveTowards: standing still, the visible pose stays.
		dt := sim.Seconds(c.stats.Dt)
		step := math.Abs(c.input.Throttle) * c.cfg.Tuning.MoveSpeed * dt
		if d := motion.Distance(c.visible, c.target); d <= step {
			c.visible.X, c.visible.Y = c.target.X, c.target.Y
		} else {
			c.visible.X += (c.target.X - c.visible.X) * step / d
			c.visible.Y += (c.target.Y - c.visible.Y) * step / d
		}
		maxDeg := c.cfg.Tuning.TurnSpeed * dt
		dr := wrap180(c.target.Rot - c.visible.Rot)
		c.visible.Rot += min(max(dr, -maxDeg), maxDeg)
	case Predicted:
		k := c.keep(sim.Seconds(c.stats.Dt))
		c.errOffset.X *= k
		c.errOffset.Y *= k
		c.errOffset.Rot *= k
		c.visible = c.interpolated()
		c.visible.X += c.errOffset.X
		c.visible.Y += c.errOffset.Y
		c.visible.Rot += c.errOffset.Rot
	}
	c.stats.VisibleErrM = VisibleError(c.visible, c.predicted)
	c.stats.VisibleErrDeg = motion.AngleDiff(c.visible.Rot, c.predicted.Rot)
	c.stats.MovedM = motion.Distance(c.visible, drawn)
}

// keep is the share of an error smoothing leaves after dt seconds when
// alpha is the share it removes per 1/60 s: (1 − α)^(60·dt) = exp(−dt/τ).
func (c *Client) keep(dt float64) float64 {
	switch {
	case dt <= 0:
		return 1
	case c.cfg.Alpha >= 1:
		return 0
	}
	// Frames mostly last one of two lengths (60 fps: 16666667 ns twice,
	// then 16666666): the last two answers are kept, each for its dt and
	// alpha, and Log(1 − alpha) for its alpha (the same bits, without Exp
	// and Log again; a jittered frame still costs an Exp).
	a := c.cfg.Alpha
	for i := range c.keeps {
		if k := &c.keeps[i]; k.ok && k.dt == dt && k.alpha == a {
			return k.keep
		}
	}
	if l := &c.keepLog; !l.ok || l.alpha != a {
		*l = keepMemo{alpha: a, keep: detmath.Log(1 - a), ok: true}
	}
	k := &c.keeps[c.keepNext]
	c.keepNext ^= 1
	*k = keepMemo{dt: dt, alpha: a, keep: detmath.Exp(float64(60*dt) * c.keepLog.keep), ok: true}
	return k.keep
}

// keepMemo is one of keep's answers: keep for dt at alpha (for keepLog,
// Log(1 − alpha)).
type keepMemo struct {
	dt, alpha, keep float64
	ok              bool
}

// SmoothingTau is the time constant τ of a smoothing that removes the share
// alpha of an error per 1/60 s: exp(−(1/60 s)/τ) = 1 − alpha (102.6 ms at
// alpha 0.15).
func SmoothingTau(alpha float64) time.Duration {
	if alpha >= 1 {
		return 0
	}
	return time.Duration(float64(time.Second) / (-60 * detmath.Log(1-alpha)))
}

// interpolated is the predicted pose one unit back along the last
// prediction unit's motion, moved forward by the share f of a unit the
// game clock has simulated since: the time in the accumulator plus the
// part of the fixed step since the last fixed update, over the cadence.
// The accumulator spends units only at fixed updates, so f runs up to
// (cadence + fixed_dt)/cadence: the last FixedDT extrapolates along the
// unit, which keeps the visible speed constant at constant input.
func (c *Client) interpolated() motion.Pose {
	since := float64(c.game-c.lastFixed) / float64(c.fixedStep)
	sim := float64(c.accum) + float64(min(max(since, 0), 1)*float64(c.cfg.FixedDT))
	back := sim/float64(c.cfg.Cadence) - 1
	b, d := c.predicted, c.unitMove
	return motion.Pose{
		X:   b.X + float64(d.X*back),
		Y:   b.Y + float64(d.Y*back),
		Rot: b.Rot + float64(d.Rot*back),
	}
}

// VisibleError is the visible error: how far the pose drawn is from the
// predicted one, |visible − predicted|, the distance of their positions in
// metres (the headings' difference is Stats.VisibleErrDeg). The lab's
// charts and report card take it from the model's frames, the proxy's
// screen from the game's (lab proxy --telemetry).
func VisibleError(visible, predicted motion.Pose) float64 {
	return motion.Distance(visible, predicted)
}

// wrap180 maps an angle difference into (−180, 180].
func wrap180(d float64) float64 {
	if d > -180 && d <= 180 {
		return d
	}
	return wrap180Far(d)
}

// wrap180Far is wrap180 outside (−180, 180], out of it so that wrap180
// inlines.
func wrap180Far(d float64) float64 {
	d = math.Mod(d, 360)
	if d > 180 {
		d -= 360
	} else if d <= -180 {
		d += 360
	}
	return d
}

// Stats is what the last frame showed.
func (c *Client) Stats() FrameStats { return c.stats }

// StatsRef is Stats in place, valid until the next Frame: a copy of the
// fields Frame has just stored stalls on store forwarding, once a frame.
func (c *Client) StatsRef() *FrameStats { return &c.stats }

// Counters returns the cumulative totals.
func (c *Client) Counters() Counters { return c.c }

// Snaps is Counters().Snaps without copying the counters (read every frame).
func (c *Client) Snaps() uint64 { return c.c.Snaps }

// Accessors for the lab's samples and for tests.
func (c *Client) LoggedIn() bool                  { return c.loggedIn }
func (c *Client) Tick() uint32                    { return c.tick }
func (c *Client) ServerTick() uint32              { return c.serverTick }
func (c *Client) AckTick() uint32                 { return c.ackTick }
func (c *Client) Offset() int                     { return c.offset }
func (c *Client) SendInterval() time.Duration     { return c.corr.interval }
func (c *Client) Dilation() float64               { return c.dil.scale }
func (c *Client) Pending() []PredictedMoveStep    { return c.pending }
func (c *Client) Predicted() motion.Pose          { return c.predicted }
func (c *Client) Target() motion.Pose             { return c.target }
func (c *Client) Visible() motion.Pose            { return c.visible }
func (c *Client) Baseline() (motion.Pose, uint32) { return c.baseline, c.ackTick }
func (c *Client) LastFrame() sim.Time             { return c.lastFrame }

// ScriptFunc adapts a function to a Script.
type ScriptFunc func(local sim.Time) motion.Input

// Input calls f.
func (f ScriptFunc) Input(local sim.Time) motion.Input { return f(local) }

// SetScript replaces the input script from the next frame on.
func (c *Client) SetScript(s Script) { c.script = s }

// Input is the controls sampled at the last frame.
func (c *Client) Input() motion.Input { return c.input }
