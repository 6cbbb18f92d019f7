package server

import (
	"math"
	"math/rand/v2"
	"reflect"
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
	// Empty queue: an underrun simulates tick 3 with the last input and
	// acknowledges it.
	ps, _ := s.Step()
	if ps.AckTick != 3 || ps.Pose.Y != motion.Step(motion.Pose{Y: y}, motion.Input{Throttle: 0.5}, 50*time.Millisecond, motion.DefaultTuning).Y {
		t.Fatalf("starved step %+v, want tick 3 simulated with the last input", ps)
	}
	s.OnMoveInput(proto.MoveInput{Tick: 2, Input: fwd}) // already applied
	c := s.Counters()
	if c.Arrived != 4 || c.Applied != 2 || c.LateDropped != 2 || c.Starved != 1 || c.Underruns != 1 || c.Overwritten != 0 || c.Resyncs != 0 {
		t.Fatalf("counters %+v", c)
	}
	// Tick 3 arrives after its guessed step, nothing queued: late, and the
	// queue holds one step (tick 4 is due a step after its arrival).
	s.OnMoveInput(proto.MoveInput{Tick: 3, Input: fwd})
	held, _ := s.Step()
	s.OnMoveInput(proto.MoveInput{Tick: 4, Input: fwd})
	if c := s.Counters(); held.Pose != ps.Pose || held.AckTick != 3 || c.LateDropped != 3 || c.Resyncs != 1 || c.Held != 1 {
		t.Fatalf("after the late tick 3: %+v, counters %+v; want a hold that does not move the tank", held, c)
	}
	if ps, _ := s.Step(); ps.AckTick != 4 {
		t.Fatalf("step after the hold acknowledged %d, want 4", ps.AckTick)
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
	e3 := proto.Earlier{left, fwd}

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
		if ps.AckTick != 3 || c.Recovered != 1 || c.Overwritten != 0 || c.Lost != 0 || c.Applied != 2 {
			t.Fatalf("ack %d counters %+v, want tick 2 recovered, not lost, and not counted as overwritten", ps.AckTick, c)
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
		{arrive: nil, ack: 6, depth: -1}, // underrun: tick 6 missing, simulated with tick 5's input
		// 6 arrives after its step with nothing buffered: late, and the
		// buffer re-anchors, tick 6 due 3 steps from now; ticks up to 6
		// are done, so it holds for those steps and tick 7 is due next.
		{arrive: []uint32{6, 8}, ack: 6, depth: 4},
		{arrive: nil, ack: 6, depth: 3},
		{arrive: nil, ack: 6, depth: 2},
		{arrive: nil, ack: 7, depth: 1}, // underrun: tick 7 never came
		{arrive: nil, ack: 8, depth: 0},
		{arrive: []uint32{10}, ack: 9, depth: 1},    // underrun: tick 9
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
	if c.Applied != 7 || c.Underruns != 3 || c.Held != 3 || c.Starved != 6 || c.LateDropped != 3 || c.Resyncs != 1 || c.Dropped != 0 {
		t.Fatalf("counters %+v, want 7 applied, 3 underruns, 3 held, 6 starved, 3 late, 1 resync", c)
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
	b, _ := s.Step() // tick 2 missing: simulated with tick 1's input
	if a.AckTick != 1 || b.AckTick != 2 || b.Pose.Y != 2*a.Pose.Y {
		t.Fatalf("underrun step moved %v after %v and acknowledged %d, want the same input again for tick 2", b.Pose.Y-a.Pose.Y, a.Pose.Y, b.AckTick)
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
// increasing order, and never holds more than its ring; with the auto
// depth, whatever the arrival times, the target stays in [0, MaxBuffer].
func FuzzBufferInputs(f *testing.F) {
	f.Add([]byte{1, 2, 0, 3, 0, 5, 4, 0, 0, 200, 0})
	f.Add([]byte{9, 0, 0, 0, 1, 0, 255, 255, 0})
	f.Fuzz(func(t *testing.T, ops []byte) {
		cfg := DefaultConfig
		cfg.Inputs, cfg.Buffer = Buffer, int(len(ops)%5)
		if len(ops)%2 == 1 {
			cfg.BufferMode = BufferAuto
		}
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
				if d := s.BufferTarget(); d < 0 || d > MaxBuffer || ps.HasTarget != (cfg.BufferMode == BufferAuto) {
					t.Fatalf("depth target %d (reported %v)", d, ps.HasTarget)
				}
				last = ps.AckTick
				continue
			}
			m := proto.MoveInput{Tick: uint32(b) * uint32(1+i%3), Redundant: uint8(i % proto.MaxRedundancy)}
			at := s.NextStep() - sim.Time(time.Duration(b)*time.Millisecond)
			s.OnMoveInputAt(at, m, make(proto.Earlier, m.Redundant))
		}
		c := s.Counters()
		if c.Applied > uint64(last) || len(s.buf.slots) != bufferCap {
			t.Fatalf("applied %d up to tick %d; ring %d", c.Applied, last, len(s.buf.slots))
		}
	})
}

// Issue 20 §2.1: an underrun consumes its tick. Whatever the arrivals
// (jitter, a client running late, and for the buffer loss), every
// PlayerState's pose is the state after ticks 1…ack, one step each, a
// missing tick repeating the input before it; so with one constant input
// the pose is exactly ack steps of it and the client, replaying its own
// inputs after ack, has nothing to correct. (The queue skips a lost tick
// when a later one waits: that tick is not simulated, so no loss for it.)
func TestUnderrunConsumesItsTick(t *testing.T) {
	oneStep := motion.Step(motion.Pose{}, fwd, 50*time.Millisecond, DefaultConfig.Tuning).Y
	for _, mode := range []InputMode{Queue, Buffer} {
		for seed := range uint64(5) {
			cfg := DefaultConfig
			cfg.Inputs, cfg.Buffer = mode, 2
			s, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(seed, 20))
			// Tick k is sent before step k; it arrives 0–2 steps later
			// (late by 1 or 2 steps from seed to seed) or is lost (20 %).
			arrive := map[int][]uint32{}
			late := int(seed % 3)
			for k := 1; k <= 200; k++ {
				if rng.IntN(5) == 0 && mode == Buffer && k > 1 { // no input before tick 1 to repeat
					continue
				}
				// The client falls a step further behind every 60 ticks.
				at := k + rng.IntN(2) + late + k/60
				arrive[at] = append(arrive[at], uint32(k))
			}
			var prev uint32
			for st := 1; st <= 220; st++ {
				for _, k := range arrive[st] {
					s.OnMoveInput(proto.MoveInput{Tick: k, Input: fwd})
				}
				ps, _ := s.Step()
				if ps.AckTick < prev {
					t.Fatalf("%v seed %d step %d: ack went back from %d to %d", mode, seed, st, prev, ps.AckTick)
				}
				prev = ps.AckTick
				if want := float64(ps.AckTick) * oneStep; math.Abs(ps.Pose.Y-want) > 1e-9 {
					t.Fatalf("%v seed %d step %d: pose %.4f m with ack %d, want %.4f m (ack steps of the one input)", mode, seed, st, ps.Pose.Y, ps.AckTick, want)
				}
			}
			if c := s.Counters(); c.Underruns == 0 || c.Resyncs == 0 {
				t.Fatalf("%v seed %d: %+v: the arrivals should cause underruns and resyncs", mode, seed, c)
			}
		}
	}
}

// The step-by-step rule: an underrun simulates tick next with the last
// input and acknowledges it; its input arriving later is late, and with
// nothing buffered ahead re-anchors the buffer, whose hold steps simulate
// no tick and so do not move the tank.
func TestBufferUnderrunAcknowledgesTheTickItGuessed(t *testing.T) {
	cfg := DefaultConfig
	cfg.Inputs, cfg.Buffer = Buffer, 1
	s, _ := New(cfg)
	half := motion.Input{Throttle: 0.5}
	type step struct {
		arrive []uint32
		ack    uint32
		moved  float64 // metres this step
	}
	for i, st := range []step{
		{arrive: []uint32{1}, ack: 0, moved: 0}, // tick 1 due at the 2nd step
		{arrive: []uint32{2}, ack: 1, moved: 0.1},
		{arrive: nil, ack: 2, moved: 0.05}, // tick 2 at half throttle
		{arrive: nil, ack: 3, moved: 0.05}, // underrun: tick 3 guessed with tick 2's input
		// 3 arrives late with nothing ahead: re-anchor tick 3 one step
		// behind now; ticks ≤ 3 are done, so the buffer holds 2 steps.
		{arrive: []uint32{3}, ack: 3, moved: 0},
		{arrive: []uint32{4}, ack: 3, moved: 0},
		{arrive: []uint32{5}, ack: 4, moved: 0.1},
		{arrive: nil, ack: 5, moved: 0.1},
	} {
		for _, k := range st.arrive {
			in := fwd
			if k == 2 {
				in = half
			}
			s.OnMoveInput(proto.MoveInput{Tick: k, Input: in})
		}
		before := s.pose
		ps, _ := s.Step()
		if d := motion.Distance(before, ps.Pose); ps.AckTick != st.ack || math.Abs(d-st.moved) > 1e-12 {
			t.Fatalf("step %d: ack %d moved %.3f m, want ack %d moved %.3f m", i+1, ps.AckTick, d, st.ack, st.moved)
		}
	}
	if c := s.Counters(); c.Applied != 4 || c.Underruns != 1 || c.Held != 2 || c.Resyncs != 1 || c.LateDropped != 1 || c.Starved != 3 {
		t.Fatalf("counters %+v, want 4 applied, 1 underrun (tick 3), 2 held, 1 resync, 1 late (tick 3), 3 starved", c)
	}
}

// Issue 20 §2.2: lost, recovered and overwritten are told apart. The same
// arrivals with and without redundancy: the losses it fills move from
// lost to recovered, and a latest-wins server's overwritten count stays
// what it is without copies (they never wait to be overwritten).
func TestRedundancyMovesLossesToRecoveredNotOverwritten(t *testing.T) {
	for _, mode := range []InputMode{Latest, Queue, Buffer} {
		counts := func(n int) Counters {
			s := newServer(t, mode)
			var sent [40]motion.Input
			for k := 1; k < len(sent); k++ {
				sent[k] = motion.Input{Throttle: float64(k%3) / 2}
				if k%5 == 0 { // lost
					s.Step()
					continue
				}
				m, e := proto.MoveInput{Tick: uint32(k), Input: sent[k], Redundant: uint8(min(n-1, k-1))}, make(proto.Earlier, n)
				for i := range int(m.Redundant) {
					e[i] = sent[k-1-i]
				}
				s.OnRedundantMoveInput(m, e)
				if k%7 == 0 { // bunched with the next one: latest overwrites
					continue
				}
				s.Step()
			}
			return s.Counters()
		}
		one, three := counts(1), counts(3)
		if one.Lost != 7 || one.Recovered != 0 || three.Lost != 0 || three.Recovered != 7 {
			t.Fatalf("%v: lost %d recovered %d at N = 1, lost %d recovered %d at N = 3; want the 7 losses recovered", mode, one.Lost, one.Recovered, three.Lost, three.Recovered)
		}
		if three.Overwritten != one.Overwritten || mode == Latest && one.Overwritten != 3 {
			t.Fatalf("%v: overwritten %d at N = 1, %d at N = 3; want the same (3 for latest: ticks 7, 21, 28)", mode, one.Overwritten, three.Overwritten)
		}
	}
}

// StepInto writes every field of the state Step returns, whatever *ps held
// before (a state reused from step to step carries no stale buffer depth).
func TestStepIntoWritesWhatStepReturns(t *testing.T) {
	for _, mode := range []InputMode{Latest, Queue, Buffer} {
		a, b := newServer(t, mode), newServer(t, mode)
		stale := proto.PlayerState{ServerTick: 99, Pose: motion.Pose{X: 1, Y: 2, Rot: 3}, AckTick: 98, BufferDepth: 7, HasDepth: true, BufferTarget: 6, HasTarget: true}
		for k := 1; k <= 6; k++ {
			if k%2 == 1 {
				m := proto.MoveInput{Tick: uint32(k), Input: fwd}
				a.OnMoveInput(m)
				b.OnMoveInput(m)
			}
			want, wantB := a.Step()
			got := stale
			gotB := b.StepInto(&got)
			if got != want || gotB != wantB {
				t.Fatalf("%v step %d: StepInto wrote %+v, %v; Step returned %+v, %v", mode, k, got, gotB, want, wantB)
			}
		}
	}
}

// A reset server is the server New returns, whatever it held: its inputs,
// its buffer, its counters.
func TestResetServerIsNew(t *testing.T) {
	for _, mode := range []InputMode{Latest, Queue, Buffer} {
		used := newServer(t, Buffer)
		for k := uint32(1); k <= 30; k++ {
			used.OnMoveInput(proto.MoveInput{Tick: k, Input: fwd})
			if k%3 != 0 {
				step(used)
			}
		}
		cfg := DefaultConfig
		cfg.Inputs = mode
		if err := used.Reset(cfg); err != nil {
			t.Fatal(err)
		}
		if fresh := newServer(t, mode); !reflect.DeepEqual(used, fresh) {
			t.Errorf("%v: reset server %+v\nnew %+v", mode, used, fresh)
		}
	}
	if err := newServer(t, Latest).Reset(Config{}); err == nil {
		t.Fatal("Reset accepted server.tick=0")
	}
}
