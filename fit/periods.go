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
// where the delay's level changes: binary segmentation of the block
// medians by least squares, a split kept when it lowers the squared error by more than
// 4·σ²·ln m (m blocks; σ the block medians' noise, from the median absolute
// deviation of successive differences, robust to the steps themselves).
// The block in which a split is placed is left out of both sides: with
// packets of both levels its median lies between them, and the search
// would split it off as a period of its own.
func changePoints(pts []point) []int {
	m := len(pts) / periodBlock
	if m < 2*periodMinBlocks {
		return nil
	}
	med := make([]float64, m)
	w := make([]float64, periodBlock)
	for j := range m {
		for i, p := range pts[j*periodBlock : (j+1)*periodBlock] {
			w[i] = p.d
		}
		slices.Sort(w)
		med[j] = quantileOf(w, 0.5)
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
	var out []int
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
		c := refine(pts, (best-1)*periodBlock, (best+1)*periodBlock)
		j, next := c/periodBlock, c/periodBlock
		if c%periodBlock != 0 {
			next++ // the block with c straddles the change
		}
		split(a, j)
		out = append(out, pts[c].idx)
		split(next, b)
	}
	split(0, m)
	return out
}

// levelCuts is changePoints of a direction's delays. With two clocks the
// drift is estimated with the levels, not before them: a step in the
// delay raises the lower envelope as drift does, and removed as drift it
// tilts the delays into a ramp that the level search cuts into pieces. So
// the slope is fitted again within the periods found (one slope, a level
// for each), removed from the measured delays when it stands out of its
// noise, and the levels searched again, until the cuts stay (at most 4
// rounds).
func levelCuts(pk []trace.Packet, pts []point, synced bool) (cuts []int, drift float64) {
	cuts = changePoints(pts)
	if synced {
		return cuts, 0
	}
	// Every delivered packet, as measured: which packets fall below the
	// jitter's range (skipped the delay) was decided on the tilted delays.
	var raw []point
	for i, p := range pk {
		if p.Status == trace.Delivered {
			raw = append(raw, point{t: float64(p.Send - pk[0].Send), d: float64(p.Delay), seq: p.Seq, at: p.Send + p.Delay, idx: i})
		}
	}
	for range 4 {
		cur := raw
		drift = 0
		if slope, se, ok := envelopeSlopeWithin(raw, cuts); ok && math.Abs(slope) > 3*se {
			drift = slope
			cur = slices.Clone(raw)
			for i := range cur {
				cur[i].d -= float64(slope * cur[i].t)
			}
		}
		next := changePoints(cur)
		if slices.Equal(next, cuts) {
			break
		}
		cuts = next
	}
	return cuts, drift
}

// withoutDrift is pk with drift (ns per ns of send time) taken out of
// its delays around their mean send time, which keeps the mean delay.
func withoutDrift(pk []trace.Packet, drift float64) []trace.Packet {
	var tm, n float64
	for _, p := range pk {
		if p.Status == trace.Delivered {
			tm += float64(p.Send - pk[0].Send)
			n++
		}
	}
	tm /= max(n, 1)
	out := slices.Clone(pk)
	for i, p := range out {
		if p.Status == trace.Delivered {
			out[i].Delay -= int64(math.Round(float64(drift * (float64(p.Send-pk[0].Send) - tm))))
		}
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
func fitPeriods(d *Dir, pk []trace.Packet, pts []point, synced bool, origin int64) {
	var cuts []int
	from := 0
	for _, b := range blackouts(pk) {
		cuts = append(cuts, offset(lossChangePoints(pk[from:b[0]]), from)...)
		cuts = append(cuts, b[0], b[1])
		from = b[1]
	}
	cuts = append(cuts, offset(lossChangePoints(pk[from:]), from)...)
	levels, drift := levelCuts(pk, pts, synced)
	for _, c := range levels {
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
	// With two clocks, one drift for the whole capture (found with the
	// levels), taken out before the periods are fitted: each period
	// removing its own around its own mean would add the drift between
	// the periods' centres to the steps between them.
	fitted := pk
	if drift != 0 {
		fitted = withoutDrift(pk, drift)
	}
	d.PeriodDriftPPM = float64(drift * 1e6)
	var periods []Period
	for _, s := range segs {
		at := d.Start + time.Duration(pk[s.a].Send-pk[0].Send)
		if blackout(s) {
			periods = append(periods, Period{From: at, Blackout: true, Sent: s.b - s.a})
			continue
		}
		f, err := fitDir(&trace.Direction{Name: d.Name, Packets: fitted[s.a:s.b]}, synced, origin, false)
		if err != nil {
			return
		}
		f.Duplicate = d.Duplicate // a capture counts duplicates per direction only
		periods = append(periods, Period{From: at, Sent: s.b - s.a, Fit: f})
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
// next packet, or the end) that no loss process of the rest explains. The
// tail of the burst lengths decides: among the n₂ bursts of 2 or more
// packets, q is the chance that one goes on past its second packet (their
// packets after the second over their packets after the first, plus
// Laplace's 1 and 2, so that a few bursts prove little), and a run of L ≥
// blackoutMin losses is a blackout when n₂·q^(L−2) < blackoutLevel: the
// chance that any burst is that long, were the tail geometric, is below
// 0.1 %. The tail rather than all bursts, so that isolated losses
// (Bernoulli's, the 4-state model's state 4) do not make the long bursts
// look rare. Longest first, each blackout left out of the next one's q.
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
	// Over the bursts of 2 or more: cont, the packets after the second;
	// all, the packets after the first; n2, how many.
	var cont, all, n2 float64
	for _, r := range runs {
		if l := float64(r[1] - r[0]); l >= 2 {
			cont += l - 2
			all += l - 1
			n2++
		}
	}
	byLength := slices.Clone(runs)
	slices.SortStableFunc(byLength, func(a, b [2]int) int { return (b[1] - b[0]) - (a[1] - a[0]) })
	var out [][2]int
	for _, r := range byLength {
		l := float64(r[1] - r[0])
		if l < blackoutMin {
			break
		}
		restCont, restAll, restN := cont-(l-2), all-(l-1), n2-1
		q := (restCont + 1) / (restAll + 2)
		if float64(max(restN, 1)*detmath.Pow(q, l-2)) >= blackoutLevel {
			break
		}
		out = append(out, r)
		cont, all, n2 = restCont, restAll, restN
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
func lossCost(c transCounts, first float64, logs logTable) float64 {
	var ll float64
	for prev := range 2 {
		n0, n1 := c[2*prev], c[2*prev+1]
		if n := n0 + n1; n > 0 {
			ll += logs.xlogShare(n0, n) + logs.xlogShare(n1, n)
		}
	}
	n := c[0] + c[1] + c[2] + c[3] + 1
	lost := c[1] + c[3] + first // the lost packets: those transitions lead to, and the first
	// The first packet: ln P(lost) if it was lost, else ln P(not lost).
	if first == 1 {
		ll += logs.lnShare(lost, n)
	} else {
		ll += logs.lnShare(n-lost, n)
	}
	return float64(-2 * ll)
}

// logTable holds ln k for the counts k = 1..len−1: a segment's costs are
// logs of its counts, looked up rather than computed (PELT compares many
// segments of the same counts).
type logTable []float64

// newLogTable covers the counts of a sequence of n packets.
func newLogTable(n int) logTable {
	t := make(logTable, n+2)
	for k := 1; k < len(t); k++ {
		t[k] = detmath.Log(float64(k))
	}
	return t
}

// xlogShare is k·ln(k/n) for whole counts 0 ≤ k ≤ n, n ≥ 1: 0 when k is 0
// (the limit), as xlogy(k, k/n), with ln(k/n) as ln k − ln n.
func (t logTable) xlogShare(k, n float64) float64 {
	if k == 0 {
		return 0
	}
	return float64(k * t.lnShare(k, n))
}

// lnShare is ln(k/n) for whole counts 1 ≤ k ≤ n.
func (t logTable) lnShare(k, n float64) float64 { return t[int(k)] - t[int(n)] }

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
	logs := newLogTable(n)
	cost := func(a, b int) float64 { // blocks a..b−1
		c := cum[b]
		for t := range c {
			c[t] -= cum[a][t]
		}
		if a > 0 {
			c[tr(bound(a))]-- // the transition into the segment's first packet is not its own
		}
		return lossCost(c, float64(lost(bound(a))), logs)
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
		cuts[k] = refineLoss(pk, lo, hi, max(c-s, lo+1), min(c+s, hi-1), tr, lost, logs)
	}
	return confirmLoss(pk, cuts)
}

// confirmBlock is the block of packets whose loss counts give the loss
// rate's variance in confirmLoss: far longer than a burst.
const confirmBlock = 50

// confirmZ is how many standard errors apart the loss rates either side of
// a cut must be.
const confirmZ = 4

// confirmLoss keeps the cuts where the loss rate itself changes. PELT's
// Gilbert–Elliott likelihood is exact for that model only; a link whose
// bursts are not geometric (netem's 4-state model, Wi-Fi) would be cut now
// and then over a long capture for its bursts' shape, not for a change. So
// each cut must also set apart loss rates more than confirmZ standard
// errors, measured from the spread of the loss counts of blocks of
// confirmBlock packets (pooled within the segments), which holds whatever
// the bursts are; the weakest cut is dropped, and the test run again, until
// every cut passes.
func confirmLoss(pk []trace.Packet, cuts []int) []int {
	for len(cuts) > 0 {
		bounds := append(append([]int{0}, cuts...), len(pk))
		rates := make([]float64, len(bounds)-1)
		var ss, df float64
		for i := range rates {
			a, b := bounds[i], bounds[i+1]
			rates[i] = lossShare(pk[a:b])
			for j := a; j+confirmBlock <= b; j += confirmBlock {
				dev := lossShare(pk[j:j+confirmBlock]) - rates[i]
				ss += float64(dev * dev)
				df++
			}
			df--
		}
		v := 0.0 // the variance of one block's loss share
		if df > 0 {
			v = ss / df
		}
		weakest, zMin := -1, math.Inf(1)
		for k := range cuts {
			n1, n2 := float64(bounds[k+1]-bounds[k]), float64(bounds[k+2]-bounds[k+1])
			se := math.Sqrt(float64(float64(v*confirmBlock) * (1/n1 + 1/n2)))
			z := math.Inf(1)
			if d := math.Abs(rates[k+1] - rates[k]); se > 0 {
				z = d / se
			} else if d == 0 {
				z = 0
			}
			if z < zMin {
				weakest, zMin = k, z
			}
		}
		if zMin > confirmZ {
			break
		}
		cuts = slices.Delete(cuts, weakest, weakest+1)
	}
	return cuts
}

// lossShare is the share of pk lost.
func lossShare(pk []trace.Packet) float64 {
	n := 0
	for _, p := range pk {
		if p.Status == trace.Lost {
			n++
		}
	}
	return float64(n) / float64(len(pk))
}

// refineLoss is the cut x in [from, to] that minimises the cost of pk[lo:x]
// plus pk[x:hi].
func refineLoss(pk []trace.Packet, lo, hi, from, to int, tr, lost func(int) int, logs logTable) int {
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
		return lossCost(c, float64(lost(a)), logs)
	}
	best, cost := from, math.Inf(1)
	for x := from; x <= to; x++ {
		if v := seg(lo, x) + seg(x, hi); v < cost {
			best, cost = x, v
		}
	}
	return best
}
