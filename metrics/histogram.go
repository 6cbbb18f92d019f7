package metrics

import "math"

const (
	subBits    = 7
	subBuckets = 1 << subBits // linear sub-buckets per power of two
	octaves    = 48
	nBuckets   = subBuckets * (octaves + 1) // one power of two below 128·Unit, one per power of two above; the last bucket open-ended
)

// Histogram counts non-negative values in log-linear buckets of
// x = v·(1/Unit) (a product, not a division, per value): below
// 128·Unit they are Unit wide, above that each power of two is split in 128,
// so a quantile is within 0.8 % (or Unit/2) of the true one. Max and Count
// are exact.
//
// The buckets are stored in one slice up to the highest one a value has
// landed in (grown when a larger value comes): values up to a few powers
// of two take a few KB, not the 49 KB of every bucket, and an Add touches
// two cache lines and inlines. [Histogram.Reset] empties a histogram and
// keeps its buckets: a histogram reused for the same kind of values never
// allocates again (one outlier, even +Inf, grows it to 49 KB at most).
// Use it by pointer: a copy would share its buckets.
type Histogram struct {
	Unit    float64
	perUnit float64 // 1/Unit
	// n and max beside Unit: an Add touches this cache line and its bucket.
	n      uint64
	max    float64
	counts []uint64 // bucket i's count, up to the highest bucket used
}

// NewHistogram returns a histogram with the given resolution (the zero
// Histogram is not one).
func NewHistogram(unit float64) *Histogram {
	// Room for two powers of two: Add's appends grow it from there.
	return &Histogram{Unit: unit, perUnit: 1 / unit, counts: make([]uint64, 0, 2*subBuckets)}
}

// Add records v; negative values and NaN count as 0.
func (h *Histogram) Add(v float64) {
	if !(v > 0) {
		v = 0
	}
	i := h.index(v)
	for i >= len(h.counts) { // append, not a call: Add inlines
		h.counts = append(h.counts, 0)
	}
	h.counts[i]++
	h.n++
	if v > h.max { // max(max, v) for both ≥ +0 and not NaN, without its sign blend
		h.max = v
	}
}

// Reset empties h (same Unit), keeping its buckets.
func (h *Histogram) Reset() {
	clear(h.counts)
	h.n, h.max = 0, 0
}

func (h *Histogram) index(v float64) int {
	x := v * h.perUnit
	if x < subBuckets {
		return int(x)
	}
	// x ≥ 128 is a normal float: x = 1.m·2^exp, so x is in [128·2^e,
	// 256·2^e) for e = exp − 1023 − 7, and the top 7 bits of the mantissa m
	// are the linear sub-bucket (as Frexp would give, without its cost).
	// Shifted down to those bits, x's bits read exp·128 + sub (its sign is
	// 0), so the bucket 128·(e+1) + sub is that minus 1029·128; e ≥ octaves
	// lands in the last bucket.
	return min(int(math.Float64bits(x)>>(52-subBits))-(1023+subBits-1)<<subBits, nBuckets-1)
}

// bounds returns bucket i's lower bound and width.
func (h *Histogram) bounds(i int) (lo, width float64) {
	if i < subBuckets {
		return float64(i) * h.Unit, h.Unit
	}
	e := i/subBuckets - 1
	sub := i % subBuckets
	w := math.Ldexp(h.Unit, e)
	return float64(subBuckets+sub) * w, w
}

// Count is the number of values added.
func (h *Histogram) Count() uint64 { return h.n }

// Max is the largest value added (0 if none).
func (h *Histogram) Max() float64 { return h.max }

// Quantile returns the nearest-rank q-quantile (the smallest value with at
// least q·n values at or below it), as its bucket's midpoint, capped at Max.
func (h *Histogram) Quantile(q float64) float64 {
	if h.n == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, w := h.bounds(i)
			return min(lo+float64(w/2), h.max)
		}
	}
	return h.max
}

// Welford accumulates a mean and standard deviation in one pass, as
// Welford's update does, without its division per value: it sums the
// values and their squares shifted by a centre k, Σ(x−k) and Σ(x−k)²
// (exact in exact arithmetic for any k), and moves k to the running mean
// when the count reaches a power of two. Its rounding error is then that
// of Welford's update (TestWelfordIsAsAccurateAsWelfordsUpdate), unless
// the data drift by many standard deviations between two doublings of
// the count.
type Welford struct {
	n      uint64
	k      float64 // the centre: the first value, then the mean at each power of two
	s1, s2 float64 // Σ(x−k), Σ(x−k)² over the values so far
}

// Add records x.
func (w *Welford) Add(x float64) {
	if w.n == 0 {
		w.k = x
	}
	w.n++
	d := x - w.k
	w.s1 += d
	w.s2 += float64(d * d)
	if w.n&(w.n-1) == 0 { // a power of two: centre on the mean
		m := w.s1 / float64(w.n)
		w.k += m
		w.s2 -= float64(m * w.s1) // Σ(x−k−m)² = Σ(x−k)² − m·Σ(x−k)
		w.s1 = 0
	}
}

// Mean is the mean of the values added (0 if none).
func (w *Welford) Mean() float64 {
	if w.n == 0 {
		return 0
	}
	return w.k + w.s1/float64(w.n)
}

// SD is the sample standard deviation of the values added.
func (w *Welford) SD() float64 {
	if w.n < 2 {
		return 0
	}
	m2 := w.s2 - float64(w.s1*w.s1)/float64(w.n)
	return math.Sqrt(max(m2, 0) / float64(w.n-1))
}
