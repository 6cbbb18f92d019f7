package telemetry

import (
	"math"

	"jitterlab/motion"
)

// Version is the protocol version this package reads and writes: the "v"
// of every datagram. A change that an older reader would misread takes a
// new version; a new field a reader may ignore does not.
const Version = 1

// MaxSize is the largest datagram accepted, in bytes: room for every field
// of this version with full precision, and for fields of later ones, in a
// datagram no network needs to fragment.
const MaxSize = 1200

// Kind says which datagram it is: the "kind" field.
type Kind uint8

const (
	KindFrame Kind = 1 + iota // "frame": the game client, once per rendered frame
	KindTick                  // "tick": the server, once per step
)

func (k Kind) String() string {
	switch k {
	case KindFrame:
		return "frame"
	case KindTick:
		return "tick"
	}
	return "?"
}

// Frame is what the game client sends once per rendered frame. Poses are
// in the lab's units (motion.Pose: metres, degrees clockwise from +y).
type Frame struct {
	TS            float64      // t_s: the client's local time, seconds
	Frame         uint64       // frame: the rendered frame's number
	Input         motion.Input // throttle, turn: the input sampled this frame, each in [−1, 1]
	Visible       motion.Pose  // visible_*: where the player's tank is drawn
	Predicted     motion.Pose  // predicted_*: where the client's prediction has it
	TickOffset    int64        // tick_offset: server tick seen − client tick, as the client's corrector reads it
	SendIntervalS float64      // send_interval_s: the interval the client sends inputs at now
	AckTick       uint32       // ack_tick: the last tick the server acknowledged
	PendingInputs int64        // pending_inputs: inputs sent but not acknowledged
}

// Tick is what the server may send once per step, for one player. The
// input counters are cumulative since the server started, so a lost
// datagram loses no count.
type Tick struct {
	TS          float64 // t_s: the server's local time, seconds
	Tick        uint32  // tick: the step's number
	Applied     uint64  // applied: steps that applied a received input
	Overwritten uint64  // overwritten: inputs replaced by a later one before a step applied them
	Starved     uint64  // starved: steps with no new input
	Depth       int64   // depth: inputs waiting in the server's queue or buffer
}

// Datagram is one decoded datagram: a Frame or a Tick, as Kind says.
type Datagram struct {
	Kind  Kind
	Frame Frame
	Tick  Tick
}

// field is one numeric field of a datagram: its JSON name, which datagram
// carries it, and what it allows. The encoder, the decoder and the
// reference page (docs/reference/telemetry.md, checked by a test) all
// read this one table.
type field struct {
	name     string
	kind     Kind
	integer  bool // written as a whole number, digits only
	min, max float64
	doc      string
}

// maxWhole is the largest whole number a float64 holds exactly (2^53 − 1):
// the bound of counters, so every reader's doubles keep them exact.
const maxWhole = 1<<53 - 1

const (
	maxTime = 1e9 // seconds: about 31 years of uptime
	maxPos  = 1e6 // metres from the origin
	maxRot  = 1e7 // degrees: unwrapped heading, as the lab keeps it
	maxDiff = 1e6 // ticks, inputs: anything larger is a broken counter
)

// fields are the numeric fields of each kind, in the order the encoder
// writes them. "v" and "kind" precede them.
var fields = []field{
	{"t_s", KindFrame, false, 0, maxTime, "the client's local time, seconds (any clock that only goes forward)"},
	{"frame", KindFrame, true, 0, maxWhole, "the rendered frame's number"},
	{"throttle", KindFrame, false, -1, 1, "the throttle input sampled this frame"},
	{"turn", KindFrame, false, -1, 1, "the turn input sampled this frame"},
	{"visible_x_m", KindFrame, false, -maxPos, maxPos, "where the player's tank is drawn, x"},
	{"visible_y_m", KindFrame, false, -maxPos, maxPos, "where the player's tank is drawn, y"},
	{"visible_rot_deg", KindFrame, false, -maxRot, maxRot, "the drawn heading, clockwise from +y"},
	{"predicted_x_m", KindFrame, false, -maxPos, maxPos, "where the client's prediction has the tank, x"},
	{"predicted_y_m", KindFrame, false, -maxPos, maxPos, "where the client's prediction has the tank, y"},
	{"predicted_rot_deg", KindFrame, false, -maxRot, maxRot, "the predicted heading"},
	{"tick_offset", KindFrame, true, -maxDiff, maxDiff, "server tick seen − client tick, as the client's corrector reads it"},
	{"send_interval_s", KindFrame, false, 0, 60, "the interval the client sends inputs at now, seconds"},
	{"ack_tick", KindFrame, true, 0, math.MaxUint32, "the last tick the server acknowledged"},
	{"pending_inputs", KindFrame, true, 0, maxDiff, "inputs sent and not yet acknowledged"},

	{"t_s", KindTick, false, 0, maxTime, "the server's local time, seconds"},
	{"tick", KindTick, true, 0, math.MaxUint32, "the step's number"},
	{"applied", KindTick, true, 0, maxWhole, "steps that applied a received input, since the server started"},
	{"overwritten", KindTick, true, 0, maxWhole, "inputs replaced by a later one before a step applied them, since the start"},
	{"starved", KindTick, true, 0, maxWhole, "steps with no new input, since the start"},
	{"depth", KindTick, true, 0, maxDiff, "inputs waiting in the server's queue or buffer"},
}

// maxFields bounds the fields of one kind (the decoder's arrays).
const maxFields = 16

// frameFields and tickFields are the fields of each kind, in order.
var frameFields, tickFields = byKind(KindFrame), byKind(KindTick)

func byKind(k Kind) []field {
	var fs []field
	for _, f := range fields {
		if f.kind == k {
			fs = append(fs, f)
		}
	}
	return fs
}

// kindFields are the fields of kind k, in order.
func kindFields(k Kind) []field {
	switch k {
	case KindFrame:
		return frameFields
	case KindTick:
		return tickFields
	}
	return nil
}

// values are a datagram's fields in kindFields order.
type values [maxFields]float64

// frameValues and tickValues lay a datagram out as its fields; fromValues
// is the inverse. Integers within the fields' bounds convert exactly.
func frameValues(f *Frame) values {
	return values{f.TS, float64(f.Frame), f.Input.Throttle, f.Input.Turn,
		f.Visible.X, f.Visible.Y, f.Visible.Rot, f.Predicted.X, f.Predicted.Y, f.Predicted.Rot,
		float64(f.TickOffset), f.SendIntervalS, float64(f.AckTick), float64(f.PendingInputs)}
}

func tickValues(t *Tick) values {
	return values{t.TS, float64(t.Tick), float64(t.Applied), float64(t.Overwritten), float64(t.Starved), float64(t.Depth)}
}

func (v *values) frame() Frame {
	return Frame{TS: v[0], Frame: uint64(v[1]), Input: motion.Input{Throttle: v[2], Turn: v[3]},
		Visible: motion.Pose{X: v[4], Y: v[5], Rot: v[6]}, Predicted: motion.Pose{X: v[7], Y: v[8], Rot: v[9]},
		TickOffset: int64(v[10]), SendIntervalS: v[11], AckTick: uint32(v[12]), PendingInputs: int64(v[13])}
}

func (v *values) tick() Tick {
	return Tick{TS: v[0], Tick: uint32(v[1]), Applied: uint64(v[2]), Overwritten: uint64(v[3]), Starved: uint64(v[4]), Depth: int64(v[5])}
}
