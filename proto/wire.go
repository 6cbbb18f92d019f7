package proto

import (
	"encoding/binary"
	"fmt"
	"math"

	"jitterlab/motion"
)

// The wire format: how lab game's client and server put these messages in
// UDP datagrams, in exactly the sizes above (the sizes the model's links
// charge). A datagram is one message: its kind byte, then its fields,
// little-endian, controls and poses as IEEE 754 float32.
//
//	login         1  nonce u64
//	login_ack     2  start tick u32
//	move_input    3  tick u32, turn f32, throttle f32
//	                 [count u8 (1..MaxEarlier), count × (turn f32, throttle f32)]
//	player_state  4  tick u32, x f32, y f32, rot f32, ack u32
//	                 [depth i16 [target i16]]
//
// An optional part is there when the datagram is long enough for it: a
// PlayerState with a target has a depth (the server sets one only with
// its buffer). A float32 keeps a pose within 0.1 mm at 1 km from the
// origin.
const (
	WireLogin       byte = 1
	WireLoginAck    byte = 2
	WireMoveInput   byte = 3
	WirePlayerState byte = 4
)

// WireMessage is one decoded datagram: Kind says which fields it holds.
type WireMessage struct {
	Kind    byte
	Nonce   uint64 // WireLogin
	Start   uint32 // WireLoginAck: the server's tick when it answered
	Move    MoveInput
	Earlier Earlier // WireMoveInput: the inputs Move repeats; decoding reuses its memory
	State   PlayerState
}

// WireError is a datagram the decoder refuses: which message it looked
// like and what is wrong, in one line.
type WireError struct{ Msg string }

func (e *WireError) Error() string { return e.Msg }

func wireErrorf(format string, args ...any) error {
	return &WireError{Msg: fmt.Sprintf(format, args...)}
}

// AppendLogin appends a Login datagram.
func AppendLogin(dst []byte, nonce uint64) []byte {
	return binary.LittleEndian.AppendUint64(append(dst, WireLogin), nonce)
}

// AppendLoginAck appends a LoginAck datagram.
func AppendLoginAck(dst []byte, start uint32) []byte {
	return binary.LittleEndian.AppendUint32(append(dst, WireLoginAck), start)
}

// AppendMoveInput appends m's datagram with the first m.Redundant inputs
// of e: m.Size() bytes. It refuses a control outside [−1, 1] or not a
// number, and more earlier inputs than e holds or MaxEarlier allows, with
// dst unchanged.
func AppendMoveInput(dst []byte, m *MoveInput, e Earlier) ([]byte, error) {
	if int(m.Redundant) > len(e) || m.Redundant > MaxEarlier {
		return dst, wireErrorf("move_input: %d earlier inputs, %d given: allowed at most %d", m.Redundant, len(e), min(len(e), MaxEarlier))
	}
	if err := checkInput(m.Input, 0); err != nil {
		return dst, err
	}
	for i := range int(m.Redundant) {
		if err := checkInput(e[i], i+1); err != nil {
			return dst, err
		}
	}
	le := binary.LittleEndian
	dst = le.AppendUint32(append(dst, WireMoveInput), m.Tick)
	dst = appendInput(dst, m.Input)
	if m.Redundant > 0 {
		dst = append(dst, m.Redundant)
		for _, in := range e[:m.Redundant] {
			dst = appendInput(dst, in)
		}
	}
	return dst, nil
}

// AppendPlayerState appends ps's datagram: ps.Size() bytes. It refuses a
// pose that is not finite or beyond float32's range, and a target without
// a depth, with dst unchanged.
func AppendPlayerState(dst []byte, ps *PlayerState) ([]byte, error) {
	if ps.HasTarget && !ps.HasDepth {
		return dst, wireErrorf("player_state: a buffer target without a depth: the server sends a target only with its buffer's depth")
	}
	for _, f := range [...]struct {
		name string
		v    float64
	}{{"x", ps.Pose.X}, {"y", ps.Pose.Y}, {"rot", ps.Pose.Rot}} {
		if math.IsNaN(f.v) || math.Abs(f.v) > math.MaxFloat32 {
			return dst, wireErrorf("player_state: pose %s %v: allowed a finite float32", f.name, f.v)
		}
	}
	le := binary.LittleEndian
	dst = le.AppendUint32(append(dst, WirePlayerState), ps.ServerTick)
	dst = le.AppendUint32(dst, math.Float32bits(float32(ps.Pose.X)))
	dst = le.AppendUint32(dst, math.Float32bits(float32(ps.Pose.Y)))
	dst = le.AppendUint32(dst, math.Float32bits(float32(ps.Pose.Rot)))
	dst = le.AppendUint32(dst, ps.AckTick)
	if ps.HasDepth {
		dst = le.AppendUint16(dst, uint16(ps.BufferDepth))
		if ps.HasTarget {
			dst = le.AppendUint16(dst, uint16(ps.BufferTarget))
		}
	}
	return dst, nil
}

func appendInput(dst []byte, in motion.Input) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(in.Turn)))
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(in.Throttle)))
}

// checkInput refuses a control outside [−1, 1] (NaN included) of a
// MoveInput's own input (earlier 0) or of its earlier input number earlier.
func checkInput(in motion.Input, earlier int) error {
	for _, c := range [...]struct {
		name string
		v    float64
	}{{"turn", in.Turn}, {"throttle", in.Throttle}} {
		if !(c.v >= -1 && c.v <= 1) {
			what := "input"
			if earlier > 0 {
				what = fmt.Sprintf("earlier input %d", earlier)
			}
			return wireErrorf("move_input: %s %s %v: allowed [-1, 1]", what, c.name, c.v)
		}
	}
	return nil
}

// kindNames name the kinds in errors.
var kindNames = [...]string{"", "login", "login_ack", "move_input", "player_state"}

// DecodeWire reads datagram b into m. It refuses, with a [*WireError]
// naming the message, the field and what is allowed, a datagram of an
// unknown kind, of a length its kind does not have, or with a control
// outside [−1, 1] or a pose that is not finite; m is then undefined. It
// never panics, and allocates only when m.Earlier must grow.
func DecodeWire(b []byte, m *WireMessage) error {
	if len(b) == 0 {
		return wireErrorf("an empty datagram: want a message of kind 1 to 4")
	}
	m.Kind = b[0]
	le := binary.LittleEndian
	switch m.Kind {
	case WireLogin:
		if len(b) != LoginSize {
			return badLength(b, fmt.Sprint(LoginSize))
		}
		m.Nonce = le.Uint64(b[1:])
	case WireLoginAck:
		if len(b) != LoginAckSize {
			return badLength(b, fmt.Sprint(LoginAckSize))
		}
		m.Start = le.Uint32(b[1:])
	case WireMoveInput:
		return decodeMove(b, m)
	case WirePlayerState:
		if len(b) != PlayerStateSize && len(b) != PlayerStateSize+2 && len(b) != PlayerStateSize+4 {
			return badLength(b, fmt.Sprintf("%d, %d with a buffer depth or %d with its target", PlayerStateSize, PlayerStateSize+2, PlayerStateSize+4))
		}
		ps := &m.State
		*ps = PlayerState{ServerTick: le.Uint32(b[1:]), AckTick: le.Uint32(b[17:])}
		ps.Pose = motion.Pose{X: readFloat(b[5:]), Y: readFloat(b[9:]), Rot: readFloat(b[13:])}
		for _, f := range [...]struct {
			name string
			v    float64
		}{{"x", ps.Pose.X}, {"y", ps.Pose.Y}, {"rot", ps.Pose.Rot}} {
			if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
				return wireErrorf("player_state: pose %s %v: allowed a finite number", f.name, f.v)
			}
		}
		if len(b) >= PlayerStateSize+2 {
			ps.BufferDepth, ps.HasDepth = int16(le.Uint16(b[PlayerStateSize:])), true
		}
		if len(b) == PlayerStateSize+4 {
			ps.BufferTarget, ps.HasTarget = int16(le.Uint16(b[PlayerStateSize+2:])), true
		}
	default:
		return wireErrorf("a datagram of kind %d (%d bytes): allowed kinds 1 to 4 (login, login_ack, move_input, player_state)", m.Kind, len(b))
	}
	return nil
}

func decodeMove(b []byte, m *WireMessage) error {
	le := binary.LittleEndian
	m.Earlier = m.Earlier[:0]
	if len(b) < MoveInputSize || len(b) == MoveInputSize+1 || (len(b) > MoveInputSize && (len(b)-MoveInputSize-1)%RedundantInputSize != 0) {
		return badLength(b, fmt.Sprintf("%d, or %d + %d·N with N earlier inputs", MoveInputSize, MoveInputSize+1, RedundantInputSize))
	}
	m.Move = MoveInput{Tick: le.Uint32(b[1:]), Input: readInput(b[5:])}
	if err := checkInput(m.Move.Input, 0); err != nil {
		return err
	}
	if len(b) == MoveInputSize {
		return nil
	}
	n := int(b[MoveInputSize])
	if n < 1 || n > MaxEarlier || len(b) != MoveInputSize+1+n*RedundantInputSize {
		return wireErrorf("move_input: %d bytes say %d earlier inputs: allowed 1 to %d, %d bytes each", len(b), n, MaxEarlier, RedundantInputSize)
	}
	m.Move.Redundant = uint8(n)
	for i := range n {
		in := readInput(b[MoveInputSize+1+i*RedundantInputSize:])
		if err := checkInput(in, i+1); err != nil {
			return err
		}
		m.Earlier = append(m.Earlier, in)
	}
	return nil
}

func badLength(b []byte, want string) error {
	return wireErrorf("%s: %d bytes: allowed %s", kindNames[b[0]], len(b), want)
}

func readFloat(b []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))) }

func readInput(b []byte) motion.Input {
	return motion.Input{Turn: readFloat(b), Throttle: readFloat(b[4:])}
}
