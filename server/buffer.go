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
// Two rules keep a fixed anchor from going wrong for good, as jitter
// buffers do (a VoIP playout buffer resets on underrun):
//   - resync: an input arriving for a tick already passed (but never
//     applied) while nothing is buffered ahead re-anchors the buffer D
//     steps behind it: ticks already applied are not applied again, the
//     buffer holds (applies nothing, an underrun) for those steps instead;
//     with something buffered ahead the input is late and dropped;
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
	putResync // stored after re-anchoring
)

type takeResult uint8

const (
	takeNone     takeResult = iota // not anchored, or before tick 1
	takeApplied                    // the input of tick next
	takeUnderrun                   // tick next has no input
)

func newInputBuffer() inputBuffer { return inputBuffer{slots: make([]bufferSlot, bufferCap)} }

// put stores tick's input. The first put anchors the buffer at depth d,
// never at or before ack (inputs applied in another mode stay applied).
func (b *inputBuffer) put(tick uint32, in motion.Input, d int, ack uint32) putResult {
	t := int64(tick)
	if tick <= ack {
		return putLate
	}
	if !b.anchored {
		b.anchored, b.newest = true, t-1
		b.anchor(t, d, ack)
	}
	res := putStored
	switch {
	case t < b.next && b.newest >= b.next:
		return putLate
	case t < b.next: // nothing ahead: re-anchor D steps behind this arrival
		b.anchor(t, d, ack)
		res = putResync
	case t >= b.next+bufferCap:
		return putOverflow
	}
	s := &b.slots[tick%bufferCap]
	if s.ok && s.tick == tick {
		return putLate
	}
	*s = bufferSlot{tick: tick, ok: true, in: in}
	b.newest = max(b.newest, t)
	return res
}

// anchor makes tick t due at the (d+1)-th step from now. Ticks at or
// before ack are never consumed again: the buffer holds (applies nothing)
// for the steps that would have consumed them.
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
		return proto.MoveInput{}, takeUnderrun, false
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
		return proto.MoveInput{}, takeUnderrun
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
