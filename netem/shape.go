package netem

import (
	"time"

	"golang.org/x/time/rate"

	"jitterlab/sim"
)

// Shaper limits: they keep the token arithmetic far inside int64 and
// float64's exact integers.
const (
	MaxShapeBytes = 1 << 30 // shape_burst and shape_limit, bytes
)

// DefaultShapeBurst is the bucket size when shape_burst is 0: one
// Ethernet MTU, the smallest bucket that passes every full-size packet.
const DefaultShapeBurst = 1500

// shaper is tc's tbf after the netem stages: a token bucket of burst
// bytes filled at rate, in front of a FIFO of at most limit bytes. A packet
// leaves when the bucket holds its size in tokens; a packet that would make
// the FIFO exceed limit, or that is larger than the bucket, is dropped
// (sch_tbf's enqueue to its bfifo child, and its max_size check). The
// bucket is golang.org/x/time/rate's Limiter driven by explicit times
// (ReserveN(t, n)): time is never read.
type shaper struct {
	lim   *rate.Limiter
	limit int64 // FIFO limit in bytes
	on    bool
	dirty bool // rate or burst changed: apply when the next packet is reserved
	p     Params

	lastIn  sim.Time // arrival of the previous packet (the FIFO is in send order)
	resAt   sim.Time // time of the latest reservation (never moves back)
	lastOut sim.Time // latest departure
	// fifo holds the packets still waiting at lastIn: departure times and
	// sizes, oldest first, in a ring.
	fifo      []shapeEntry
	head, n   int
	fifoBytes int64
}

type shapeEntry struct {
	at    sim.Time
	bytes int64
}

func newShaper() shaper {
	return shaper{fifo: make([]shapeEntry, 64)}
}

// configure takes new parameters; the bucket keeps its tokens and takes
// the new rate and size from the next packet on, once the packets already
// queued have left (see send).
func (s *shaper) configure(p Params) {
	wasOn := s.on
	s.on = p.ShapeRate > 0
	switch {
	case s.on && !wasOn:
		// tbf starts with a full bucket (tc-tbf(8)); a new Limiter
		// fills to its burst at its first reservation.
		s.lim = rate.NewLimiter(rate.Limit(float64(p.ShapeRate)/8), p.shapeBurst())
		s.dirty = false
	case p.ShapeRate != s.p.ShapeRate || p.ShapeBurst != s.p.ShapeBurst:
		s.dirty = true
	}
	s.p = p
	s.limit = p.shapeLimitBytes()
}

// burst is the bucket size in bytes.
func (p Params) shapeBurst() int {
	if p.ShapeBurst == 0 {
		return DefaultShapeBurst
	}
	return p.ShapeBurst
}

// shapeLimitBytes is the FIFO limit as tc computes it: shape_limit bytes,
// or rate·latency + burst for a limit given as time (tc's q_tbf.c), or,
// for no limit, what the rate drains in MaxBacklog plus the burst.
func (p Params) shapeLimitBytes() int64 {
	bytesPerSec := float64(p.ShapeRate) / 8
	switch {
	case p.ShapeLimit > 0:
		return int64(p.ShapeLimit)
	case p.ShapeLatency > 0:
		return int64(bytesPerSec*p.ShapeLatency.Seconds()) + int64(p.shapeBurst())
	}
	return int64(bytesPerSec*MaxBacklog.Seconds()) + int64(p.shapeBurst())
}

func wall(t sim.Time) time.Time { return time.Unix(0, int64(t)) }

// send passes a packet of size bytes arriving at in (not before the
// previous arrival) and returns when it leaves, or ok=false when it is
// dropped at the limit.
func (s *shaper) send(in sim.Time, size int) (out sim.Time, ok bool) {
	in = max(in, s.lastIn)
	s.lastIn = in
	// The bucket is asked at tRes ≥ every earlier reservation. Normally
	// tRes = in. After a change of rate or burst, the packets already queued
	// keep their times, so the new values start when the last of them
	// leaves; a packet arriving before that is in debt either way, and
	// asking at the later time gives it the same departure.
	tRes := max(in, s.resAt)
	if s.dirty {
		tRes = max(tRes, s.lastOut)
		s.lim.SetLimitAt(wall(tRes), rate.Limit(float64(s.p.ShapeRate)/8))
		s.lim.SetBurstAt(wall(tRes), s.p.shapeBurst())
		s.dirty = false
	}
	for s.n > 0 && s.fifo[s.head].at <= in {
		s.fifoBytes -= s.fifo[s.head].bytes
		s.head = (s.head + 1) % len(s.fifo)
		s.n--
	}
	b := int64(size)
	if b > int64(s.p.shapeBurst()) || s.fifoBytes+b > s.limit {
		return 0, false
	}
	r := s.lim.ReserveN(wall(tRes), size)
	if !r.OK() {
		return 0, false
	}
	out = tRes.Add(r.DelayFrom(wall(tRes)))
	s.resAt, s.lastOut = tRes, max(s.lastOut, out)
	if out > in {
		s.push(shapeEntry{out, b})
	}
	return out, true
}

func (s *shaper) push(e shapeEntry) {
	if s.n == len(s.fifo) {
		grown := make([]shapeEntry, 2*len(s.fifo))
		for i := range s.n {
			grown[i] = s.fifo[(s.head+i)%len(s.fifo)]
		}
		s.fifo, s.head = grown, 0
	}
	s.fifo[(s.head+s.n)%len(s.fifo)] = e
	s.n++
	s.fifoBytes += e.bytes
}
