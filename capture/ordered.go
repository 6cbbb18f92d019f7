package capture

import (
	"container/heap"
	"time"
)

// Ordered writes events to a Writer in timestamp order when they come a
// little out of it (a relay stamps a datagram read with the kernel's
// receive time, earlier than frames it wrote before reading it). It holds
// each event until it is Window older than the newest one seen, and never
// more than MaxEvents events or MaxBytes of payload: past either bound
// the oldest is written at once, so memory stays bounded under a flood.
// An event older than one already written (it came after the window) is
// written at that one's time, its comment saying how late it is stamped,
// so the file's timestamps never go back.
type Ordered struct {
	w         *Writer
	window    time.Duration
	maxEvents int
	maxBytes  int
	held      eventHeap
	bytes     int
	newest    time.Duration
	last      time.Duration // of the last event written
	written   bool
	seq       uint64
	late      uint64
}

// Bounds of the reorder window that a relay's capture uses.
const (
	OrderWindow    = 100 * time.Millisecond
	OrderMaxEvents = 1 << 15
	OrderMaxBytes  = 8 << 20
)

// NewOrdered returns an Ordered writer over w.
func NewOrdered(w *Writer, window time.Duration, maxEvents, maxBytes int) *Ordered {
	return &Ordered{w: w, window: window, maxEvents: max(maxEvents, 1), maxBytes: maxBytes}
}

type heldEvent struct {
	e   Event
	seq uint64 // arrival order: equal timestamps keep it
}

type eventHeap []heldEvent

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	return h[i].e.At < h[j].e.At || h[i].e.At == h[j].e.At && h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(heldEvent)) }
func (h *eventHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = heldEvent{}
	*h = old[:len(old)-1]
	return x
}

// Write takes e (and its Payload, which it keeps until written) and
// writes the events that are now in order. The first error is the
// Writer's, returned by every later call.
func (o *Ordered) Write(e *Event) error {
	o.seq++
	heap.Push(&o.held, heldEvent{e: *e, seq: o.seq})
	o.bytes += len(e.Payload)
	o.newest = max(o.newest, e.At)
	for o.held.Len() > 0 && (o.held[0].e.At <= o.newest-o.window || o.held.Len() > o.maxEvents || o.bytes > o.maxBytes) {
		if err := o.pop(); err != nil {
			return err
		}
	}
	return nil
}

// pop writes the oldest event held.
func (o *Ordered) pop() error {
	h := heap.Pop(&o.held).(heldEvent)
	o.bytes -= len(h.e.Payload)
	e := &h.e
	if o.written && e.At < o.last {
		e.Late, e.At = o.last-e.At, o.last
		o.late++
	}
	o.last, o.written = e.At, true
	return o.w.Write(e)
}

// Flush writes every event held, in order.
func (o *Ordered) Flush() error {
	for o.held.Len() > 0 {
		if err := o.pop(); err != nil {
			return err
		}
	}
	return nil
}

// Held is how many events wait to be written.
func (o *Ordered) Held() int { return o.held.Len() }

// Late is how many events came after the window and were stamped late.
func (o *Ordered) Late() uint64 { return o.late }
