package client

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

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
		int(c.MaxCatchup) >= len(MaxCatchupNames):
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
	SpeedMPS      float64 // MovedM ÷ Dt
	CorrectionM   float64 // largest reconciliation correction this frame
	Reconciled    int     // PlayerStates reconciled this frame
	FixedUpdates  int     // fixed updates run this frame
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
	corr      *Corrector
	input     motion.Input // sampled this frame
	cur       motion.Input // latest sent input (Attribute)
	hasCur    bool
	sentIn    [proto.MaxRedundancy]motion.Input // input sent at tick k, at k % MaxRedundancy
	earlier   [proto.MaxEarlier]motion.Input    // the inputs the last MoveInput repeats

	pending   []PredictedMoveStep
	baseline  motion.Pose
	ackTick   uint32
	predicted motion.Pose
	target    motion.Pose
	visible   motion.Pose

	serverTick uint32 // highest seen in PlayerStates
	offset     int

	inbox    []proto.PlayerState
	ackStart uint32
	acked    bool

	out   []Message
	stats FrameStats
	c     Counters
}

// New returns a client about to render frame 0 at local time 0. frames
// draws the frame jitter and may be nil when FrameJitter is 0.
func New(cfg Config, script Script, frames *rand.Rand) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.FrameJitter > 0 && frames == nil {
		return nil, fmt.Errorf("client.frame_jitter %v needs a random stream", cfg.FrameJitter)
	}
	c := &Client{
		cfg: cfg, script: script, frames: frames,
		nextFixed: sim.Time(cfg.FixedDT), fixedStep: cfg.FixedDT, dil: dilation{scale: 1},
		corr: NewCorrector(Corrector{Mode: cfg.Corrector, Band: cfg.Band,
			Base: cfg.SendInterval, Fast: cfg.IntervalFast, Slow: cfg.IntervalSlow}),
		pending: make([]PredictedMoveStep, 0, 64),
		inbox:   make([]proto.PlayerState, 0, 16),
		out:     make([]Message, 0, 4),
	}
	return c, nil
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
	if cfg.FPS != c.cfg.FPS && c.framed {
		c.frameBase, c.frameK = c.lastFrame, 1
	}
	if cfg.Corrector != Dilation {
		c.dil = dilation{scale: 1}
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
	return c.frameBase + sim.GridTime(c.frameK, int64(c.cfg.FPS)) + c.frameJitter
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
		c.nextFixed += sim.Time(c.fixedStep)
		n++
	}
	c.stats.FixedUpdates = n
	c.c.MaxFixedPerFrame = max(c.c.MaxFixedPerFrame, n)
	if c.cfg.FixedCost > 0 && n > 0 {
		if busy := now + sim.Time(time.Duration(n)*c.cfg.FixedCost); busy > c.NextFrame() {
			c.frameBase, c.frameK = busy, 0
		}
	}

	// Update: network, input, sender.
	if c.acked && !c.loggedIn {
		c.loggedIn, c.startTick = true, c.ackStart
	}
	if !c.loggedIn && now >= c.nextLogin {
		c.out = append(c.out, Message{Kind: MsgLogin})
		c.nextLogin = now + sim.Time(c.cfg.LoginRetry)
	}
	if c.loggedIn {
		for i := range c.inbox {
			c.reconcile(&c.inbox[i])
		}
	}
	c.inbox = c.inbox[:0]
	c.input = c.script.Input(now)
	if c.loggedIn {
		c.send(now)
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
	switch c.cfg.Predict {
	case Attribute:
		if !c.hasCur {
			c.c.UnitsDropped++
			return
		}
		c.predicted = motion.Step(c.predicted, c.cur, c.cfg.Cadence, c.cfg.Tuning)
		// The latest sent step is the last pending one unless it has been
		// acknowledged already; then the unit moves the tank but is
		// attributed to no step.
		if n := len(c.pending); n > 0 && c.pending[n-1].Tick == c.tick {
			c.pending[n-1].Duration += c.cfg.Cadence
		}
	case Consume:
		for i := range c.pending {
			s := &c.pending[i]
			if !s.Predicted {
				s.Predicted, s.Duration = true, c.cfg.Cadence
				c.predicted = motion.Step(c.predicted, s.Input, c.cfg.Cadence, c.cfg.Tuning)
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
	c.cur, c.hasCur = c.input, true
	c.pending = append(c.pending, PredictedMoveStep{Tick: c.tick, Input: c.input})
	c.sentIn[c.tick%proto.MaxRedundancy] = c.input
	c.out = append(c.out, Message{Kind: MsgMoveInput, Move: proto.MoveInput{Tick: c.tick, Input: c.input}})
	if r := c.cfg.Redundancy; r > 0 {
		c.repeatEarlier(&c.out[len(c.out)-1], r)
	}
}

// repeatEarlier adds to m, the MoveInput of the step just appended to
// pending, the earlier inputs client.redundancy r repeats, newest first:
// the last r sent (from the ring of the last proto.MaxRedundancy), or for
// RedundancyUnacked the pending steps before it (every unacknowledged
// input, ticks ack + 1 on), at most proto.MaxEarlier.
func (c *Client) repeatEarlier(m *Message, r Redundancy) {
	k := 0
	if r == RedundancyUnacked {
		for p := len(c.pending) - 2; p >= 0 && k < proto.MaxEarlier; p-- {
			c.earlier[k] = c.pending[p].Input
			k++
		}
	} else {
		for k < int(r) && uint32(k)+1 < c.tick {
			c.earlier[k] = c.sentIn[(c.tick-1-uint32(k))%proto.MaxRedundancy]
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
	pose := ReplayPending(c.baseline, c.pending, c.cfg.Replay, c.cfg.Cadence, c.cfg.Tuning)
	c.stats.CorrectionM = max(c.stats.CorrectionM, motion.Distance(c.predicted, pose))
	c.stats.Reconciled++
	c.predicted, c.target = pose, pose
	if motion.Distance(c.visible, c.predicted) > c.cfg.Snap {
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
		c.dil.update(ps.BufferDepth, target, c.cfg.DilationMax)
		c.corr.interval = c.dil.period(c.cfg.SendInterval)
		c.fixedStep = c.dil.period(c.cfg.FixedDT) // from the next fixed update on
	}
	if c.corr.interval != before {
		c.c.LatchFlips++
	}
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
	for i := range steps {
		s := &steps[i]
		if mode == Single {
			if s.Duration > 0 {
				base = motion.Step(base, s.Input, s.Duration, k)
			}
			continue
		}
		base = motion.Substeps(base, s.Input, s.Duration, cadence, k)
	}
	return base
}

// present moves the visible pose toward the target and measures the frame
// against drawn, the pose drawn in the previous frame (before any snap).
func (c *Client) present(drawn motion.Pose) {
	dt := c.stats.Dt.Seconds()
	switch c.cfg.Smoothing {
	case Lerp:
		a := c.cfg.Alpha
		c.visible.X += float64((c.target.X - c.visible.X) * a)
		c.visible.Y += float64((c.target.Y - c.visible.Y) * a)
		c.visible.Rot += float64(wrap180(c.target.Rot-c.visible.Rot) * a)
	case MoveTowards:
		step := c.cfg.Tuning.MoveSpeed * dt
		if d := motion.Distance(c.visible, c.target); d <= step {
			c.visible.X, c.visible.Y = c.target.X, c.target.Y
		} else {
			c.visible.X += (c.target.X - c.visible.X) * step / d
			c.visible.Y += (c.target.Y - c.visible.Y) * step / d
		}
		maxDeg := c.cfg.Tuning.TurnSpeed * dt
		dr := wrap180(c.target.Rot - c.visible.Rot)
		c.visible.Rot += min(max(dr, -maxDeg), maxDeg)
	}
	c.stats.VisibleErrM = motion.Distance(c.visible, c.predicted)
	c.stats.VisibleErrDeg = motion.AngleDiff(c.visible.Rot, c.predicted.Rot)
	c.stats.MovedM = motion.Distance(c.visible, drawn)
	if dt > 0 {
		c.stats.SpeedMPS = c.stats.MovedM / dt
	}
}

// wrap180 maps an angle difference into (−180, 180].
func wrap180(d float64) float64 {
	if d > -180 && d <= 180 {
		return d
	}
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
