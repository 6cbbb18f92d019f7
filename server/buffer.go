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
// client tick. The first input stored anchors it: tick t is applied at the
// (D+1)-th step after t's arrival, so the step that consumes tick next
// runs D steps behind the arrival of the first input, for good; what
// arrives for a tick already consumed is late. Depth is how many ticks of
// input are buffered ahead of the next step: newest tick received − next
// + 1 after the step, D in the steady state, negative while the client is
// that many ticks late. The ring bounds memory: a tick bufferCap or more
// ahead of next is dropped (an overflow).
type inputBuffer struct {
	slots    []bufferSlot
	anchored bool
	next     int64 // client tick the next step consumes (≤ 0 before tick 1 is due)
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
		b.anchored, b.next, b.newest = true, t-int64(d), t-1
		if ack > 0 {
			b.next = max(b.next, int64(ack)+1)
		}
	}
	switch {
	case t < b.next:
		return putLate
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

// take consumes tick next.
func (b *inputBuffer) take() (proto.MoveInput, takeResult) {
	if !b.anchored {
		return proto.MoveInput{}, takeNone
	}
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

// depth is newest − next + 1, within int16.
func (b *inputBuffer) depth() int16 {
	if !b.anchored {
		return 0
	}
	return int16(min(max(b.newest-b.next+1, -1<<15), 1<<15-1))
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
	b.anchored = false
	return out
}
