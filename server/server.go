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
	// Queue: keep accepted inputs in tick order, consume one per step and
	// repeat the last input when the queue is empty.
	Queue
)

// InputModes are the accepted names, in InputMode order.
var InputModes = []string{"latest", "queue"}

func (m InputMode) String() string { return InputModes[m] }

// Config is the server's settings.
type Config struct {
	Tick      time.Duration // step period on the server clock (50ms)
	Broadcast int           // a PlayerState every Broadcast steps (1)
	Inputs    InputMode
	Tuning    motion.Tuning
}

// DefaultConfig is the first user's server at the client's requested speed.
var DefaultConfig = Config{Tick: 50 * time.Millisecond, Broadcast: 1, Inputs: Latest, Tuning: motion.DefaultTuning}

// MaxBroadcast bounds server.broadcast: beyond it the client would hear
// from the server less than once a minute at the default tick.
const MaxBroadcast = 1000

// Counters are cumulative per-step input counts.
type Counters struct {
	Arrived     uint64 // MoveInputs received
	Applied     uint64 // steps that integrated a received input
	Overwritten uint64 // accepted inputs replaced by a later one in the same step (Latest)
	LateDropped uint64 // inputs dropped for a tick not newer than one accepted (or a duplicate)
	Starved     uint64 // steps with no new input, counted from the first input on
	Recovered   uint64 // inputs of lost packets accepted from a later packet's redundant copies
}

// Server is the authoritative server. It steps at local times
// Tick, 2·Tick, … of its own clock; the caller converts them to true time.
//
// Per step (Latest): integrate the pending input (or zero input) for Tick,
// then, every Broadcast steps, broadcast a PlayerState with the step counter
// and the tick of the last applied input. Per step (Queue): integrate the oldest queued input,
// or the last one again if the queue is empty.
type Server struct {
	cfg       Config
	nextLocal sim.Time
	stepDT    time.Duration // the interval the step due at nextLocal ends
	pose      motion.Pose
	tick      uint32 // steps done
	quiet     int    // steps since the last broadcast
	ack       uint32
	playing   bool // an input has arrived: starvation counts from here

	// Latest
	lastAccepted uint32
	pending      proto.MoveInput
	hasPending   bool

	// Queue
	queue        []proto.MoveInput // ascending ticks, all > lastConsumed
	lastConsumed uint32
	lastInput    motion.Input

	c Counters
}

// New returns a server at tick 0 whose first step is at local time
// cfg.Tick.
func New(cfg Config) (*Server, error) {
	s := &Server{queue: make([]proto.MoveInput, 0, 64)}
	if err := s.SetConfig(cfg); err != nil {
		return nil, err
	}
	s.nextLocal, s.stepDT = sim.Time(cfg.Tick), cfg.Tick
	return s, nil
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
	if s.cfg.Inputs != cfg.Inputs {
		s.switchInputs(cfg.Inputs)
	}
	s.cfg = cfg
	return nil
}

// switchInputs carries accepted inputs over a change of InputMode.
func (s *Server) switchInputs(to InputMode) {
	switch to {
	case Queue: // the pending input, if any, becomes the queue
		s.lastConsumed = s.ack
		s.queue = s.queue[:0]
		if s.hasPending {
			s.queue = append(s.queue, s.pending)
			s.hasPending = false
		}
	case Latest: // the newest queued input is pending, older ones are overwritten
		s.lastAccepted = s.lastConsumed
		if n := len(s.queue); n > 0 {
			s.pending, s.hasPending = s.queue[n-1], true
			s.lastAccepted = s.pending.Tick
			s.c.Overwritten += uint64(n - 1)
			s.queue = s.queue[:0]
		}
	}
}

// Config returns the settings in force.
func (s *Server) Config() Config { return s.cfg }

// NextStep is the local time of the next step.
func (s *Server) NextStep() sim.Time { return s.nextLocal }

// Tick is the number of steps done: the start tick a login is told.
func (s *Server) Tick() uint32 { return s.tick }

// Counters returns the cumulative input counts.
func (s *Server) Counters() Counters { return s.c }

// OnMoveInput accepts or drops an arriving input. With client.redundancy
// the packet also carries earlier ticks' inputs: each one the server has
// not yet accepted is a lost input recovered (counted in Recovered, not in
// Arrived). Latest accepts the recovered inputs in tick order before the
// packet's own, so the newest still wins the step and they are counted as
// overwritten: redundancy recovers nothing a latest-wins server would use.
// Queue inserts them into the gaps.
func (s *Server) OnMoveInput(m proto.MoveInput) {
	s.c.Arrived++
	s.playing = true
	switch s.cfg.Inputs {
	case Latest:
		for i := int(m.Redundant) - 1; i >= 0; i-- {
			if t := m.Tick - 1 - uint32(i); t < m.Tick && t > s.lastAccepted {
				s.c.Recovered++
				s.acceptLatest(proto.MoveInput{Tick: t, Input: m.Earlier[i]})
			}
		}
		if m.Tick <= s.lastAccepted {
			s.c.LateDropped++
			return
		}
		s.acceptLatest(m)
	case Queue:
		for i := range int(m.Redundant) {
			if t := m.Tick - 1 - uint32(i); t < m.Tick && t > s.lastConsumed && s.enqueue(proto.MoveInput{Tick: t, Input: m.Earlier[i]}) {
				s.c.Recovered++
			}
		}
		if m.Tick <= s.lastConsumed || !s.enqueue(proto.MoveInput{Tick: m.Tick, Input: m.Input}) {
			s.c.LateDropped++ // late, or a duplicate of a queued input
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
	var in motion.Input
	switch s.cfg.Inputs {
	case Latest:
		if s.hasPending {
			in, s.ack, s.lastInput = s.pending.Input, s.pending.Tick, s.pending.Input
			s.hasPending = false
			s.c.Applied++
		} else if s.playing {
			s.c.Starved++
		}
	case Queue:
		if len(s.queue) > 0 {
			m := s.queue[0]
			copy(s.queue, s.queue[1:])
			s.queue = s.queue[:len(s.queue)-1]
			in, s.ack, s.lastConsumed, s.lastInput = m.Input, m.Tick, m.Tick, m.Input
			s.c.Applied++
		} else {
			in = s.lastInput
			if s.playing {
				s.c.Starved++
			}
		}
	}
	s.pose = motion.Step(s.pose, in, s.stepDT, s.cfg.Tuning)
	s.tick++
	s.nextLocal += sim.Time(s.cfg.Tick)
	s.stepDT = s.cfg.Tick
	s.quiet++
	if broadcast = s.quiet >= s.cfg.Broadcast; broadcast {
		s.quiet = 0
	}
	return proto.PlayerState{ServerTick: s.tick, Pose: s.pose, AckTick: s.ack}, broadcast
}
