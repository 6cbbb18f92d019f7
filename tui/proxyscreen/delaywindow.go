package proxyscreen

import (
	"math"
	"slices"
	"time"
)

// delayWindow is one direction's added delays over the last realSpan, one
// log-linear histogram (bucket → count) per second of wall time: its
// memory is bounded by the buckets in use, whatever the packet rate, and
// a percentile is within 0.05 % of the exact one. A change of the links
// starts it afresh (cut), so that it holds only the delays of copies
// received from then on, the changed link's: a change applies to the
// copies received after it, and those in flight at the change, held by
// the old link, are written after it. Until the longest delay the window
// held at the change has passed (settled), the copies a snapshot hands
// over may be such, and are left out.
type delayWindow struct {
	secs    []delaySecond // oldest first, at most realSpan/time.Second + 2
	cut     time.Duration // the change it starts at (0: the relay's start)
	settled time.Duration // the cut + the longest delay before it
	last    time.Duration // the previous snapshot's wall time
}

// delaySecond is the delays of the copies handed over by the snapshots of
// one second, (start, start+1s].
type delaySecond struct {
	start  time.Duration
	counts map[int32]uint32
	n      uint64
	max    float64
}

// delaySubBits is the log-linear histogram's precision: 2^10 buckets per
// power of two of microseconds, so a bucket's midpoint is within 1/2048
// of any value in it (1 µs wide below 1.024 ms).
const delaySubBits = 10

// delayBucket is the bucket of a delay in ms (negative and NaN: 0).
func delayBucket(ms float64) int32 {
	x := ms * 1000 // µs
	const sub = 1 << delaySubBits
	switch {
	case !(x > 0):
		return 0
	case x < sub:
		return int32(x)
	case x > 1e15: // beyond any delay (31 years): the last bucket
		x = 1e15
	}
	frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	return int32((exp-delaySubBits)*sub + int((frac*2-1)*sub))
}

// delayMid is bucket i's midpoint in ms.
func delayMid(i int32) float64 {
	const sub = 1 << delaySubBits
	if i < sub {
		return (float64(i) + 0.5) / 1000
	}
	w := math.Ldexp(1, int(i/sub)-1)
	return (float64(sub+i%sub)*w + w/2) / 1000
}

// add takes the delays a snapshot at wall handed over.
func (w *delayWindow) add(wall time.Duration, ms []float64) {
	// The copies of (last, wall]: some were received before the cut
	// while last is before settled.
	since := w.last
	w.last = wall
	if len(ms) == 0 || since < w.settled {
		return
	}
	start := (wall - 1).Truncate(time.Second)
	if n := len(w.secs); n == 0 || w.secs[n-1].start != start {
		// Seconds wholly before the window go, reusing the oldest's map.
		keep := slices.IndexFunc(w.secs, func(s delaySecond) bool { return s.start+time.Second > wall-realSpan-time.Second })
		if keep < 0 {
			keep = len(w.secs)
		}
		var m map[int32]uint32
		if keep > 0 {
			m = w.secs[0].counts
			clear(m)
		}
		w.secs = append(w.secs[:0], w.secs[keep:]...)
		if m == nil {
			m = map[int32]uint32{}
		}
		w.secs = append(w.secs, delaySecond{start: start, counts: m})
	}
	s := &w.secs[len(w.secs)-1]
	for _, x := range ms {
		s.counts[delayBucket(x)]++
		s.n++
		if x > s.max {
			s.max = x
		}
	}
}

// cutAt starts the window afresh at a change of the links at.
func (w *delayWindow) cutAt(at time.Duration) {
	if at > w.cut {
		held := 0.0
		for _, s := range w.secs {
			held = max(held, s.max)
		}
		w.cut = at
		// A change while the copies of an earlier one are still in flight
		// waits for them too.
		w.settled = max(w.settled, at+time.Duration(math.Ceil(held*float64(time.Millisecond))))
		w.secs = w.secs[:0]
	}
}

// percentiles are the nearest-rank p50 and p99 of the delays handed over
// after from (to the second; NaN: none).
func (w *delayWindow) percentiles(from time.Duration) [2]float64 {
	merged := map[int32]uint64{}
	var n uint64
	hi := math.Inf(-1)
	for _, s := range w.secs {
		if s.start+time.Second <= from {
			continue
		}
		for b, c := range s.counts {
			merged[b] += uint64(c)
		}
		n += s.n
		hi = max(hi, s.max)
	}
	if n == 0 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	buckets := make([]int32, 0, len(merged))
	for b := range merged {
		buckets = append(buckets, b)
	}
	slices.Sort(buckets)
	rank := func(q float64) float64 {
		r := min(max(uint64(math.Ceil(q*float64(n))), 1), n)
		var seen uint64
		for _, b := range buckets {
			if seen += merged[b]; seen >= r {
				return min(delayMid(b), hi)
			}
		}
		return hi
	}
	return [2]float64{rank(0.5), rank(0.99)}
}
