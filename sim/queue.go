package sim

// Queue is a priority queue of events of type T ordered by (time, sequence):
// events at the same instant pop in the order they were pushed. It is a
// typed 4-ary heap over a slice, so in steady state (once the slice has grown
// to the peak number of pending events) Push and Pop do not allocate.
//
// The zero Queue is empty and ready to use.
type Queue[T any] struct {
	items []item[T]
	seq   uint64
}

type item[T any] struct {
	at  Time
	seq uint64
	v   T
}

func (a *item[T]) before(b *item[T]) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// Len returns the number of pending events.
func (q *Queue[T]) Len() int { return len(q.items) }

// Grow makes room for n more events without allocating later.
func (q *Queue[T]) Grow(n int) {
	if cap(q.items)-len(q.items) < n {
		items := make([]item[T], len(q.items), len(q.items)+n)
		copy(items, q.items)
		q.items = items
	}
}

// Reset empties q, keeping its memory: it is then the zero Queue (its
// sequence numbers start again) that does not allocate until it holds more
// events than it did.
func (q *Queue[T]) Reset() {
	clear(q.items) // drop references held by T
	q.items, q.seq = q.items[:0], 0
}

// Push schedules v at time at.
func (q *Queue[T]) Push(at Time, v T) {
	q.seq++
	q.PushSeq(at, q.seq, v)
}

// PushSeq schedules v at time at under sequence number seq, drawn by the
// caller from an [Order] that other queues and timers share (so their
// events can be ordered together), and larger than any q holds. A queue
// is pushed either way, not both.
func (q *Queue[T]) PushSeq(at Time, seq uint64, v T) {
	i := len(q.items)
	q.items = append(q.items, item[T]{})
	items := q.items
	// Sift up with the new item held aside, written once. Its sequence
	// number is the largest yet, so it goes before a parent only when it is
	// strictly earlier.
	for i > 0 {
		p := (i - 1) / 4
		if items[p].at <= at {
			break
		}
		items[i] = items[p]
		i = p
	}
	it := &items[i] // field by field: no wide copy of a just-built temporary
	it.at, it.seq, it.v = at, seq, v
}

// Peek returns the time of the earliest event; ok is false if q is empty.
func (q *Queue[T]) Peek() (at Time, ok bool) {
	if len(q.items) == 0 {
		return 0, false
	}
	return q.items[0].at, true
}

// PeekKey returns the (time, sequence) key of the earliest event.
func (q *Queue[T]) PeekKey() (at Time, seq uint64, ok bool) {
	if len(q.items) == 0 {
		return 0, 0, false
	}
	return q.items[0].at, q.items[0].seq, true
}

// Top returns the earliest event's time and a pointer to its value, valid
// until the queue next changes; ok is false if q is empty. With [Queue.Drop]
// it is a Pop that reads the value in place instead of copying it out.
func (q *Queue[T]) Top() (at Time, v *T, ok bool) {
	if len(q.items) == 0 {
		return 0, nil, false
	}
	return q.items[0].at, &q.items[0].v, true
}

// Pop removes and returns the earliest event; ok is false if q is empty.
func (q *Queue[T]) Pop() (at Time, v T, ok bool) {
	if len(q.items) == 0 {
		return 0, v, false
	}
	at, v = q.items[0].at, q.items[0].v
	q.Drop()
	return at, v, true
}

// Drop removes the earliest event, if any.
func (q *Queue[T]) Drop() {
	n := len(q.items)
	if n == 0 {
		return
	}
	items := q.items
	n--
	last := items[n]
	items[n] = item[T]{} // drop references held by T
	items = items[:n]
	q.items = items
	if n == 0 {
		return
	}
	// Sift the last item down from the root, held aside and written once.
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		best := c
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if items[j].before(&items[best]) {
				best = j
			}
		}
		if !items[best].before(&last) {
			break
		}
		items[i] = items[best]
		i = best
	}
	items[i] = last
}

// Timer is one pending wake-up kept outside a Queue, ordered with the
// queue's events by the same (time, sequence) rule. Re-arming replaces the
// pending wake-up, so a periodic endpoint needs no heap operation and no
// stale-event bookkeeping.
type Timer struct {
	At    Time
	Seq   uint64
	Armed bool
}

// Order draws the sequence numbers that order same-instant events across
// the queues ([Queue.PushSeq]) and timers ([Timer.Set]) that share it:
// the earlier drawn goes first. The zero Order is ready.
type Order struct{ seq uint64 }

// Next draws the next sequence number.
func (o *Order) Next() uint64 {
	o.seq++
	return o.seq
}

// Set sets the timer to at, ordered as if pushed now onto the queues that
// share o.
func (t *Timer) Set(at Time, o *Order) {
	t.At, t.Seq, t.Armed = at, o.Next(), true
}

// Before reports whether t fires before the event with key (at, seq).
func (t *Timer) Before(at Time, seq uint64) bool {
	return t.At < at || (t.At == at && t.Seq < seq)
}
