package fit

import (
	"math"
	"slices"
	"time"

	"jitterlab/detmath"
	"jitterlab/trace"
)

// Period is a stretch of one direction with a fit of its own.
type Period struct {
	From time.Duration // from the direction's first send
	Fit  *Dir
}

// Change-point search: delays are summarised as medians of blocks of
// periodBlock delivered packets; a period is at least periodMinBlocks
// blocks long.
const (
	periodBlock     = 50
	periodMinBlocks = 4
)

// changePoints returns the send times (from the first send) where the
// delay's level changes: binary segmentation of the block medians by least
// squares, a split kept when it lowers the squared error by more than
// 4·σ²·ln m (m blocks; σ the block medians' noise, from the median absolute
// deviation of successive differences, robust to the steps themselves).
func changePoints(pts []point) []time.Duration {
	m := len(pts) / periodBlock
	if m < 2*periodMinBlocks {
		return nil
	}
	med, at := make([]float64, m), make([]float64, m)
	w := make([]float64, periodBlock)
	for j := range m {
		blk := pts[j*periodBlock : (j+1)*periodBlock]
		for i, p := range blk {
			w[i] = p.d
		}
		slices.Sort(w)
		med[j], at[j] = quantileOf(w, 0.5), blk[0].t
	}
	diffs := make([]float64, m-1)
	for j := range diffs {
		diffs[j] = med[j+1] - med[j]
	}
	slices.Sort(diffs)
	mid := quantileOf(diffs, 0.5)
	for j := range diffs {
		diffs[j] = math.Abs(diffs[j] - mid)
	}
	slices.Sort(diffs)
	sigma := float64(1.4826*quantileOf(diffs, 0.5)) / math.Sqrt2
	if sigma <= 0 {
		sigma = 1 // a constant level: any step is a change
	}
	pen := float64(float64(4*sigma)*sigma) * detmath.Log(float64(m))
	// Prefix sums for the squared error of any range.
	s, s2 := make([]float64, m+1), make([]float64, m+1)
	for j, v := range med {
		s[j+1], s2[j+1] = s[j]+v, s2[j]+float64(v*v)
	}
	sse := func(a, b int) float64 {
		n := float64(b - a)
		sum := s[b] - s[a]
		return s2[b] - s2[a] - float64(sum*sum)/n
	}
	var cuts []int
	var split func(a, b int)
	split = func(a, b int) {
		best, gain := -1, pen
		whole := sse(a, b)
		for k := a + periodMinBlocks; k <= b-periodMinBlocks; k++ {
			if g := whole - sse(a, k) - sse(k, b); g > gain {
				best, gain = k, g
			}
		}
		if best < 0 {
			return
		}
		split(a, best)
		cuts = append(cuts, best)
		split(best, b)
	}
	split(0, m)
	var out []time.Duration
	for _, k := range cuts {
		out = append(out, time.Duration(pts[refine(pts, (k-1)*periodBlock, (k+1)*periodBlock)].t))
	}
	return out
}

// refine places a change found between blocks at the packet: the split of
// pts[a:b] (the blocks either side) with the least squared error of the
// delays about each side's mean.
func refine(pts []point, a, b int) int {
	s, s2 := make([]float64, b-a+1), make([]float64, b-a+1)
	for i, p := range pts[a:b] {
		s[i+1], s2[i+1] = s[i]+p.d, s2[i]+float64(p.d*p.d)
	}
	sse := func(i, j int) float64 {
		sum := s[j] - s[i]
		return s2[j] - s2[i] - float64(sum*sum)/float64(j-i)
	}
	n := b - a
	best, cost := n/2, math.Inf(1)
	for i := 1; i < n; i++ {
		if c := sse(0, i) + sse(i, n); c < cost {
			best, cost = i, c
		}
	}
	return a + best
}

// fitPeriods fits each period between change points on its own; it leaves
// d.Periods empty when there is one period or a period cannot be fitted.
func fitPeriods(d *Dir, pk []trace.Packet, pts []point, synced bool) {
	cuts := changePoints(pts)
	if len(cuts) == 0 {
		return
	}
	t0 := pk[0].Send
	bounds := append([]time.Duration{math.MinInt64}, cuts...)
	var periods []Period
	for i, from := range bounds {
		to := time.Duration(math.MaxInt64)
		if i+1 < len(bounds) {
			to = bounds[i+1]
		}
		var sub []trace.Packet
		for _, p := range pk {
			if at := time.Duration(p.Send - t0); at >= from && at < to {
				sub = append(sub, p)
			}
		}
		f, err := fitDir(&trace.Direction{Name: d.Name, Packets: sub}, synced, false)
		if err != nil {
			return
		}
		periods = append(periods, Period{From: max(from, 0), Fit: f})
	}
	d.Periods = periods
}
