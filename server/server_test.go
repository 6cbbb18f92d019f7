package server

import (
	"math"
	"slices"
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/proto"
	"jitterlab/sim"
)

var fwd = motion.Input{Throttle: 1}

func newServer(t *testing.T, mode InputMode) *Server {
	t.Helper()
	cfg := DefaultConfig
	cfg.Inputs = mode
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStepsAndBroadcasts(t *testing.T) {
	s := newServer(t, Latest)
	for k := 1; k <= 3; k++ {
		if s.NextStep() != sim.Time(k)*sim.Time(50*time.Millisecond) {
			t.Fatalf("step %d at %v", k, s.NextStep())
		}
		ps, _ := s.Step()
		if ps.ServerTick != uint32(k) || s.Tick() != uint32(k) {
			t.Fatalf("broadcast %d carries tick %d", k, ps.ServerTick)
		}
	}
	if (s.Counters() != Counters{}) {
		t.Fatalf("no input yet, but counters %+v", s.Counters())
	}
}

func TestLatestAcceptance(t *testing.T) {
	s := newServer(t, Latest)
	s.OnMoveInput(proto.MoveInput{Tick: 1, Input: fwd})
	s.OnMoveInput(proto.MoveInput{Tick: 3, Input: motion.Input{Throttle: 0.5}}) // overwrites 1
	s.OnMoveInput(proto.MoveInput{Tick: 2, Input: fwd})                         // late: 2 ≤ 3
	ps, _ := s.Step()
	if ps.AckTick != 3 || ps.Pose.Y != 0.5*2*0.05 {
		t.Fatalf("step applied %+v, want the latest input (tick 3, throttle 0.5)", ps)
	}
	c := s.Counters()
	if c.Arrived != 3 || c.Applied != 1 || c.Overwritten != 1 || c.LateDropped != 1 || c.Starved != 0 {
		t.Fatalf("counters %+v", c)
	}
	// A step with no new input integrates zero input: the tank stops.
	ps2, _ := s.Step()
	if ps2.Pose != ps.Pose || ps2.AckTick != 3 || s.Counters().Starved != 1 {
		t.Fatalf("starved step moved the tank or changed the ack: %+v", ps2)
	}
	s.OnMoveInput(proto.MoveInput{Tick: 3, Input: fwd}) // duplicate
	if s.Counters().LateDropped != 2 {
		t.Fatal("a duplicate tick should be late-dropped")
	}
}

func TestQueueAcceptance(t *testing.T) {
	s := newServer(t, Queue)
	s.OnMoveInput(proto.MoveInput{Tick: 2, Input: motion.Input{Throttle: 0.5}})
	s.OnMoveInput(proto.MoveInput{Tick: 1, Input: fwd}) // reordered: queued before 2
	s.OnMoveInput(proto.MoveInput{Tick: 2, Input: fwd}) // duplicate
	if ps, _ := s.Step(); ps.AckTick != 1 || ps.Pose.Y != 0.1 {
		t.Fatalf("first step %+v, want tick 1 at full throttle", ps)
	}
	y := motion.Step(motion.Pose{Y: 0.1}, motion.Input{Throttle: 0.5}, 50*time.Millisecond, motion.DefaultTuning).Y
	if ps, _ := s.Step(); ps.AckTick != 2 || ps.Pose.Y != y {
		t.Fatalf("second step %+v, want tick 2 at half throttle", ps)
	}
	// Empty queue: repeat the last input.
	ps, _ := s.Step()
	if ps.AckTick != 2 || ps.Pose.Y != motion.Step(motion.Pose{Y: y}, motion.Input{Throttle: 0.5}, 50*time.Millisecond, motion.DefaultTuning).Y {
		t.Fatalf("starved step %+v, want the last input repeated", ps)
	}
	s.OnMoveInput(proto.MoveInput{Tick: 2, Input: fwd}) // already consumed
	c := s.Counters()
	if c.Arrived != 4 || c.Applied != 2 || c.LateDropped != 2 || c.Starved != 1 || c.Overwritten != 0 {
		t.Fatalf("counters %+v", c)
	}
}

func TestSwitchInputModeKeepsAcceptedInputs(t *testing.T) {
	s := newServer(t, Latest)
	s.OnMoveInput(proto.MoveInput{Tick: 5, Input: fwd})
	cfg := s.Config()
	cfg.Inputs = Queue
	if err := s.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if ps, _ := s.Step(); ps.AckTick != 5 {
		t.Fatalf("pending input lost in the switch: %+v", ps)
	}
	cfg.Tick = 0
	if err := s.SetConfig(cfg); err == nil {
		t.Fatal("tick 0 accepted")
	}
}

// Issue 8.14: a live server.tick change applies from the step after the
// next one, and that next step, due one old interval after the previous,
// integrates the old interval: at 2 m/s, 0.100 m, then 0.080 m per step.
func TestLiveTickChange(t *testing.T) {
	s := newServer(t, Latest)
	s.OnMoveInput(proto.MoveInput{Tick: 1, Input: fwd})
	s.Step() // at 50 ms; the next is already due at 100 ms
	cfg := s.Config()
	cfg.Tick = 40 * time.Millisecond
	if err := s.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	moved := func(tick uint32) float64 {
		before := s.pose
		s.OnMoveInput(proto.MoveInput{Tick: tick, Input: fwd})
		return motion.Distance(before, step(s).Pose)
	}
	if d := moved(2); math.Abs(d-0.100) > 1e-12 {
		t.Fatalf("the step due at 100 ms moved %.6f m, want the old 50 ms interval's 0.100 m", d)
	}
	if s.NextStep() != sim.Time(140*time.Millisecond) {
		t.Fatalf("next step at %v, want 140ms", s.NextStep())
	}
	if d := moved(3); math.Abs(d-0.080) > 1e-12 {
		t.Fatalf("the step due at 140 ms moved %.6f m, want the new 40 ms interval's 0.080 m", d)
	}
}

func step(s *Server) proto.PlayerState {
	ps, _ := s.Step()
	return ps
}

// Issue 8.18: server.broadcast sends a PlayerState every N steps; the
// state carries the step counter, and a live change counts from the last
// broadcast.
func TestBroadcastEveryNSteps(t *testing.T) {
	cfg := DefaultConfig
	cfg.Broadcast = 3
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var sent []uint32
	for range 7 {
		if ps, ok := s.Step(); ok {
			sent = append(sent, ps.ServerTick)
		}
	}
	cfg.Broadcast = 2
	if err := s.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if ps, ok := s.Step(); ok {
			sent = append(sent, ps.ServerTick)
		}
	}
	if want := []uint32{3, 6, 8, 10}; !slices.Equal(sent, want) {
		t.Fatalf("broadcasts at steps %v, want %v", sent, want)
	}
	cfg.Broadcast = 0
	if err := s.SetConfig(cfg); err == nil {
		t.Fatal("broadcast every 0 steps accepted")
	}
}

// Redundancy: a lost MoveInput's controls reach the server in the next
// packet, which repeats the inputs of the ticks before it.
func TestRedundancyRecoversALostInput(t *testing.T) {
	left, right := motion.Input{Turn: -1, Throttle: 1}, motion.Input{Turn: 1, Throttle: 1}
	// Ticks 1, 2, 3 with inputs fwd, left, right; packet 2 is lost, packet 3
	// carries the inputs of ticks 2 and 1.
	p1 := proto.MoveInput{Tick: 1, Input: fwd}
	p3 := proto.MoveInput{Tick: 3, Input: right, Redundant: 2}
	e3 := &proto.Earlier{left, fwd}

	t.Run("queue fills the gap in tick order", func(t *testing.T) {
		s := newServer(t, Queue)
		s.OnMoveInput(p1)
		s.OnRedundantMoveInput(p3, e3)
		var acks []uint32
		var pose motion.Pose
		for range 3 {
			ps, _ := s.Step()
			acks = append(acks, ps.AckTick)
			pose = ps.Pose
		}
		want := motion.Pose{}
		for _, in := range []motion.Input{fwd, left, right} {
			want = motion.Step(want, in, 50*time.Millisecond, DefaultConfig.Tuning)
		}
		if !slices.Equal(acks, []uint32{1, 2, 3}) || pose != want {
			t.Fatalf("acks %v pose %+v, want 1 2 3 and the pose of all three inputs %+v", acks, pose, want)
		}
		c := s.Counters()
		if c.Recovered != 1 || c.Arrived != 2 || c.Applied != 3 || c.Starved != 0 || c.LateDropped != 0 {
			t.Fatalf("counters %+v, want tick 2 recovered and 3 inputs applied", c)
		}
		// The lost packet arriving after all is a duplicate.
		s.OnMoveInput(proto.MoveInput{Tick: 2, Input: left})
		if s.Counters().LateDropped != 1 {
			t.Fatal("the original of a recovered input was not dropped")
		}
	})
	t.Run("latest recovers it but the newest input wins the step", func(t *testing.T) {
		s := newServer(t, Latest)
		s.OnMoveInput(p1)
		s.Step()
		s.OnRedundantMoveInput(p3, e3)
		ps, _ := s.Step()
		c := s.Counters()
		if ps.AckTick != 3 || c.Recovered != 1 || c.Overwritten != 1 || c.Applied != 2 {
			t.Fatalf("ack %d counters %+v, want tick 2 recovered, overwritten by 3", ps.AckTick, c)
		}
	})
	t.Run("off: the gap stays", func(t *testing.T) {
		s := newServer(t, Queue)
		s.OnMoveInput(p1)
		s.OnMoveInput(proto.MoveInput{Tick: 3, Input: right})
		s.Step()
		ps, _ := s.Step()
		if ps.AckTick != 3 || s.Counters().Recovered != 0 {
			t.Fatalf("without redundancy the server cannot know tick 2: ack %d", ps.AckTick)
		}
	})
}

// Buffer: tick t is applied D steps after the step that follows the first
// input's arrival, whatever the arrival times after that.
func TestBufferAppliesByTickAtAFixedDelay(t *testing.T) {
	cfg := DefaultConfig
	cfg.Inputs, cfg.Buffer = Buffer, 2
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	in := func(k uint32) motion.Input { return motion.Input{Throttle: float64(k) / 10} }
	type step struct {
		arrive []uint32 // before the step
		ack    uint32
		depth  int16
	}
	for i, st := range []step{
		{arrive: []uint32{1}, ack: 0, depth: 2}, // anchored: tick 1 is due 2 steps later
		{arrive: []uint32{2}, ack: 0, depth: 2},
		{arrive: []uint32{3}, ack: 1, depth: 2},
		{arrive: nil, ack: 2, depth: 1},            // tick 4 is late...
		{arrive: []uint32{4, 5}, ack: 3, depth: 2}, // ...and bunched with 5: absorbed
		{arrive: nil, ack: 4, depth: 1},
		{arrive: nil, ack: 5, depth: 0},
		{arrive: nil, ack: 5, depth: -1}, // underrun: tick 6 missing, repeat tick 5's input
		// 6 arrives after its step with nothing buffered: resync, tick 6
		// due 2 steps later; 5 was applied, so the buffer holds for them.
		{arrive: []uint32{6, 8}, ack: 5, depth: 4},
		{arrive: nil, ack: 5, depth: 3},
		{arrive: nil, ack: 6, depth: 2},
		{arrive: nil, ack: 6, depth: 1}, // underrun: tick 7 never came
		{arrive: nil, ack: 8, depth: 0},
		{arrive: []uint32{10}, ack: 8, depth: 1},    // underrun: tick 9
		{arrive: []uint32{9, 5}, ack: 10, depth: 0}, // 9 with 10 buffered ahead: late; 5: applied long ago
	} {
		for _, k := range st.arrive {
			s.OnMoveInput(proto.MoveInput{Tick: k, Input: in(k)})
		}
		ps, _ := s.Step()
		if ps.AckTick != st.ack || ps.BufferDepth != st.depth || !ps.HasDepth {
			t.Fatalf("step %d: ack %d depth %d, want ack %d depth %d", i+1, ps.AckTick, ps.BufferDepth, st.ack, st.depth)
		}
	}
	c := s.Counters()
	if c.Applied != 8 || c.Underruns != 5 || c.Starved != 5 || c.LateDropped != 2 || c.Resyncs != 1 || c.Dropped != 0 {
		t.Fatalf("counters %+v, want 8 applied, 5 underruns, 2 late, 1 resync", c)
	}
	// Memory is bounded: a tick a whole ring ahead is dropped.
	s.OnMoveInput(proto.MoveInput{Tick: 11 + bufferCap})
	if s.Counters().Dropped != 1 {
		t.Fatal("a tick beyond the ring was stored")
	}
}

// Above 3·D + 2 the buffer drops its oldest tick each step until the
// depth is back within it.
func TestBufferSkipsWhenOverfull(t *testing.T) {
	cfg := DefaultConfig
	cfg.Inputs, cfg.Buffer = Buffer, 0
	s, _ := New(cfg)
	for k := uint32(1); k <= 5; k++ {
		s.OnMoveInput(proto.MoveInput{Tick: k, Input: fwd})
	}
	var acks []uint32
	for range 3 {
		ps, _ := s.Step()
		acks = append(acks, ps.AckTick)
	}
	if !slices.Equal(acks, []uint32{2, 4, 5}) || s.Counters().Dropped != 2 {
		t.Fatalf("acks %v dropped %d, want ticks 1 and 3 skipped (depth 5, then 3 > 2)", acks, s.Counters().Dropped)
	}
}

func TestBufferUnderrunRepeatsTheLastInput(t *testing.T) {
	cfg := DefaultConfig
	cfg.Inputs, cfg.Buffer = Buffer, 0
	s, _ := New(cfg)
	s.OnMoveInput(proto.MoveInput{Tick: 1, Input: fwd})
	a, _ := s.Step()
	b, _ := s.Step() // tick 2 missing
	if a.AckTick != 1 || b.AckTick != 1 || b.Pose.Y != 2*a.Pose.Y {
		t.Fatalf("underrun step moved %v after %v, want the same input again", b.Pose.Y-a.Pose.Y, a.Pose.Y)
	}
}

func TestSwitchingIntoAndOutOfBufferKeepsInputs(t *testing.T) {
	s := newServer(t, Queue)
	for k := uint32(1); k <= 3; k++ {
		s.OnMoveInput(proto.MoveInput{Tick: k, Input: fwd})
	}
	s.Step() // applies 1
	cfg := DefaultConfig
	cfg.Inputs, cfg.Buffer = Buffer, 0
	if err := s.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	if ps, _ := s.Step(); ps.AckTick != 2 {
		t.Fatalf("after switching to buffer the step applied %d, want 2", ps.AckTick)
	}
	cfg.Inputs = Queue
	s.SetConfig(cfg)
	if ps, _ := s.Step(); ps.AckTick != 3 {
		t.Fatalf("after switching back to queue the step applied %d, want 3", ps.AckTick)
	}
	cfg.Buffer = MaxBuffer + 1
	if err := s.SetConfig(cfg); err == nil {
		t.Fatal("server.buffer beyond the maximum accepted")
	}
}

// FuzzBufferInputs: whatever ticks arrive in whatever order, with
// whatever redundancy, the buffer applies each tick at most once, in
// increasing order, and never holds more than its ring.
func FuzzBufferInputs(f *testing.F) {
	f.Add([]byte{1, 2, 0, 3, 0, 5, 4, 0, 0, 200, 0})
	f.Add([]byte{9, 0, 0, 0, 1, 0, 255, 255, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		cfg := DefaultConfig
		cfg.Inputs, cfg.Buffer = Buffer, int(len(ops)%5)
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var last uint32
		for i, b := range ops {
			if b == 0 {
				ps, _ := s.Step()
				if ps.AckTick < last {
					t.Fatalf("ack went back from %d to %d", last, ps.AckTick)
				}
				last = ps.AckTick
				continue
			}
			m := proto.MoveInput{Tick: uint32(b) * uint32(1+i%3), Redundant: uint8(i % proto.MaxRedundancy)}
			s.OnRedundantMoveInput(m, &proto.Earlier{})
		}
		c := s.Counters()
		if c.Applied > uint64(last) || len(s.buf.slots) != bufferCap {
			t.Fatalf("applied %d up to tick %d; ring %d", c.Applied, last, len(s.buf.slots))
		}
	})
}
