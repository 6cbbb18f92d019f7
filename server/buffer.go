package server

import (
	"jitterlab/motion"
	"jitterlab/proto"
)

// MaxBuffer bounds server.buffer; the ring holds bufferCap ticks.
const (
	MaxBuffer = 64
	bufferCap = 4 * MaxBuffer
)

// inputBuffer is the Buffer mode's jitter buffer: a ring of inputs by
// client tick. The first input stored anchors it: its tick t is applied at
// the (D+1)-th step after its arrival and tick t + k k steps later, so
// inputs apply D steps behind the first arrival. Depth is how many ticks
// of input are buffered ahead of the next step: newest tick received −
// next + 1 after the step, D in the steady state, negative while the
// client is that many ticks late.
//
// A step whose tick has no input consumes that tick all the same (an
// underrun: the server simulates it with the last input and acknowledges
// it). Two rules keep a fixed anchor from going wrong for good, as jitter
// buffers do (a VoIP playout buffer resets on underrun):
//   - resync: an input arriving for a tick already passed on a guess (never
//     applied) while nothing is buffered ahead re-anchors the buffer D
//     steps behind it: ticks already consumed are not consumed again, the
//     buffer holds (simulates no tick) for those steps instead; the input
//     itself is late; with something buffered ahead it is late and nothing
//     else happens;
//   - skip: while the depth exceeds 3·D + 2 each step drops the oldest tick
//     before applying the next, draining one extra tick a step.
//
// The ring bounds memory: a tick bufferCap or more ahead of next is
// dropped.
type inputBuffer struct {
	slots    []bufferSlot
	anchored bool
	next     int64 // client tick the next step consumes (≤ 0 before tick 1 is due)
	hold     int64 // steps to wait before consuming next (a resync's re-buffering)
	newest   int64
}

type bufferSlot struct {
	tick uint32
	ok   bool
	in   motion.Input
}

type putResult uint8

const (
	putStored putResult = iota
	putLate             // for a tick already consumed, or a duplicate
	putOverflow
	putResync // late, for a tick passed on a guess, and the buffer re-anchored
)

type takeResult uint8

const (
	takeNone     takeResult = iota // not anchored, or before tick 1
	takeApplied                    // the input of tick next
	takeUnderrun                   // tick next has no input: consumed all the same
	takeHold                       // a resync's hold: no tick consumed
)

// newInputBuffer returns an empty buffer in slots (emptied), or in new
// slots when slots is nil.
func newInputBuffer(slots []bufferSlot) inputBuffer {
	if slots == nil {
		return inputBuffer{slots: make([]bufferSlot, bufferCap)}
	}
	clear(slots)
	return inputBuffer{slots: slots}
}

// put stores tick's input. The first put anchors the buffer at depth d,
// never at or before ack, the last tick simulated (in another mode
// too); applied is the last tick applied with its own input.
func (b *inputBuffer) put(tick uint32, in motion.Input, d int, applied, ack uint32) putResult {
	t := int64(tick)
	if tick <= applied || !b.anchored && tick <= ack {
		return putLate
	}
	if !b.anchored {
		b.anchored, b.newest = true, t-1
		b.anchor(t, d, ack)
	}
	switch {
	case t < b.next && b.newest >= b.next:
		return putLate
	case t < b.next: // passed on a guess, nothing ahead: re-anchor D steps behind this arrival
		b.anchor(t, d, ack)
		return putResync
	case t >= b.next+bufferCap:
		return putOverflow
	}
	s := &b.slots[tick%bufferCap]
	if s.ok && s.tick == tick {
		return putLate
	}
	*s = bufferSlot{tick: tick, ok: true, in: in}
	b.newest = max(b.newest, t)
	return putStored
}

// nextTick is the tick the next step consumes (0 before anchoring).
func (b *inputBuffer) nextTick() uint32 {
	if !b.anchored {
		return 0
	}
	return uint32(max(b.next, 0))
}

// anchor makes tick t due at the (d+1)-th step from now. Ticks at or
// before ack are never consumed again: the buffer holds (simulates no
// tick) for the steps that would have consumed them.
func (b *inputBuffer) anchor(t int64, d int, ack uint32) {
	b.next, b.hold = t-int64(d), 0
	if ack > 0 && b.next <= int64(ack) {
		b.next, b.hold = int64(ack)+1, int64(ack)+1-b.next
	}
}

// take consumes tick next, after skipping the oldest one if the depth
// exceeds 3·d + 2 (skipped reports whether that dropped an input).
func (b *inputBuffer) take(d int) (m proto.MoveInput, res takeResult, skipped bool) {
	if !b.anchored {
		return proto.MoveInput{}, takeNone, false
	}
	if b.hold > 0 {
		b.hold--
		return proto.MoveInput{}, takeHold, false
	}
	if b.newest-b.next+1 > int64(3*d+2) {
		if t := b.next; t >= 1 {
			s := &b.slots[uint32(t)%bufferCap]
			skipped = s.ok && s.tick == uint32(t)
			s.ok = false
		}
		b.next++
	}
	m, res = b.takeNext()
	return m, res, skipped
}

func (b *inputBuffer) takeNext() (proto.MoveInput, takeResult) {
	t := b.next
	b.next++
	if t < 1 {
		return proto.MoveInput{}, takeNone
	}
	s := &b.slots[uint32(t)%bufferCap]
	if !s.ok || s.tick != uint32(t) {
		return proto.MoveInput{Tick: uint32(t)}, takeUnderrun
	}
	s.ok = false
	return proto.MoveInput{Tick: s.tick, Input: s.in}, takeApplied
}

// depth is newest − next + 1 (+ the steps still held), within int16.
func (b *inputBuffer) depth() int16 {
	if !b.anchored {
		return 0
	}
	return int16(min(max(b.newest-b.next+1+b.hold, -1<<15), 1<<15-1))
}

// drain appends the buffered inputs in tick order and empties the buffer.
func (b *inputBuffer) drain(out []proto.MoveInput) []proto.MoveInput {
	if b.anchored {
		for t := max(b.next, 1); t <= b.newest; t++ {
			if s := &b.slots[uint32(t)%bufferCap]; s.ok && s.tick == uint32(t) {
				out = append(out, proto.MoveInput{Tick: s.tick, Input: s.in})
			}
		}
	}
	clear(b.slots)
	b.anchored, b.hold = false, 0
	return out
}
