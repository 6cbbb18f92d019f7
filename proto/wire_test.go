package proto

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"jitterlab/motion"
)

// Every message goes out in exactly the size the model's links charge for
// it, and reads back field for field (controls and poses that a float32
// holds exactly).
func TestWireRoundTripInTheModelsSizes(t *testing.T) {
	in := motion.Input{Turn: -0.5, Throttle: 1}
	earlier := Earlier{{Turn: 0.25, Throttle: -1}, {Turn: 0, Throttle: 0.5}, {Turn: 1, Throttle: 1}}
	moves := []MoveInput{{Tick: 7, Input: in}, {Tick: 1 << 31, Input: in, Redundant: 2}, {Tick: 3, Input: in, Redundant: 3}}
	for _, m := range moves {
		b, err := AppendMoveInput(nil, &m, earlier)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != m.Size() {
			t.Errorf("%+v: %d bytes, Size %d", m, len(b), m.Size())
		}
		var got WireMessage
		if err := DecodeWire(b, &got); err != nil {
			t.Fatalf("%+v: %v", m, err)
		}
		if got.Kind != WireMoveInput || got.Move != m || len(got.Earlier) != int(m.Redundant) {
			t.Fatalf("%+v read back as %+v", m, got)
		}
		for i := range got.Earlier {
			if got.Earlier[i] != earlier[i] {
				t.Errorf("earlier %d: %+v, want %+v", i, got.Earlier[i], earlier[i])
			}
		}
	}
	states := []PlayerState{
		{ServerTick: 12, Pose: motion.Pose{X: 1.5, Y: -2.25, Rot: 90}, AckTick: 10},
		{ServerTick: 12, Pose: motion.Pose{X: 1.5}, AckTick: 10, BufferDepth: -3, HasDepth: true},
		{ServerTick: 12, AckTick: 10, BufferDepth: 2, HasDepth: true, BufferTarget: 4, HasTarget: true},
	}
	for _, ps := range states {
		b, err := AppendPlayerState(nil, &ps)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != ps.Size() {
			t.Errorf("%+v: %d bytes, Size %d", ps, len(b), ps.Size())
		}
		var got WireMessage
		if err := DecodeWire(b, &got); err != nil || got.Kind != WirePlayerState || got.State != ps {
			t.Fatalf("%+v read back as %+v, %v", ps, got.State, err)
		}
	}
	var got WireMessage
	if b := AppendLogin(nil, 0xdeadbeef01); len(b) != LoginSize || DecodeWire(b, &got) != nil || got.Kind != WireLogin || got.Nonce != 0xdeadbeef01 {
		t.Errorf("login %x read back as %+v", b, got)
	}
	if b := AppendLoginAck(nil, 99); len(b) != LoginAckSize || DecodeWire(b, &got) != nil || got.Kind != WireLoginAck || got.Start != 99 {
		t.Errorf("login ack %x read back as %+v", b, got)
	}
}

// A pose goes out as float32: within half a float32 step of what the
// server computed (0.1 mm at 1 km).
func TestWirePoseIsFloat32(t *testing.T) {
	ps := PlayerState{Pose: motion.Pose{X: 1000.0001234, Y: 0.1, Rot: 1e-9}}
	b, _ := AppendPlayerState(nil, &ps)
	var got WireMessage
	if err := DecodeWire(b, &got); err != nil {
		t.Fatal(err)
	}
	if d := math.Abs(got.State.Pose.X - ps.Pose.X); d > 0.5*float64(math.Nextafter32(1000, 2000)-1000) || d == 0 {
		t.Errorf("x %v read back as %v", ps.Pose.X, got.State.Pose.X)
	}
}

// Bad datagrams: one clear line naming the message, the field or the
// length, and what is allowed; never a panic.
func TestDecodeWireRefusesWithOneLine(t *testing.T) {
	nan := math.Float32bits(float32(math.NaN()))
	bad := func(b []byte, off int, bits uint32) []byte {
		b = bytes.Clone(b)
		b[off], b[off+1], b[off+2], b[off+3] = byte(bits), byte(bits>>8), byte(bits>>16), byte(bits>>24)
		return b
	}
	move, _ := AppendMoveInput(nil, &MoveInput{Tick: 1, Input: motion.Input{Throttle: 1}}, nil)
	moveR, _ := AppendMoveInput(nil, &MoveInput{Tick: 1, Redundant: 1}, Earlier{{}})
	state, _ := AppendPlayerState(nil, &PlayerState{ServerTick: 1})
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "an empty datagram: want a message of kind 1 to 4"},
		{"unknown kind", []byte{9, 1, 2}, "a datagram of kind 9 (3 bytes): allowed kinds 1 to 4"},
		{"short login", []byte{1, 0}, "login: 2 bytes: allowed 9"},
		{"long ack", []byte{2, 0, 0, 0, 0, 0}, "login_ack: 6 bytes: allowed 5"},
		{"short move", move[:12], "move_input: 12 bytes: allowed 13, or 14 + 8·N with N earlier inputs"},
		{"count without inputs", append(bytes.Clone(move), 1), "move_input: 14 bytes: allowed 13, or 14 + 8·N"},
		{"count says 2, holds 1", append(bytes.Clone(moveR[:13]), append([]byte{2}, moveR[14:]...)...), "move_input: 22 bytes say 2 earlier inputs: allowed 1 to 61"},
		{"count 0", append(bytes.Clone(moveR[:13]), append([]byte{0}, moveR[14:]...)...), "say 0 earlier inputs"},
		{"throttle NaN", bad(move, 9, nan), "move_input: input throttle NaN: allowed [-1, 1]"},
		{"turn 2", bad(move, 5, math.Float32bits(2)), "move_input: input turn 2: allowed [-1, 1]"},
		{"earlier throttle -3", bad(moveR, 18, math.Float32bits(-3)), "move_input: earlier input 1 throttle -3: allowed [-1, 1]"},
		{"state 22 bytes", append(bytes.Clone(state), 0), "player_state: 22 bytes: allowed 21, 23 with a buffer depth or 25 with its target"},
		{"state x inf", bad(state, 5, math.Float32bits(float32(math.Inf(1)))), "player_state: pose x +Inf: allowed a finite number"},
		{"state rot NaN", bad(state, 13, nan), "player_state: pose rot NaN"},
	} {
		var m WireMessage
		err := DecodeWire(c.b, &m)
		var we *WireError
		if !errors.As(err, &we) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// The encoders refuse what the decoder would, and leave dst as it was.
func TestAppendWireRefusesWhatDecodeRefuses(t *testing.T) {
	dst := []byte("x")
	for _, c := range []struct {
		m    MoveInput
		e    Earlier
		want string
	}{
		{MoveInput{Input: motion.Input{Throttle: math.NaN()}}, nil, "move_input: input throttle NaN: allowed [-1, 1]"},
		{MoveInput{Redundant: 2}, Earlier{{}}, "move_input: 2 earlier inputs, 1 given: allowed at most 1"},
		{MoveInput{Redundant: 1}, Earlier{{Turn: -1.5}}, "move_input: earlier input 1 turn -1.5"},
	} {
		got, err := AppendMoveInput(dst, &c.m, c.e)
		if err == nil || !strings.Contains(err.Error(), c.want) || string(got) != "x" {
			t.Errorf("%+v: %q, %v; want %q", c.m, got, err, c.want)
		}
	}
	for _, c := range []struct {
		ps   PlayerState
		want string
	}{
		{PlayerState{Pose: motion.Pose{Y: math.Inf(-1)}}, "player_state: pose y -Inf: allowed a finite float32"},
		{PlayerState{Pose: motion.Pose{X: 1e39}}, "player_state: pose x 1e+39"},
		{PlayerState{HasTarget: true}, "a buffer target without a depth"},
	} {
		got, err := AppendPlayerState(dst, &c.ps)
		if err == nil || !strings.Contains(err.Error(), c.want) || string(got) != "x" {
			t.Errorf("%+v: %q, %v; want %q", c.ps, got, err, c.want)
		}
	}
}

// FuzzDecodeWire: the decoder never panics, and a datagram it accepts
// is one the encoder writes back byte for byte.
func FuzzDecodeWire(f *testing.F) {
	move, _ := AppendMoveInput(nil, &MoveInput{Tick: 5, Input: motion.Input{Turn: 0.5, Throttle: -1}, Redundant: 2}, Earlier{{}, {Turn: 1}})
	state, _ := AppendPlayerState(nil, &PlayerState{ServerTick: 3, Pose: motion.Pose{X: 1}, HasDepth: true, BufferDepth: 2, HasTarget: true})
	for _, b := range [][]byte{AppendLogin(nil, 1), AppendLoginAck(nil, 2), move, state, {4}, {3, 0}} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m WireMessage
		if err := DecodeWire(b, &m); err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("a two-line error: %q", err)
			}
			return
		}
		var out []byte
		var err error
		switch m.Kind {
		case WireLogin:
			out = AppendLogin(nil, m.Nonce)
		case WireLoginAck:
			out = AppendLoginAck(nil, m.Start)
		case WireMoveInput:
			out, err = AppendMoveInput(nil, &m.Move, m.Earlier)
		case WirePlayerState:
			out, err = AppendPlayerState(nil, &m.State)
		}
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("%x decoded as %+v, written back as %x, %v", b, m, out, err)
		}
	})
}

// BenchmarkDecodeWire is the cost of reading one MoveInput with two
// earlier inputs: what lab game's server pays a datagram.
func BenchmarkDecodeWire(b *testing.B) {
	move, _ := AppendMoveInput(nil, &MoveInput{Tick: 5, Input: motion.Input{Throttle: 1}, Redundant: 2}, Earlier{{}, {Turn: 1}})
	var m WireMessage
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeWire(move, &m); err != nil {
			b.Fatal(err)
		}
	}
}
