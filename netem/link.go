package netem

import (
	"math"
	"math/rand/v2"
	"time"

	"jitterlab/detmath"
	"jitterlab/sim"
)

// Packet is what a link carries: an ID the caller uses to find its payload,
// and the payload size in bytes (the rate adds Params.Overhead).
type Packet struct {
	ID   uint64
	Size int
}

// SendResult says what became of a sent packet's copies. Copies that were
// scheduled have their delivery times in At[:Scheduled]; the caller wakes
// the link at each of them with [Link.Deliver].
type SendResult struct {
	Seq          uint64      // the link's send sequence number, from 1
	Scheduled    int         // copies scheduled for delivery (0, 1 or 2)
	At           [2]sim.Time // their delivery times
	Duplicated   bool        // a second copy was made
	Lost         int         // copies dropped by the loss model
	QueueDropped int         // copies dropped at the queue limit
	// Fate is what became of each copy: Fate[0] the original, Fate[1] the
	// duplicate (FateNone when there is none).
	Fate [2]Fate
}

// Fate is what became of one copy of a sent packet.
type Fate uint8

const (
	FateNone         Fate = iota // no such copy
	FateScheduled                // scheduled for delivery
	FateLost                     // dropped by the loss model
	FateQueueDropped             // dropped at the queue limit
)

// Delivery is one copy arriving at the far end.
type Delivery struct {
	Packet
	Seq       uint64   // the link's send sequence number of the original, from 1
	SentAt    sim.Time // when Send was called
	At        sim.Time // when it arrives
	Copy      int      // 0 for the original, 1 for the duplicate
	Reordered bool     // it arrived after a packet sent later than it
}

// Counters are one direction's cumulative totals.
type Counters struct {
	Sent         uint64 // packets handed to Send (originals)
	Duplicated   uint64 // extra copies made
	Lost         uint64 // copies dropped by the loss model
	QueueDropped uint64 // copies dropped at the queue limit (the shaper's drops included)
	ShapeDropped uint64 // of those, copies dropped by the shaper (FIFO limit or larger than the bucket)
	Delivered    uint64 // copies delivered
	Reordered    uint64 // copies that arrived after a later-sent packet
	Spiked       uint64 // copies held back by a spike
}

// Link is one direction of a link. Per packet, in netem's order:
//
//	duplicate → loss → queue limit → reorder-or-delay (+ bad-state delay) →
//	rate → slot → shaper → spike → keep-order → deliver
//
// The slot stage is netem's slotted release (it acts at netem's dequeue,
// after the rate). The shaper is tc's tbf after netem: it sees each copy at
// the time netem hands it over. Both take copies in send order.
//
// Each copy of a duplicated packet passes loss, queue, delay and rate on its
// own, so the copy may overtake the original. A packet the reorder draw
// sends at once skips the rate too, as in Linux netem. A parameter change applies
// to packets sent after it; packets in flight keep their times. All
// randomness comes from named streams of the session seed, one per stage
// (name+".dup", ".loss", ".reorder", ".jitter", ".slot", ".spike"), so enabling one
// mechanism never changes the draws of another.
type Link struct {
	p  Params
	ge GilbertElliott
	// useGE: loss follows ge; useGI: netem's 4-state model p.GI;
	// otherwise Bernoulli with p.Loss.
	useGE, useGI bool
	bad          bool // Gilbert-Elliott state
	giState      int8 // 4-state model state, 1..4

	streams                           *streams // the rands below draw from it
	dup, loss, reorder, jitter, spike *rand.Rand

	z      float64 // AR(1) state in Gaussian space
	zReady bool
	count  int // netem's reorder counter: normally delayed packets since the last reorder

	slot  slotter
	shape shaper

	lastTx  sim.Time // when the rate stage finished the last packet
	lastAt  sim.Time // latest scheduled delivery (for KeepOrder)
	seq     uint64
	maxSeen uint64 // highest Seq delivered so far

	flight sim.Queue[flight]
	order  *sim.Order // the order the caller shares (ShareOrder), or nil
	c      Counters
	tr     traceState // trace mode (trace.go)
}

// flight is one scheduled copy. It is four words, so the compiler keeps it
// in registers and the queue stores it field by field: a larger struct is
// built on the stack and copied with wide loads, which stall on the
// narrow stores that just built it (store forwarding).
type flight struct {
	id       uint64
	seq      uint64
	sentAt   sim.Time
	sizeCopy uint64 // uint32 payload size << 1 | copy (0 the original, 1 the duplicate)
}

func (f *flight) size() int { return int(uint32(f.sizeCopy >> 1)) }
func (f *flight) copy() int { return int(f.sizeCopy & 1) }

// New returns a link whose streams derive from seed and name ("up",
// "down"). p must be valid (see [Params.Validate]).
func New(seed uint64, name string, p Params) (*Link, error) {
	l := new(Link)
	if err := l.Reset(seed, name, p); err != nil {
		return nil, err
	}
	return l, nil
}

// Reset makes l the link New(seed, name, p) returns, reusing its memory
// (its streams, its queue of copies in flight, the shaper's FIFO). After an
// error l must be Reset again before use.
func (l *Link) Reset(seed uint64, name string, p Params) error {
	if err := p.Validate(name); err != nil {
		return err
	}
	st := l.streams
	if st == nil {
		st = new(streams)
		for i := range st.pcg {
			st.r[i] = rand.New(&st.pcg[i])
		}
	}
	for i, suffix := range streamNames {
		sim.Seed(&st.pcg[i], seed, name, suffix)
	}
	flight, fifo := l.flight, l.shape.fifo
	flight.Reset()
	if fifo == nil {
		fifo = newShaper().fifo
	}
	clear(fifo)
	*l = Link{streams: st, dup: st.r[0], loss: st.r[1], reorder: st.r[2], jitter: st.r[3], spike: st.r[4],
		flight: flight, shape: shaper{fifo: fifo}}
	l.slot.r = st.r[5]
	l.flight.Grow(64)
	return l.SetParams(p, name)
}

// streams are a link's random streams, one per stage, in the order of
// streamNames.
type streams struct {
	pcg [6]rand.PCG
	r   [6]*rand.Rand // over pcg
}

var streamNames = [...]string{".dup", ".loss", ".reorder", ".jitter", ".spike", ".slot"}

// SetParams changes the settings for packets sent from now on. The loss
// state, the jitter correlation state and the reorder counter carry over.
// prefix names the registry keys in errors ("up", "down").
func (l *Link) SetParams(p Params, prefix string) error {
	if err := p.Validate(prefix); err != nil {
		return err
	}
	l.p = p
	l.ge, l.useGE = p.lossModel()
	l.useGI = !p.GI.isZero()
	if l.giState == 0 {
		l.giState = 1 // netem starts in TX_IN_GAP_PERIOD
	}
	l.slot.configure(p.Slot)
	l.shape.configure(p)
	return nil
}

// Params returns the settings in force.
func (l *Link) Params() Params { return l.p }

// Counters returns the cumulative totals.
func (l *Link) Counters() Counters { return l.c }

// InFlight is the number of copies scheduled and not yet delivered: the
// occupancy the queue limit compares with.
func (l *Link) InFlight() int { return l.flight.Len() }

// NextDelivery returns the earliest scheduled delivery time.
func (l *Link) NextDelivery() (sim.Time, bool) { return l.flight.Peek() }

// ShareOrder makes the link order its copies in flight by sequence
// numbers drawn from o, one per copy scheduled, in the order Send
// schedules them (until the next Reset): a caller whose own events and
// other links draw from o too can then wake the link at each copy from
// [Link.NextKey], in the one (time, sequence) order of all its events,
// without a queue of its own for the deliveries.
func (l *Link) ShareOrder(o *sim.Order) { l.order = o }

// NextKey returns the earliest scheduled copy's delivery time and
// sequence number (see [Link.ShareOrder]); ok is false when none is in
// flight.
func (l *Link) NextKey() (at sim.Time, seq uint64, ok bool) { return l.flight.PeekKey() }

// Send hands a packet to the link at now.
func (l *Link) Send(now sim.Time, pkt Packet) SendResult {
	var res SendResult
	l.SendInto(&res, now, pkt)
	return res
}

// SendInto is Send writing the result into *res, for a caller on a hot
// path: a result returned by value is copied with wide loads right after
// Send's narrow stores, which stalls on store forwarding.
func (l *Link) SendInto(res *SendResult, now sim.Time, pkt Packet) {
	l.seq++
	*res = SendResult{Seq: l.seq}
	l.c.Sent++
	copies := 1
	if l.p.Duplicate > 0 && l.dup.Float64() < l.p.Duplicate {
		copies = 2
		res.Duplicated = true
		l.c.Duplicated++
	}
	for c := range copies {
		lost, bad := l.loseAt(now)
		if lost || l.p.Blackout {
			res.Lost++
			l.c.Lost++
			res.Fate[c] = FateLost
			continue
		}
		if l.p.Queue > 0 && l.flight.Len() >= l.p.Queue {
			res.QueueDropped++
			l.c.QueueDropped++
			res.Fate[c] = FateQueueDropped
			continue
		}
		d, skip := l.delayAt()
		if bad {
			d = min(d+l.p.BadDelay, MaxDelay)
		}
		at := now.Add(d)
		if l.p.Rate > 0 && !skip {
			start := max(at, l.lastTx)
			if start.Sub(at) > MaxBacklog {
				res.QueueDropped++
				l.c.QueueDropped++
				res.Fate[c] = FateQueueDropped
				continue
			}
			at = start.Add(l.txTime(pkt.Size))
			l.lastTx = at
		}
		if l.p.Slot.On() {
			out, ok := l.slot.send(at, pkt.Size+l.p.Overhead)
			if !ok {
				res.QueueDropped++
				l.c.QueueDropped++
				res.Fate[c] = FateQueueDropped
				continue
			}
			at = out
		}
		if l.shape.on {
			out, ok := l.shape.send(at, pkt.Size+l.p.Overhead)
			if !ok {
				res.QueueDropped++
				l.c.QueueDropped++
				l.c.ShapeDropped++
				res.Fate[c] = FateQueueDropped
				continue
			}
			at = out
		}
		if l.p.Spike > 0 && l.spike.Float64() < l.p.Spike {
			at = at.Add(l.p.SpikeDelay)
			l.c.Spiked++
		}
		if l.p.KeepOrder {
			at = max(at, l.lastAt)
		}
		l.lastAt = max(l.lastAt, at)
		res.Fate[c] = FateScheduled
		f := flight{id: pkt.ID, seq: l.seq, sentAt: now, sizeCopy: uint64(uint32(pkt.Size))<<1 | uint64(c)}
		if l.order != nil {
			l.flight.PushSeq(at, l.order.Next(), f)
		} else {
			l.flight.Push(at, f)
		}
		res.At[res.Scheduled] = at
		res.Scheduled++
	}
}

// Deliver pops the earliest scheduled copy if it is due at or before now.
// The caller calls it once at each time Send returned in SendResult.At.
func (l *Link) Deliver(now sim.Time) (Delivery, bool) {
	var d Delivery
	ok := l.DeliverInto(&d, now)
	return d, ok
}

// DeliverInto is Deliver writing the delivery into *d (left as it was when
// nothing is due), for a caller on a hot path: see [Link.SendInto].
func (l *Link) DeliverInto(d *Delivery, now sim.Time) bool {
	at, f, ok := l.flight.Top()
	if !ok || at > now {
		return false
	}
	d.ID, d.Size, d.Seq, d.SentAt, d.At, d.Copy, d.Reordered = f.id, f.size(), f.seq, f.sentAt, at, f.copy(), false
	l.flight.Drop() // f is not read after this
	if d.Seq < l.maxSeen {
		d.Reordered = true
		l.c.Reordered++
	}
	l.maxSeen = max(l.maxSeen, d.Seq)
	l.c.Delivered++
	return true
}

// lose draws the loss decision for one copy, and whether the loss model
// was in its bad state for it (BadDelay applies to the copy if it gets
// through). Gilbert-Elliott decides with the current state's loss
// probability, then moves the state (netem order); the 4-state model moves
// first and loses the packet if it lands in 3 or 4 (netem's loss_4state).
func (l *Link) lose() (lost, bad bool) {
	switch {
	case l.useGI:
		return l.lose4()
	case !l.useGE:
		return l.p.Loss > 0 && l.loss.Float64() < l.p.Loss, false
	}
	bad = l.bad
	if l.bad {
		lost = l.loss.Float64() < l.ge.LossBad
		if l.loss.Float64() < l.ge.R {
			l.bad = false
		}
	} else {
		lost = l.loss.Float64() < l.ge.LossGood
		if l.loss.Float64() < l.ge.P {
			l.bad = true
		}
	}
	return lost, bad
}

// lose4 steps netem's 4-state chain with one uniform draw u, comparing it
// with the cumulative transition probabilities as sch_netem.c does. The
// burst period (states 2 and 3) is the bad state.
func (l *Link) lose4() (lost, bad bool) {
	g, u := l.p.GI, l.loss.Float64()
	switch l.giState {
	case 1:
		switch {
		case u < g.P14:
			l.giState = 4
		case u < g.P14+g.P13:
			l.giState = 3
		}
	case 2:
		if u < g.P23 {
			l.giState = 3
		}
	case 3:
		switch {
		case u < g.P32:
			l.giState = 2
		case u < g.P32+g.P31:
			l.giState = 1
		}
	case 4:
		l.giState = 1
	}
	return l.giState >= 3, l.giState == 2 || l.giState == 3
}

// delay returns latency plus jitter, or 0 with skip set for a packet
// netem's reorder sends at once: after gap−1 normally delayed packets, each
// packet is sent immediately with probability Reorder. Such a packet also
// skips the rate, as in netem (it goes to the head of the queue with
// time_to_send = now). A negative delay is 0, and a delay is at most
// MaxDelay.
func (l *Link) delay() (d time.Duration, skip bool) {
	if l.p.Reorder > 0 {
		gap := max(l.p.ReorderGap, 1)
		if l.count >= gap-1 && l.reorder.Float64() < l.p.Reorder {
			l.count = 0
			return 0, true
		}
		l.count++
	}
	d = l.p.Latency
	if l.p.Jitter > 0 {
		// In float, capped before the conversion: a pareto tail draw can
		// exceed any int64.
		j := float64(l.p.Jitter) * l.offset()
		d += time.Duration(math.Round(min(j, float64(MaxDelay))))
	}
	return min(max(d, 0), MaxDelay), false
}

// offset is the next jitter draw in units of Jitter: the distribution's
// offset of the next AR(1) state, or, for an uncorrelated uniform jitter, a
// uniform number in [−1, 1) drawn directly (the same law without a normal
// draw and its erf; a correlation set later starts its chain afresh).
func (l *Link) offset() float64 {
	if l.p.JitterDist == Uniform && l.p.JitterCorr == 0 {
		l.zReady = false
		u := float64(l.jitter.Float64()) // rounded here: Float64's inlined product is not fused into 2u − 1
		return float64(2*u) - 1
	}
	return l.p.JitterDist.offset(l.nextZ())
}

// nextZ advances the AR(1) process z = ρ·z_prev + sqrt(1−ρ²)·ε, started in
// its stationary law N(0, 1), so every draw is standard normal and the lag-1
// correlation in Gaussian space is ρ.
func (l *Link) nextZ() float64 {
	e := detmath.NormFloat64(l.jitter)
	if !l.zReady {
		l.z, l.zReady = e, true
		return l.z
	}
	rho := l.p.JitterCorr
	if rho == 0 {
		// The same bits as the formula (±0 + 1·e), without its square root.
		l.z = e
		return l.z
	}
	l.z = float64(rho*l.z) + float64(math.Sqrt(1-float64(rho*rho))*e)
	return l.z
}

// txTime is the serialisation time of size+overhead bytes at the rate,
// rounded to the nearest nanosecond.
func (l *Link) txTime(size int) time.Duration {
	bits := int64(size+l.p.Overhead) * 8
	return time.Duration((bits*1e9 + l.p.Rate/2) / l.p.Rate)
}
