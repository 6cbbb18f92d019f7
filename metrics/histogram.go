package metrics

import "math"

const (
	subBits    = 7
	subBuckets = 1 << subBits // linear sub-buckets per power of two
	octaves    = 48
)

// Histogram counts non-negative values in log-linear buckets: below
// 128·Unit they are Unit wide, above that each power of two is split in 128,
// so a quantile is within 0.8 % (or Unit/2) of the true one. It has a fixed
// size and never allocates after New. Max and Count are exact.
type Histogram struct {
	Unit float64
	// n and max beside Unit: an Add touches this cache line and its bucket's.
	n      uint64
	max    float64
	counts [subBuckets * (octaves + 1)]uint64
}

// NewHistogram returns a histogram with the given resolution.
func NewHistogram(unit float64) *Histogram { return &Histogram{Unit: unit} }

// Add records v; negative values and NaN count as 0.
func (h *Histogram) Add(v float64) {
	if !(v > 0) {
		v = 0
	}
	h.counts[h.index(v)]++
	h.n++
	if v > h.max { // v is neither NaN nor −0 here: the same as max, without its NaN and zero-sign cases
		h.max = v
	}
}

func (h *Histogram) index(v float64) int {
	x := v / h.Unit
	if x < subBuckets {
		return int(x)
	}
	// x ≥ 128 is a normal float: x = 1.m·2^exp, so x is in [128·2^e,
	// 256·2^e) for e = exp − 1023 − 7, and the top 7 bits of the mantissa m
	// are the linear sub-bucket (as Frexp would give, without its cost).
	// Shifted down to those bits, x's bits read exp·128 + sub (its sign is
	// 0), so the bucket 128·(e+1) + sub is that minus 1029·128; e ≥ octaves
	// lands in the last bucket.
	i := int(math.Float64bits(x)>>(52-subBits)) - (1023+subBits-1)<<subBits
	return min(i, len(h.counts)-1)
}

// lower returns bucket i's lower bound and width.
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

// Welford accumulates a mean and standard deviation in one pass.
type Welford struct {
	n        uint64
	mean, m2 float64
}

// Add records x.
func (w *Welford) Add(x float64) {
	w.n++
	d := x - w.mean
	w.mean += d / float64(w.n)
	w.m2 += float64(d * (x - w.mean))
}

// Mean is the mean of the values added.
func (w *Welford) Mean() float64 { return w.mean }

// SD is the sample standard deviation of the values added.
func (w *Welford) SD() float64 {
	if w.n < 2 {
		return 0
	}
	return math.Sqrt(w.m2 / float64(w.n-1))
}
