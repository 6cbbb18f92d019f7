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
	// From is the period's first send, from the capture's start: the
	// session's start for the lab's own log (its clock is the lab's), the
	// direction's first send otherwise (see [Dir.Start]).
	From time.Duration
	// Blackout: every packet of the period was lost (a link flap, a
	// handover); it has no fit and becomes `blackout = true`.
	Blackout bool
	Sent     int
	Fit      *Dir // nil for a blackout
}

// Change-point search: delays are summarised as medians of blocks of
// periodBlock delivered packets; a period is at least periodMinBlocks
// blocks long.
const (
	periodBlock     = 50
	periodMinBlocks = 4
)

// changePoints returns the packets (indices into the direction's packets)
// where the delay's level changes: binary segmentation of the block medians by least
// squares, a split kept when it lowers the squared error by more than
// 4·σ²·ln m (m blocks; σ the block medians' noise, from the median absolute
// deviation of successive differences, robust to the steps themselves).
func changePoints(pts []point) []int {
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
	var out []int
	for _, k := range cuts {
		out = append(out, pts[refine(pts, (k-1)*periodBlock, (k+1)*periodBlock)].idx)
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

// fitPeriods cuts the direction around its blackouts (blackouts), where
// its loss process changes between them (lossChangePoints) and where its
// delay's level changes (changePoints; dropped when a loss cut is within
// half a block of it, the loss cut being the sharper), and fits each
// period on its own. A period whose every packet was lost is a blackout;
// any other with fewer than MinDelivered delivered packets joins the period
// before it (the first, the one after). It leaves d.Periods empty when
// there is one period or a period cannot be fitted.
func fitPeriods(d *Dir, pk []trace.Packet, pts []point, synced bool) {
	var cuts []int
	from := 0
	for _, b := range blackouts(pk) {
		cuts = append(cuts, offset(lossChangePoints(pk[from:b[0]]), from)...)
		cuts = append(cuts, b[0], b[1])
		from = b[1]
	}
	cuts = append(cuts, offset(lossChangePoints(pk[from:]), from)...)
	for _, c := range changePoints(pts) {
		near := false
		for _, l := range cuts {
			near = near || abs(l-c) <= periodBlock/2
		}
		if !near {
			cuts = append(cuts, c)
		}
	}
	if len(cuts) == 0 {
		return
	}
	slices.Sort(cuts)
	type seg struct {
		a, b      int // packets pk[a:b]
		delivered int
	}
	var segs []seg
	bounds := append(append([]int{0}, cuts...), len(pk))
	for i := 0; i+1 < len(bounds); i++ {
		a, b := bounds[i], bounds[i+1]
		if a >= b {
			continue
		}
		n := 0
		for _, p := range pk[a:b] {
			if p.Status != trace.Lost {
				n++
			}
		}
		segs = append(segs, seg{a, b, n})
	}
	blackout := func(s seg) bool { return s.delivered == 0 && s.b-s.a >= blackoutMin }
	// Join what cannot be fitted to a neighbour, until nothing is left.
	for {
		i := slices.IndexFunc(segs, func(s seg) bool { return !blackout(s) && s.delivered < MinDelivered })
		if i < 0 || len(segs) == 1 {
			break
		}
		j := i - 1
		if j < 0 || (blackout(segs[j]) && i+1 < len(segs) && !blackout(segs[i+1])) {
			j = i + 1
		}
		lo, hi := min(i, j), max(i, j)
		segs[lo] = seg{segs[lo].a, segs[hi].b, segs[lo].delivered + segs[hi].delivered}
		segs = slices.Delete(segs, hi, hi+1)
	}
	if len(segs) < 2 {
		return
	}
	var periods []Period
	for _, s := range segs {
		from := d.Start + time.Duration(pk[s.a].Send-pk[0].Send)
		if blackout(s) {
			periods = append(periods, Period{From: from, Blackout: true, Sent: s.b - s.a})
			continue
		}
		f, err := fitDir(&trace.Direction{Name: d.Name, Packets: pk[s.a:s.b]}, synced, false)
		if err != nil {
			return
		}
		periods = append(periods, Period{From: from, Sent: s.b - s.a, Fit: f})
	}
	d.Periods = periods
}

// blackoutMin is the fewest packets, all lost, that make a blackout.
const blackoutMin = 3

// offset adds by to every index of cuts.
func offset(cuts []int, by int) []int {
	for i := range cuts {
		cuts[i] += by
	}
	return cuts
}

// blackoutLevel: a burst is a blackout when the chance that any of the
// capture's bursts is as long, under the loss law of the other bursts, is
// below this.
const blackoutLevel = 1e-3

// blackouts returns the runs of lost packets (pk[a:b] as {a, b}, b the
// next packet, or the end) that no loss model of the rest explains: a run
// of L ≥ blackoutMin losses is a blackout when nb·(1 − r)^(L−1) <
// blackoutLevel, nb the number of bursts and 1 − r the chance that a burst
// goes on, from the other bursts: the Gilbert–Elliott estimate without the
// run, lost packets after the first of each burst over all their packets,
// each count plus Laplace's one and two so that a few short bursts do not
// make every longer one a blackout. Longest first, each found blackout left out of the
// estimate for the next.
func blackouts(pk []trace.Packet) [][2]int {
	var runs [][2]int
	for i := 0; i < len(pk); {
		if pk[i].Status != trace.Lost {
			i++
			continue
		}
		j := i
		for j < len(pk) && pk[j].Status == trace.Lost {
			j++
		}
		runs = append(runs, [2]int{i, j})
		i = j
	}
	// cont: lost packets that continue a burst; all: packets of bursts.
	var cont, all float64
	for _, r := range runs {
		cont += float64(r[1] - r[0] - 1)
		all += float64(r[1] - r[0])
	}
	byLength := slices.Clone(runs)
	slices.SortStableFunc(byLength, func(a, b [2]int) int { return (b[1] - b[0]) - (a[1] - a[0]) })
	nb := float64(len(runs))
	var out [][2]int
	for _, r := range byLength {
		l := float64(r[1] - r[0])
		if l < blackoutMin {
			break
		}
		// The other bursts' chance to go on: continuing packets over the
		// packets that could have been followed by another loss.
		restCont, restAll := cont-(l-1), all-l
		q := (restCont + 1) / (restAll + 2) // Laplace's rule: few bursts prove little

		if float64(nb*detmath.Pow(q, l-1)) >= blackoutLevel {
			break
		}
		out = append(out, r)
		cont, all = restCont, restAll
	}
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Loss change points: PELT (Killick, Fearnhead and Eckley, 2012) over the
// loss sequence cut in blocks of at least lossBlock packets (at most
// lossMaxBlocks blocks), then each cut refined to the packet.
const (
	lossBlock     = 5
	lossMaxBlocks = 4000
)

// transCounts is the count of each transition lost-or-not → lost-or-not
// (index 2·prev + cur) among consecutive packets.
type transCounts [4]float64

// lossCost is −2 × the log likelihood of a stretch of packets under its
// own Gilbert–Elliott fit: its transitions at their rows' shares, and its
// first packet (first: 1 if lost) at the stretch's loss rate. The first
// packet's term keeps a stretch from getting its only loss for free;
// it makes splitting a stretch cost up to 2·ln n more (see lossChangePoints).
func lossCost(c transCounts, first float64) float64 {
	var ll float64
	for prev := range 2 {
		n0, n1 := c[2*prev], c[2*prev+1]
		if n := n0 + n1; n > 0 {
			ll += xlogy(n0, n0/n) + xlogy(n1, n1/n)
		}
	}
	n := c[0] + c[1] + c[2] + c[3] + 1
	lost := c[1] + c[3] + first // the lost packets: those transitions lead to, and the first
	ll += xlogy(first, lost/n) + xlogy(1-first, 1-lost/n)
	return float64(-2 * ll)
}

// lossChangePoints returns the packets (indices into pk) where the loss
// process changes: the segmentation that minimises the sum of every
// segment's lossCost plus β = 3·ln n per change (BIC: each change adds a
// location and two transition probabilities), found exactly by PELT over
// block boundaries (pruning with K = −2·ln n, as a split can cost that
// much more); each cut is then moved, within a block either side, to
// the packet where the two segments around it cost least. The
// Gilbert–Elliott likelihood, not Bernoulli's, so that ordinary bursts of
// a bursty link are not cut out as changes; a blackout, a burst far longer
// than the link's others, is.
func lossChangePoints(pk []trace.Packet) []int {
	n := len(pk)
	s := max(lossBlock, (n+lossMaxBlocks-1)/lossMaxBlocks)
	m := (n + s - 1) / s
	if m < 2 {
		return nil
	}
	lost := func(i int) int {
		if pk[i].Status == trace.Lost {
			return 1
		}
		return 0
	}
	tr := func(i int) int { return 2*lost(i-1) + lost(i) } // the transition into packet i ≥ 1
	// cum[k]: transitions into packets 1..min(k·s, n)−1.
	cum := make([]transCounts, m+1)
	for k := 1; k <= m; k++ {
		cum[k] = cum[k-1]
		for i := max((k-1)*s, 1); i < min(k*s, n); i++ {
			cum[k][tr(i)]++
		}
	}
	bound := func(k int) int { return min(k*s, n) }
	cost := func(a, b int) float64 { // blocks a..b−1
		c := cum[b]
		for t := range c {
			c[t] -= cum[a][t]
		}
		if a > 0 {
			c[tr(bound(a))]-- // the transition into the segment's first packet is not its own
		}
		return lossCost(c, float64(lost(bound(a))))
	}
	beta := float64(3 * detmath.Log(float64(n)))
	slack := float64(2 * detmath.Log(float64(n)))
	F := make([]float64, m+1)
	last := make([]int, m+1)
	F[0] = -beta
	R := []int{0}
	for t := 1; t <= m; t++ {
		best, arg := math.Inf(1), 0
		costs := make([]float64, len(R))
		for i, r := range R {
			costs[i] = F[r] + cost(r, t)
			if v := costs[i] + beta; v < best {
				best, arg = v, r
			}
		}
		F[t], last[t] = best, arg
		// Prune: a start that costs more than the best already, by more
		// than a split can add, never wins.
		keep := R[:0]
		for i, r := range R {
			if costs[i] < F[t]+slack {
				keep = append(keep, r)
			}
		}
		R = append(keep, t)
	}
	var cuts []int
	for t := last[m]; t > 0; t = last[t] {
		cuts = append(cuts, bound(t))
	}
	slices.Reverse(cuts)
	// Refine each cut to the packet, its neighbours fixed.
	for k, c := range cuts {
		lo, hi := 0, n
		if k > 0 {
			lo = cuts[k-1]
		}
		if k+1 < len(cuts) {
			hi = cuts[k+1]
		}
		cuts[k] = refineLoss(pk, lo, hi, max(c-s, lo+1), min(c+s, hi-1), tr, lost)
	}
	return cuts
}

// refineLoss is the cut x in [from, to] that minimises the cost of pk[lo:x]
// plus pk[x:hi].
func refineLoss(pk []trace.Packet, lo, hi, from, to int, tr, lost func(int) int) int {
	// pre[i]: transitions into packets lo+1..i−1 (so pre[x] − pre[lo+1] is
	// the segment lo..x's own).
	pre := make([]transCounts, hi-lo+1)
	for i := lo + 1; i < hi; i++ {
		pre[i-lo+1] = pre[i-lo]
		pre[i-lo+1][tr(i)]++
	}
	seg := func(a, b int) float64 { // packets a..b−1, lo ≤ a < b ≤ hi
		var c transCounts
		for t := range c {
			c[t] = pre[b-lo][t] - pre[a-lo+1][t]
		}
		return lossCost(c, float64(lost(a)))
	}
	best, cost := from, math.Inf(1)
	for x := from; x <= to; x++ {
		if v := seg(lo, x) + seg(x, hi); v < cost {
			best, cost = x, v
		}
	}
	return best
}
