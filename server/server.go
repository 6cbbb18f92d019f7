package server

import (
	"fmt"
	"time"

	"jitterlab/motion"
	"jitterlab/proto"
	"jitterlab/sim"
)

// InputMode is the input acceptance rule, registry key server.inputs.
type InputMode uint8

const (
	// Latest (reference): accept a MoveInput only if its tick is newer than
	// the last accepted one (late and reordered inputs are dropped); the
	// latest input in a step overwrites earlier ones; a step with no new
	// input integrates zero input, so the tank stops for that step.
	Latest InputMode = iota
	// Queue: keep accepted inputs in tick order and consume one per step.
	// With none waiting the step is an underrun: it consumes the next
	// tick, simulated with the last input, and acknowledges it; that
	// tick's input arriving later is late and, with nothing queued,
	// resyncs the queue (see [Server.Step]).
	Queue
	// Buffer: apply inputs by tick at a fixed delay of Buffer steps behind
	// the arrival of the first one, so jitter up to Buffer steps is
	// absorbed; a missing tick is simulated with the last input and
	// acknowledged (an underrun). Each PlayerState reports the depth (see
	// buffer.go).
	Buffer
)

// InputModes are the accepted names, in InputMode order.
var InputModes = []string{"latest", "queue", "buffer"}

func (m InputMode) String() string { return InputModes[m] }

// Config is the server's settings.
type Config struct {
	Tick      time.Duration // step period on the server clock (50ms)
	Broadcast int           // a PlayerState every Broadcast steps (1)
	Inputs    InputMode
	Buffer    int // target depth in steps for Inputs = Buffer (server.buffer); with BufferAuto the starting one
	// BufferMode: the target is Buffer (BufferFixed) or follows the
	// inputs' arrival jitter (BufferAuto, server.buffer_mode; autodepth.go).
	BufferMode BufferMode
	Tuning     motion.Tuning
}

// DefaultConfig is the first user's server at the client's requested speed.
var DefaultConfig = Config{Tick: 50 * time.Millisecond, Broadcast: 1, Inputs: Latest, Buffer: 2, Tuning: motion.DefaultTuning}

// MaxBroadcast bounds server.broadcast: beyond it the client would hear
// from the server less than once a minute at the default tick.
const MaxBroadcast = 1000

// Counters are cumulative per-step input counts. Of the inputs the client
// sends, each tick is lost or received (Recovered of them only as a
// redundant copy); a received one is applied, overwritten, late-dropped or
// dropped, or still waits.
type Counters struct {
	Arrived     uint64 // MoveInputs received
	Applied     uint64 // steps that integrated a received input
	Overwritten uint64 // Latest: accepted inputs replaced by a later packet's before a step applied them
	LateDropped uint64 // inputs dropped for a tick not newer than one accepted (or a duplicate)
	Starved     uint64 // steps with no new input, counted from the first input on
	Lost        uint64 // ticks up to the newest received that never arrived, in their own packet or as a copy
	Recovered   uint64 // ticks first received as a later packet's redundant copy (client.redundancy)
	Underruns   uint64 // Queue, Buffer: steps whose tick had no input, simulated with the last input (also counted in Starved)
	Held        uint64 // Queue, Buffer: steps a resync holds, simulating no tick (also counted in Starved)
	Dropped     uint64 // Buffer: inputs dropped for overfilling it (skipped above 3·D + 2, or beyond the ring)
	Resyncs     uint64 // Queue, Buffer: re-anchorings on a late input to an empty queue or buffer
}

// Server is the authoritative server. It steps at local times
// Tick, 2·Tick, … of its own clock; the caller converts them to true time.
//
// Per step (Latest): integrate the pending input (or zero input) for Tick,
// then, every Broadcast steps, broadcast a PlayerState with the step counter
// and the tick of the last applied input. Per step (Queue): integrate the oldest queued input,
// or the last one again if the queue is empty.
//
// The acknowledgement rule (Queue and Buffer, as engines that reconcile by
// tick do): a PlayerState's pose is the state after the ticks up to its
// AckTick, one step each, a tick whose input never came simulated with the
// input before it (an underrun: it consumes its tick and is
// acknowledged). A step that simulates no tick (a resync's hold) does not
// move the tank. So a client replaying its own inputs after AckTick
// corrects nothing when the server's guess equalled its input.
type Server struct {
	cfg       Config
	nextLocal sim.Time
	stepDT    time.Duration // the interval the step due at nextLocal ends
	pose      motion.Pose
	tick      uint32 // steps done
	quiet     int    // steps since the last broadcast
	ack       uint32 // the last tick simulated (applied or guessed)
	applied   uint32 // the last tick applied with its own input
	playing   bool   // an input has arrived: starvation counts from here

	// Latest
	lastAccepted uint32
	pending      proto.MoveInput
	hasPending   bool

	// Queue
	queue        []proto.MoveInput // ascending ticks, all > lastConsumed
	lastConsumed uint32
	queueHold    int // steps the queue holds after a resync
	lastInput    motion.Input

	buf  inputBuffer
	held []proto.MoveInput // scratch for switching modes
	rcpt receipts
	est  depthEstimator // BufferAuto

	c Counters
}

// New returns a server at tick 0 whose first step is at local time
// cfg.Tick.
func New(cfg Config) (*Server, error) {
	s := new(Server)
	if err := s.Reset(cfg); err != nil {
		return nil, err
	}
	return s, nil
}

// Reset makes s the server New(cfg) returns, keeping the memory of its
// queue and input buffer (a worker running many sessions reuses one
// server). After an error s must be Reset again before use.
func (s *Server) Reset(cfg Config) error {
	queue, held, slots := s.queue[:0], s.held[:0], s.buf.slots
	if queue == nil {
		queue = make([]proto.MoveInput, 0, 64)
	}
	buf := newInputBuffer(slots)
	*s = Server{queue: queue, held: held, buf: buf}
	if err := s.SetConfig(cfg); err != nil {
		return err
	}
	s.nextLocal, s.stepDT = sim.Time(cfg.Tick), cfg.Tick
	return nil
}

// SetConfig changes the settings. A new Tick applies from the step after
// the next one: the next step is still due one old interval after the
// previous and integrates that interval; switching Inputs keeps what has
// been accepted.
func (s *Server) SetConfig(cfg Config) error {
	if cfg.Tick <= 0 {
		return fmt.Errorf("server.tick %v: allowed a duration > 0", cfg.Tick)
	}
	if cfg.Broadcast < 1 || cfg.Broadcast > MaxBroadcast {
		return fmt.Errorf("server.broadcast %d: allowed a step count in [1, %d]", cfg.Broadcast, MaxBroadcast)
	}
	if int(cfg.Inputs) >= len(InputModes) {
		return fmt.Errorf("server.inputs %d: allowed %v", cfg.Inputs, InputModes)
	}
	if cfg.Buffer < 0 || cfg.Buffer > MaxBuffer {
		return fmt.Errorf("server.buffer %d: allowed a depth in [0, %d] steps", cfg.Buffer, MaxBuffer)
	}
	if int(cfg.BufferMode) >= len(BufferModes) {
		return fmt.Errorf("server.buffer_mode %d: allowed %v", cfg.BufferMode, BufferModes)
	}
	if cfg.BufferMode == BufferAuto && (s.cfg.BufferMode != BufferAuto || s.cfg.Tick == 0) {
		s.est.reset(cfg.Buffer)
	}
	if s.cfg.Inputs != cfg.Inputs && s.cfg.Tick != 0 {
		s.switchInputs(s.cfg.Inputs, cfg)
	}
	s.cfg = cfg
	return nil
}

// switchInputs carries accepted inputs over a change of InputMode: the
// inputs held (the pending one, the queue, the buffer) move to the new
// mode in tick order. Latest keeps the newest (the older ones count as
// overwritten); Buffer anchors at the oldest with the new depth.
func (s *Server) switchInputs(from InputMode, to Config) {
	held := s.held[:0]
	switch from {
	case Latest:
		if s.hasPending {
			held = append(held, s.pending)
		}
		s.hasPending = false
	case Queue:
		held = append(held, s.queue...)
		s.queue = s.queue[:0]
	case Buffer:
		held = s.buf.drain(held)
	}
	s.held = held
	switch to.Inputs {
	case Queue:
		s.lastConsumed, s.queueHold = s.ack, 0
		s.queue = append(s.queue, held...)
	case Latest:
		s.lastAccepted = s.ack
		if n := len(held); n > 0 {
			s.pending, s.hasPending = held[n-1], true
			s.lastAccepted = s.pending.Tick
			s.c.Overwritten += uint64(n - 1)
		}
	case Buffer:
		d := to.Buffer
		if to.BufferMode == BufferAuto && s.cfg.BufferMode == BufferAuto {
			d = s.est.target
		}
		for _, m := range held {
			s.buf.put(m.Tick, m.Input, d, s.applied, s.ack)
		}
	}
}

// BufferTarget is the Buffer mode's depth target in steps: Config.Buffer,
// or with BufferAuto the one the arrival jitter sets.
func (s *Server) BufferTarget() int {
	if s.cfg.BufferMode == BufferAuto {
		return s.est.target
	}
	return s.cfg.Buffer
}

// Config returns the settings in force.
func (s *Server) Config() Config { return s.cfg }

// NextStep is the local time of the next step.
func (s *Server) NextStep() sim.Time { return s.nextLocal }

// Tick is the number of steps done: the start tick a login is told.
func (s *Server) Tick() uint32 { return s.tick }

// BufferDepth is the depth the last PlayerState reported (Buffer mode).
func (s *Server) BufferDepth() int16 { return s.buf.depth() }

// LastApplied is the last tick a step applied with its own input (the
// AckTick of a PlayerState may be a later tick simulated on a guess).
func (s *Server) LastApplied() uint32 { return s.applied }

// Counters returns the cumulative input counts.
func (s *Server) Counters() Counters {
	c := s.c
	c.Lost = s.rcpt.missing
	return c
}

// OnMoveInput accepts or drops an arriving input. With client.redundancy
// the packet also carries earlier ticks' inputs: each tick first received
// this way is recovered (counted in Recovered, not in Arrived). Latest
// takes the packet's own input, the newest, so the copies are never used
// (and not counted as overwritten): redundancy recovers nothing a
// latest-wins server would use. Queue inserts them into the gaps, Buffer
// into their slots.
func (s *Server) OnMoveInput(m proto.MoveInput) { s.OnRedundantMoveInput(m, nil) }

// OnRedundantMoveInput is OnMoveInput for a packet that carries the
// earlier inputs e (m.Redundant of them, at most len(e)). Its arrival
// time is not known: BufferAuto learns nothing from it.
func (s *Server) OnRedundantMoveInput(m proto.MoveInput, e proto.Earlier) { s.receive(m, e, 0, false) }

// OnMoveInputAt is OnRedundantMoveInput for a packet arriving at local
// time at (≤ NextStep): BufferAuto measures its arrival jitter.
func (s *Server) OnMoveInputAt(at sim.Time, m proto.MoveInput, e proto.Earlier) {
	s.receive(m, e, at, true)
}

func (s *Server) receive(m proto.MoveInput, e proto.Earlier, at sim.Time, timed bool) {
	m.Redundant = uint8(min(int(m.Redundant), len(e)))
	s.c.Arrived++
	s.playing = true
	for i := range uint32(m.Redundant) {
		if t := m.Tick - 1 - i; t < m.Tick && s.rcpt.see(t) {
			s.c.Recovered++
		}
	}
	if s.rcpt.see(m.Tick) && timed && s.cfg.BufferMode == BufferAuto {
		s.est.add(at, m.Tick, s.cfg.Tick)
	}
	switch s.cfg.Inputs {
	case Latest:
		if m.Tick <= s.lastAccepted {
			s.c.LateDropped++
			return
		}
		s.acceptLatest(m)
	case Queue:
		for i := range int(m.Redundant) {
			if t := m.Tick - 1 - uint32(i); t < m.Tick && t > s.lastConsumed {
				s.enqueue(proto.MoveInput{Tick: t, Input: e[i]})
			}
		}
		switch {
		case m.Tick > s.lastConsumed:
			if !s.enqueue(proto.MoveInput{Tick: m.Tick, Input: m.Input}) {
				s.c.LateDropped++ // a duplicate of a queued input
			}
		default:
			s.c.LateDropped++
			if m.Tick > s.applied && len(s.queue) == 0 {
				// Its tick was simulated on a guess and nothing waits:
				// the client runs late. Hold until the tick after the
				// last consumed one is due at the step after its
				// expected arrival, as this input was due at the step
				// after its own.
				s.queueHold = int(s.lastConsumed + 1 - m.Tick)
				s.c.Resyncs++
			}
		}
	case Buffer:
		// The earlier inputs first, oldest first; only the packet's own
		// input can resync (a copy of a passed tick is a duplicate).
		for i := int(m.Redundant) - 1; i >= 0; i-- {
			if t := m.Tick - 1 - uint32(i); t < m.Tick && t >= s.buf.nextTick() {
				s.buf.put(t, e[i], s.BufferTarget(), s.applied, s.ack)
			}
		}
		switch s.buf.put(m.Tick, m.Input, s.BufferTarget(), s.applied, s.ack) {
		case putLate:
			s.c.LateDropped++
		case putOverflow:
			s.c.Dropped++
		case putResync:
			s.c.Resyncs++
			s.c.LateDropped++
		}
	}
}

// acceptLatest makes m, newer than every accepted input, the pending one.
func (s *Server) acceptLatest(m proto.MoveInput) {
	if s.hasPending {
		s.c.Overwritten++
	}
	s.lastAccepted = m.Tick
	s.pending, s.hasPending = m, true
}

// enqueue inserts m (tick > lastConsumed) in tick order and reports whether
// it was new rather than a duplicate of a queued tick.
func (s *Server) enqueue(m proto.MoveInput) bool {
	i := len(s.queue)
	for i > 0 && s.queue[i-1].Tick >= m.Tick {
		i--
	}
	if i < len(s.queue) && s.queue[i].Tick == m.Tick {
		return false
	}
	s.queue = append(s.queue, proto.MoveInput{})
	copy(s.queue[i+1:], s.queue[i:])
	s.queue[i] = m
	return true
}

// Step runs the step due at NextStep and returns the PlayerState after it;
// broadcast says whether this step sends it (every Broadcast steps, counted
// from the last broadcast).
func (s *Server) Step() (ps proto.PlayerState, broadcast bool) {
	broadcast = s.StepInto(&ps)
	return ps, broadcast
}

// StepInto is [Server.Step] writing the PlayerState to *ps. A caller that
// keeps the state in place spares the copy of a returned struct, which the
// compiler makes in 16-byte loads spanning the 8-byte stores of its
// fields: a load the CPU cannot forward from them (a stall each step).
func (s *Server) StepInto(ps *proto.PlayerState) (broadcast bool) {
	var in motion.Input
	switch s.cfg.Inputs {
	case Latest:
		if s.hasPending {
			in, s.ack, s.applied, s.lastInput = s.pending.Input, s.pending.Tick, s.pending.Tick, s.pending.Input
			s.hasPending = false
			s.c.Applied++
		} else if s.playing {
			s.c.Starved++
		}
	case Queue:
		switch {
		case s.queueHold > 0:
			s.queueHold--
			s.c.Held++
			s.c.Starved++
		case len(s.queue) > 0:
			m := s.queue[0]
			copy(s.queue, s.queue[1:])
			s.queue = s.queue[:len(s.queue)-1]
			in, s.ack, s.applied, s.lastConsumed, s.lastInput = m.Input, m.Tick, m.Tick, m.Tick, m.Input
			s.c.Applied++
		case s.playing:
			s.lastConsumed++
			in, s.ack = s.lastInput, s.lastConsumed
			s.c.Underruns++
			s.c.Starved++
		}
	case Buffer:
		m, st, skipped := s.buf.take(s.BufferTarget())
		if skipped {
			s.c.Dropped++
		}
		switch st {
		case takeApplied:
			in, s.ack, s.applied, s.lastInput = m.Input, m.Tick, m.Tick, m.Input
			s.c.Applied++
		case takeUnderrun:
			in, s.ack = s.lastInput, m.Tick
			s.c.Underruns++
			s.c.Starved++
		case takeHold:
			s.c.Held++
			s.c.Starved++
		}
	}
	pose := motion.Step(s.pose, in, s.stepDT, s.cfg.Tuning)
	s.pose = pose
	s.tick++
	s.nextLocal += sim.Time(s.cfg.Tick)
	s.stepDT = s.cfg.Tick
	s.quiet++
	if broadcast = s.quiet >= s.cfg.Broadcast; broadcast {
		s.quiet = 0
	}
	// Field by field, for the same reason.
	ps.ServerTick, ps.AckTick = s.tick, s.ack
	ps.Pose.X, ps.Pose.Y, ps.Pose.Rot = pose.X, pose.Y, pose.Rot
	ps.BufferDepth, ps.HasDepth, ps.BufferTarget, ps.HasTarget = 0, false, 0, false
	if s.cfg.Inputs == Buffer {
		ps.BufferDepth, ps.HasDepth = s.buf.depth(), true
		if s.cfg.BufferMode == BufferAuto {
			ps.BufferTarget, ps.HasTarget = int16(s.est.target), true
		}
	}
	return broadcast
}
