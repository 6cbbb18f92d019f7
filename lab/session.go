package lab

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"jitterlab/client"
	"jitterlab/metrics"
	"jitterlab/netem"
	"jitterlab/observer"
	"jitterlab/proto"
	"jitterlab/scenarios"
	"jitterlab/server"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// Events. A delivery is due at each copy a link holds in flight: the
// links order their copies by sequence numbers drawn from the session's
// sim.Order (netem.Link.ShareOrder), so the loop takes them from the
// links' own queues. Periodic wake-ups (frames, server steps, samples,
// clock wander) are sim.Timers drawn from the same Order: every event
// has its (time, sequence) key, and the earliest runs first. Parameter
// changes are not events: a change at time T applies after every event
// at T and before any later one, whether it was scheduled in advance (a
// timeline, a re-simulation) or made live at T (the TUI), so both give
// the same run.

// timers, in the order Run checks them (order only matters for equal keys,
// which cannot happen: every key has its own sequence number).
const (
	tFrame = iota
	tServer
	tSample
	tWander
	nTimers
)

// wire is a message in flight; links carry its index as the packet ID.
type wire struct {
	kind   uint8 // wireLogin, wireLoginAck, wireMove, wireState
	refs   uint8 // copies still scheduled
	move   proto.MoveInput
	state  proto.PlayerState
	start  uint32
	sentAt sim.Time
	// Downlink messages: the one-way delay of the latest uplink packet
	// sent before this one (its first copy to arrive), for its round trip.
	upDelay time.Duration
	hasUp   bool
}

const (
	wireLogin uint8 = iota + 1
	wireLoginAck
	wireMove
	wireState
)

var wireNames = [...]string{"", "login", "login_ack", "move_input", "player_state"}

// Change is one parameter change applied at a true time.
type Change struct {
	At         sim.Time
	Key, Value string
}

// PacketRecord is one row of the per-packet log: a copy delivered, or a
// packet (copy) lost or dropped at the queue.
type PacketRecord struct {
	Dir       string // "up" or "down"
	Seq       uint64
	Kind      string
	SentAt    sim.Time
	Status    string   // delivered, lost, queue_dropped
	At        sim.Time // arrival (delivered only)
	Copy      int      // 1 for the duplicate
	Reordered bool
}

// SendRecord is one message put on a link, with what the link decided
// for each copy: Fate[1] is the duplicate's (netem.FateNone when there is
// none), At the arrival time of each scheduled copy.
type SendRecord struct {
	Dir    string // "up" or "down"
	Seq    uint64
	Kind   string
	Size   int // bytes on the simulated wire, without UDP/IP
	SentAt sim.Time
	Fate   [2]netem.Fate
	At     [2]sim.Time
}

// Session is one simulated game: server, client and two links, driven by
// one event queue in true time. Everything is a deterministic function of
// the Config and the changes scheduled; it reads no wall clock.
type Session struct {
	cfg Config

	// dropped are the timeline changes overrides pinned (ScheduleTimeline).
	dropped []string

	order sim.Order // draws every event's sequence number
	now   sim.Time

	up, down       *netem.Link
	cl             *client.Client
	sv             *server.Server
	cClock, sClock *sim.Clock
	cWander        *rand.Rand
	sWander        *rand.Rand
	streams        *[nStreams]stream // the random streams' memory, kept by Reset
	timers         [nTimers]sim.Timer
	firstTimer     int  // the armed timer with the earliest key, -1 if none (valid unless timersMoved)
	timersMoved    bool // a timer was armed or disarmed since firstTimer was found
	nextFrameLocal sim.Time

	msgs    []wire
	free    []int32
	earlier []proto.Earlier // by message ID: the inputs a MoveInput repeats (client.redundancy)

	serverKnowsClient bool
	// step is the message of the server's latest step: StepInto writes its
	// state in place, and send copies it after the link's work.
	step wire

	pending []Change // scheduled, not yet applied, by time (stable)
	applied []Change
	err     error

	every time.Duration // the sample period
	// m measures the run: the samples, the Summary and its report card
	// (see meter). The loop calls it where it measures.
	m *meter

	// OnSample, if set, receives every sample (valid during the call).
	OnSample func(*metrics.Sample)
	// OnPacket, if set, receives every per-packet record.
	OnPacket func(*PacketRecord)
	// OnSend, if set, receives every message as it is sent (before the
	// OnPacket records of its copies).
	OnSend func(*SendRecord)
	// OnChange, if set, receives every parameter change as it applies.
	OnChange func(Change)
	// OnFrame, if set, receives every client frame as the game's
	// telemetry reports it ([TelemetryFrame]; valid during the call).
	OnFrame func(*telemetry.Frame)

	initial Config // the configuration the session started with

	// What the run depends on beyond initial (Setup): the scenario whose
	// timeline ScheduleTimeline scheduled, and the changes Schedule was
	// given, in order.
	scenario *scenarios.Scenario
	live     []Change

	vw *observer.Viewer // the remote player's view
}

// stream is a named random stream of a session's seed, reseeded in place
// by Reset.
type stream struct {
	pcg  rand.PCG
	rand *rand.Rand // draws from pcg
}

// The session's streams kept across Reset.
const (
	sClientClock = iota
	sServerClock
	sClientFrames
	nStreams
)

// reset sets st to the start of the stream NewRand(seed, name) and returns
// it.
func (st *stream) reset(seed uint64, name string) *rand.Rand {
	sim.Seed(&st.pcg, seed, name, "")
	if st.rand == nil {
		st.rand = rand.New(&st.pcg)
	}
	return st.rand
}

// New builds a session from cfg; every component's randomness is a named
// stream of cfg.Seed. every is the sample period (0 means 50ms; see
// CheckEvery for the range).
func New(cfg Config, every time.Duration) (*Session, error) {
	s := new(Session)
	if err := s.Reset(cfg, every); err != nil {
		return nil, err
	}
	return s, nil
}

// Reset makes s the session New(cfg, every) returns, reusing its memory:
// the event queue, the message table, the input-delay ring, the links
// (see [netem.Link.Reset]), the meter with its histograms (see
// [metrics.Histogram.Reset]) and report card, the client, the server, the viewer and the
// random streams. A worker that runs many
// sessions one after another resets one instead of allocating each. Every
// callback is cleared; slices s returned before (Changes, the Summary's)
// are not reused. The zero Session may be Reset. After an error s must be
// Reset again before use.
func (s *Session) Reset(cfg Config, every time.Duration) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if every == 0 {
		every = 50 * time.Millisecond
	}
	if err := CheckEvery(every); err != nil {
		return err
	}
	// Kept, emptied; everything else starts from its zero value, as in New.
	msgs, free, earlier, pending := s.msgs[:0], s.free[:0], s.earlier[:0], s.pending[:0]
	up, down, m, cl, sv, vw, streams := s.up, s.down, s.m, s.cl, s.sv, s.vw, s.streams
	if up == nil {
		up, down = new(netem.Link), new(netem.Link)
		m, cl, sv, vw, streams = new(meter), new(client.Client), new(server.Server), new(observer.Viewer), new([nStreams]stream)
	}
	m.reset(every)
	if msgs == nil {
		msgs, free = make([]wire, 0, 256), make([]int32, 0, 256)
	}
	*s = Session{cfg: cfg, initial: cfg, every: every, msgs: msgs, free: free, earlier: earlier, pending: pending, up: up, down: down,
		m: m, cl: cl, sv: sv, vw: vw, streams: streams,
		cWander: streams[sClientClock].reset(cfg.Seed, "client.clock"), sWander: streams[sServerClock].reset(cfg.Seed, "server.clock"),
	}
	if err := s.up.Reset(cfg.Seed, "up", cfg.Up); err != nil {
		return err
	}
	if err := s.down.Reset(cfg.Seed, "down", cfg.Down); err != nil {
		return err
	}
	s.up.ShareOrder(&s.order)
	s.down.ShareOrder(&s.order)
	var err error
	start := cfg.ClientStart
	if start == StartFromSeed {
		start = SeedStart(cfg.Seed)
	}
	// The client's local clock reads 0 at true time start.
	if s.cClock, err = sim.NewClock(-start, cfg.ClientDriftPPM); err != nil {
		return fmt.Errorf("client.drift_ppm: %w", err)
	}
	if s.sClock, err = sim.NewClock(0, cfg.ServerDriftPPM); err != nil {
		return fmt.Errorf("server.drift_ppm: %w", err)
	}
	script, err := cfg.newScript()
	if err != nil {
		return err
	}
	if err := s.cl.Reset(cfg.clientConfig(), script, streams[sClientFrames].reset(cfg.Seed, "client.frames")); err != nil {
		return err
	}
	if err := s.sv.Reset(cfg.serverConfig()); err != nil {
		return err
	}
	if err := s.vw.Reset(cfg.viewConfig()); err != nil {
		return err
	}
	s.timers = [nTimers]sim.Timer{disarmed, disarmed, disarmed, disarmed}
	s.scheduleFrame()
	s.scheduleServer()
	s.arm(tSample, sim.Time(every))
	s.arm(tWander, sim.Time(time.Second))
	return nil
}

// Config returns the settings in force.
func (s *Session) Config() Config { return s.cfg }

// Initial returns the settings the session started with.
func (s *Session) Initial() Config { return s.initial }

// Every is the sample period.
func (s *Session) Every() time.Duration { return s.every }

// Now is the session's true time.
func (s *Session) Now() sim.Time { return s.now }

// Changes is the log of parameter changes applied so far.
func (s *Session) Changes() []Change { return s.applied }

// Schedule queues key=value to be applied at true time at (≥ now). The key
// and value are checked now; whether the whole configuration is valid is
// checked when the change applies (earlier changes may make it so), and a
// change that fails then stops the run with its error.
func (s *Session) Schedule(at sim.Time, key, value string) error {
	if err := s.schedule(at, key, value); err != nil {
		return err
	}
	s.live = append(s.live, Change{At: at, Key: key, Value: value})
	return nil
}

// schedule is Schedule without noting the change in the session's Setup.
func (s *Session) schedule(at sim.Time, key, value string) error {
	if at < s.now {
		return fmt.Errorf("change %s=%s at %v is in the past (now %v)", key, value, at, s.now)
	}
	p, ok := Lookup(key)
	if !ok {
		return &UnknownKeyError{Key: key, Similar: similarKeys(key)}
	}
	if !p.Live {
		return fmt.Errorf("%s cannot change during a run", key)
	}
	if err := CheckAssignment(key, value); err != nil {
		return err
	}
	i := len(s.pending)
	for i > 0 && s.pending[i-1].At > at {
		i--
	}
	s.pending = slices.Insert(s.pending, i, Change{At: at, Key: key, Value: value})
	return nil
}

// Run advances the session to true time until (inclusive) or to the end of
// its duration, whichever is first.
func (s *Session) Run(until sim.Time) error {
	until = min(until, sim.Time(s.cfg.Duration))
	for s.err == nil {
		// The earliest of the links' next deliveries and the armed timers.
		if s.timersMoved {
			s.firstTimer, s.timersMoved = s.earliestTimer(), false
		}
		at, seq, ok := s.up.NextKey()
		link := s.up
		if dat, dseq, dok := s.down.NextKey(); dok && (!ok || dat < at || (dat == at && dseq < seq)) {
			at, seq, ok, link = dat, dseq, true, s.down
		}
		next := -1
		if i := s.firstTimer; i >= 0 {
			if t := &s.timers[i]; !ok || t.Before(at, seq) {
				at, ok, next = t.At, true, i
			}
		}
		if !ok || at > until {
			s.applyChanges(until, true)
			break
		}
		if len(s.pending) > 0 && s.applyChanges(at, false) {
			continue // a change may have re-armed a timer
		}
		s.now = at
		if next >= 0 {
			s.timers[next], s.timersMoved = disarmed, true
			s.fire(next)
			continue
		}
		if link == s.up {
			s.deliver(s.up, "up")
		} else {
			s.deliver(s.down, "down")
		}
	}
	if s.err == nil && s.now < until {
		s.now = until
	}
	return s.err
}

// Done reports whether the session has reached its duration.
func (s *Session) Done() bool { return s.now >= sim.Time(s.cfg.Duration) }

func (s *Session) fire(timer int) {
	switch timer {
	case tFrame:
		s.frame()
	case tServer:
		s.serverStep()
	case tSample:
		s.takeSample()
		s.arm(tSample, s.now.Add(s.every))
	case tWander:
		s.wander()
		s.arm(tWander, s.now.Add(time.Second))
	}
}

// applyChanges applies the pending changes due before t (at or before t
// when inclusive) and reports whether it applied any.
func (s *Session) applyChanges(t sim.Time, inclusive bool) bool {
	applied := false
	for len(s.pending) > 0 && s.err == nil {
		c := s.pending[0]
		if c.At > t || (!inclusive && c.At == t) {
			break
		}
		s.pending = s.pending[1:]
		s.now = max(s.now, c.At)
		changed, err := s.apply(c.Key, c.Value)
		if err != nil {
			s.err = fmt.Errorf("at %v: %w", s.now, err)
			return applied
		}
		if !changed {
			continue // a no-op: nothing to log, nothing moved
		}
		s.applied = append(s.applied, Change{At: s.now, Key: c.Key, Value: c.Value})
		if s.OnChange != nil {
			s.OnChange(s.applied[len(s.applied)-1])
		}
		applied = true
	}
	return applied
}

// scheduleFrame (re)arms the client's next frame at the true time its
// clock reads the frame's local time.
func (s *Session) scheduleFrame() {
	s.nextFrameLocal = s.cl.NextFrame()
	s.rearm(tFrame, max(s.cClock.True(s.nextFrameLocal), s.now))
}

// scheduleServer (re)arms the server's next step likewise.
func (s *Session) scheduleServer() {
	s.rearm(tServer, max(s.sClock.True(s.sv.NextStep()), s.now))
}

// rearm arms timer i at at. A timer already armed for that instant keeps
// its sequence number: re-arming it would move it behind every event
// scheduled since, changing the order of same-instant events.
func (s *Session) rearm(i int, at sim.Time) {
	if t := &s.timers[i]; t.Armed && t.At == at {
		return
	}
	s.arm(i, at)
}

// arm sets timer i to at, ordered after every event scheduled so far.
func (s *Session) arm(i int, at sim.Time) {
	s.timers[i].Set(at, &s.order)
	s.timersMoved = true
}

// disarmed is a timer not armed: its key is the latest there is.
var disarmed = sim.Timer{At: math.MaxInt64, Seq: math.MaxUint64}

// earliestTimer is the armed timer with the earliest (time, sequence)
// key, or -1 when none is armed (no two keys are equal). A disarmed
// timer's key is the latest there is, so a knockout of three compares
// finds it, without a loop or a test of Armed in each.
func (s *Session) earliestTimer() int {
	t := &s.timers
	a, b := tFrame, tSample
	if t[tServer].Before(t[tFrame].At, t[tFrame].Seq) {
		a = tServer
	}
	if t[tWander].Before(t[tSample].At, t[tSample].Seq) {
		b = tWander
	}
	if t[b].Before(t[a].At, t[a].Seq) {
		a = b
	}
	if !t[a].Armed {
		return -1
	}
	return a
}

func (s *Session) frame() {
	prev, snaps := s.cl.Visible(), s.cl.Snaps()
	s.cl.Frame(s.nextFrameLocal)
	if measured {
		s.m.frameRan(s.now)
	}
	out := s.cl.Outbox()
	for i := range out {
		m := &out[i]
		switch m.Kind {
		case client.MsgLogin:
			s.send(s.up, "up", &wire{kind: wireLogin}, proto.LoginSize)
		case client.MsgMoveInput:
			if measured {
				s.m.inputSent(m.Move.Tick, m.Move.Input.Throttle)
			}
			id := s.send(s.up, "up", &wire{kind: wireMove, move: m.Move}, m.Move.Size())
			if m.Move.Redundant > 0 {
				for len(s.earlier) <= int(id) {
					s.earlier = append(s.earlier, nil)
				}
				s.earlier[id] = append(s.earlier[id][:0], m.Earlier...) // m.Earlier is the client's until the next frame
			}
		}
	}
	if measured {
		s.m.frame(s.now, s.cl, &s.cfg, prev, snaps)
	}
	if s.cfg.View.Mode != observer.Off {
		s.renderView()
	}
	if s.OnFrame != nil {
		f := TelemetryFrame(s.cl, s.nextFrameLocal, s.m.frames()-1)
		s.OnFrame(&f)
	}
	s.scheduleFrame()
}

// renderView renders the remote player's view at this frame: it sees the
// PlayerStates our client receives, when it receives them (a second
// player behind an identical downlink), and renders at our client's frame
// times on the true clock.
func (s *Session) renderView() {
	pose, st := s.vw.Render(s.now)
	if measured {
		s.m.view(s.now, pose, st, s.vw, s.sClock)
	}
}

func (s *Session) serverStep() {
	s.step.kind = wireState
	ps := &s.step.state
	broadcast := s.sv.StepInto(ps)
	if measured {
		s.m.serverStep(s.now, ps)
	}
	if broadcast && s.serverKnowsClient {
		s.send(s.down, "down", &s.step, ps.Size())
	}
	s.scheduleServer()
}

// send puts a copy of message *w on a link, which schedules its
// deliveries under the message ID send returns. (A pointer, and the copy made after the
// link's work: a message built just before and copied at once would stall
// the copy's wide loads on store forwarding.)
func (s *Session) send(l *netem.Link, dir string, w *wire, size int) int32 {
	var id int32
	if n := len(s.free); n > 0 {
		id, s.free = s.free[n-1], s.free[:n-1]
	} else {
		id = int32(len(s.msgs))
		s.msgs = append(s.msgs, wire{})
	}
	var res netem.SendResult
	l.SendInto(&res, s.now, netem.Packet{ID: uint64(id), Size: size})
	m := &s.msgs[id]
	*m = *w
	m.sentAt, m.refs = s.now, uint8(res.Scheduled)
	switch {
	case !measured:
	case l == s.down:
		// The round trip pairs it with the latest uplink packet sent
		// strictly before it.
		m.upDelay, m.hasUp = s.m.upDelayBefore(s.now)
	default:
		s.m.sentUp(s.now, &res)
	}
	if s.OnSend != nil {
		r := SendRecord{Dir: dir, Seq: res.Seq, Kind: wireNames[w.kind], Size: size, SentAt: s.now, Fate: res.Fate}
		for c, i := 0, 0; c < 2; c++ {
			if res.Fate[c] == netem.FateScheduled {
				r.At[c], i = res.At[i], i+1
			}
		}
		s.OnSend(&r)
	}
	if s.OnPacket != nil {
		for c, f := range res.Fate {
			status := ""
			switch f {
			case netem.FateLost:
				status = "lost"
			case netem.FateQueueDropped:
				status = "queue_dropped"
			default:
				continue
			}
			s.OnPacket(&PacketRecord{Dir: dir, Seq: res.Seq, Kind: wireNames[w.kind], SentAt: s.now, Status: status, Copy: c})
		}
	}
	if res.Scheduled == 0 {
		s.free = append(s.free, id)
	}
	return id
}

// deliver hands the link's due copy to its endpoint.
func (s *Session) deliver(l *netem.Link, dir string) {
	var d netem.Delivery
	if !l.DeliverInto(&d, s.now) {
		return
	}
	id := int32(d.ID)
	w := &s.msgs[id]
	w.refs--
	if w.refs == 0 {
		s.free = append(s.free, id)
	}
	if s.OnPacket != nil {
		s.OnPacket(&PacketRecord{Dir: dir, Seq: d.Seq, Kind: wireNames[w.kind], SentAt: d.SentAt, Status: "delivered",
			At: d.At, Copy: d.Copy, Reordered: d.Reordered})
	}
	if measured {
		s.m.delivered(l == s.up, &d, w.upDelay, w.hasUp)
	}
	switch w.kind {
	case wireLogin:
		s.serverKnowsClient = true
		// This send may reuse id and grow s.msgs: w is not read after it.
		s.send(s.down, "down", &wire{kind: wireLoginAck, start: s.sv.Tick()}, proto.LoginAckSize)
	case wireMove:
		if measured {
			s.m.inputArrived(w.move.Tick, w.move.Redundant)
		}
		var e proto.Earlier
		if w.move.Redundant > 0 {
			e = s.earlier[id]
		}
		s.sv.OnMoveInputAt(s.sClock.Local(s.now), w.move, e)
	case wireLoginAck:
		s.cl.OnLoginAck(w.start)
	case wireState:
		s.cl.OnPlayerState(w.state)
		if s.cfg.View.Mode != observer.Off {
			s.vw.OnSnapshot(s.now, w.state.ServerTick, w.state.Pose)
		}
	}
}

// takeSample ends the sample window, and hands its sample to OnSample.
func (s *Session) takeSample() {
	if !measured {
		return
	}
	if smp := s.m.endWindow(s.now, s.OnSample != nil, s.cl, s.sv, s.up, s.down); smp != nil {
		s.OnSample(smp)
	}
}

func (s *Session) wander() {
	if s.cfg.ClientWanderPPM > 0 {
		if err := s.cClock.Walk(s.now, s.cWander, s.cfg.ClientWanderPPM); err != nil {
			s.err = err
			return
		}
		s.scheduleFrame()
	}
	if s.cfg.ServerWanderPPM > 0 {
		if err := s.sClock.Walk(s.now, s.sWander, s.cfg.ServerWanderPPM); err != nil {
			s.err = err
			return
		}
		s.scheduleServer()
	}
}

// apply sets key=value now and pushes the new settings to the components.
// A value equal to the one in force changes nothing and reports false.
func (s *Session) apply(key, value string) (bool, error) {
	old := s.cfg
	next := s.cfg
	if err := Set(&next, key, value); err != nil {
		return false, err
	}
	if next.Equal(&old) {
		return false, nil
	}
	s.cfg = next
	c := &s.cfg
	if err := s.up.SetParams(c.Up, "up"); err != nil {
		return true, err
	}
	if err := s.down.SetParams(c.Down, "down"); err != nil {
		return true, err
	}
	if err := s.sv.SetConfig(c.serverConfig()); err != nil {
		return true, err
	}
	if c.Script != old.Script {
		script, err := c.newScript()
		if err != nil {
			return true, err
		}
		s.cl.SetScript(script)
	}
	if err := s.cl.SetConfig(c.clientConfig()); err != nil {
		return true, err
	}
	if err := s.vw.SetConfig(c.viewConfig()); err != nil {
		return true, err
	}
	if c.ClientDriftPPM != old.ClientDriftPPM {
		if err := s.cClock.SetDrift(s.now, c.ClientDriftPPM); err != nil {
			return true, err
		}
	}
	if c.ServerDriftPPM != old.ServerDriftPPM {
		if err := s.sClock.SetDrift(s.now, c.ServerDriftPPM); err != nil {
			return true, err
		}
	}
	// Clocks, fps or tick may have moved the endpoints' next wake-ups; a
	// wake-up that has not moved keeps its place among same-instant events.
	s.scheduleFrame()
	s.scheduleServer()
	return true, nil
}
