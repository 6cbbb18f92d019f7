package proto

import "jitterlab/motion"

// MoveInput is one client send: the client tick and the controls, and
// with client.redundancy the count of earlier ticks' inputs the packet
// repeats (they travel beside it as an [Earlier], so the common packet
// stays small), so the server can fill the gap a lost packet leaves.
type MoveInput struct {
	Tick      uint32
	Input     motion.Input
	Redundant uint8 // earlier inputs carried, ≤ MaxEarlier
}

// Earlier holds the inputs a MoveInput repeats: [i] is the input of tick
// Tick − 1 − i, for i < Redundant.
type Earlier []motion.Input

// MaxRedundancy is the most inputs one MoveInput carries with a fixed
// client.redundancy N (its own and N − 1 earlier ones).
const MaxRedundancy = 4

// MaxMoveInputPayload bounds a MoveInput with its earlier inputs: 508
// bytes, the UDP payload every IPv4 path carries unfragmented (RFC 791's
// 576-byte datagram less a 60-byte IP and an 8-byte UDP header). It holds
// MaxEarlier earlier inputs, about 3 s of them at 20 Hz.
const (
	MaxMoveInputPayload = 508
	MaxEarlier          = (MaxMoveInputPayload - MoveInputSize - 1) / RedundantInputSize
)

// Size is the payload size in bytes: with earlier inputs, a count byte and
// each earlier input's controls on top of MoveInputSize.
func (m *MoveInput) Size() int {
	if m.Redundant == 0 {
		return MoveInputSize
	}
	return MoveInputSize + 1 + int(m.Redundant)*RedundantInputSize
}

// PlayerState is one server broadcast.
type PlayerState struct {
	ServerTick uint32      // the server's step counter, from 1
	Pose       motion.Pose // authoritative pose after the step
	AckTick    uint32      // tick of the last MoveInput applied; 0 before any
	// With server.inputs = buffer: ticks of input buffered ahead of the next
	// step (the client's time dilation keeps it at server.buffer).
	BufferDepth int16
	HasDepth    bool
	// With server.buffer_mode = auto: the depth target the server sets
	// (the client's time dilation aims at it).
	BufferTarget int16
	HasTarget    bool
}

// Size is the payload size in bytes: the buffer depth adds 2, its
// target 2 more.
func (ps *PlayerState) Size() int {
	n := PlayerStateSize
	if ps.HasDepth {
		n += 2
	}
	if ps.HasTarget {
		n += 2
	}
	return n
}

// Wire sizes in bytes of the payloads (without UDP/IP overhead), as the
// rate limit counts them.
const (
	MoveInputSize      = 1 + 4 + 4 + 4   // kind, tick, turn, throttle
	RedundantInputSize = 4 + 4           // turn, throttle of each earlier input
	PlayerStateSize    = 1 + 4 + 3*4 + 4 // kind, tick, x, y, rot, ack
	LoginSize          = 1 + 8           // kind, nonce
	LoginAckSize       = 1 + 4           // kind, start tick
	UDPIPv4Overhead    = 28              // bytes per packet on the wire
)
