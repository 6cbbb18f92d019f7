package fit

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"jitterlab/detmath"
	"jitterlab/netem"
	"jitterlab/sim"
	"jitterlab/trace"
)

// Result is the fit of a whole capture.
type Result struct {
	File, Format string
	SyncedClocks bool
	Dirs         []*Dir // up then down; a direction without packets is left out
	// Skipped names the directions that could not be fitted, and why.
	Skipped []string
	// OffsetRemoved is the clock offset (ns) subtracted from up's delays and
	// added to down's when a floor was out of the link's range.
	OffsetRemoved float64
}

// Candidate is one jitter distribution fitted to a direction's delays.
type Candidate struct {
	Dist            netem.Dist
	Latency, Jitter float64 // ns
	KS              float64 // Kolmogorov–Smirnov distance to the delays
}

// LossFit is one loss model fitted by maximum likelihood.
type LossFit struct {
	P, R   float64 // Bernoulli: P is the loss rate; Gilbert–Elliott: P(G→B), P(B→G)
	LogL   float64
	Params int
	BIC    float64
}

// Dir is the fit of one direction.
type Dir struct {
	Name                              string
	Sent, Delivered, Lost, Unmeasured int
	Duplicates                        int
	// PeriodDriftPPM is, with two clocks and periods, the drift fitted
	// with the periods' levels (one slope, a level each) and removed from
	// every period; 0 when none stood out of its noise.
	PeriodDriftPPM float64
	// Duplicate is the lab's duplicate: extra copies over the copies
	// expected to arrive, sent·(1 − loss)², each copy lost on its own.
	Duplicate float64
	Span      time.Duration // first to last send
	// Start is the first send from the capture's start ([trace.Trace.Origin]):
	// on the lab's own log its time in the session, which starts at 0; on
	// one clock from the capture's first packet either way; with two
	// clocks 0, the first send being all that is known of the start.
	Start time.Duration

	// Clock drift: the slope of the lower envelope of delay against send
	// time, in ppm, and whether it was removed.
	DriftPPM, DriftSE float64
	DriftRemoved      bool
	Floor             float64 // lowest delay after drift removal, ns

	Candidates []Candidate // the five, in netem's order
	Best       int         // index into Candidates: the smallest KS distance
	NEff       float64     // delays' effective sample size for the KS test
	KSCrit     float64     // the 5 % critical value of the KS distance at NEff
	Quantiles  []Quantile

	Rho, RhoSE float64   // lag-1 autocorrelation of normal scores, its standard error
	ACF        []float64 // lags 1..len of the normal scores
	ACFPairs   []int     // pairs behind each lag

	Bernoulli, GE LossFit
	Four          FourStateFit // netem's 4-state model (fitted when packets were lost)
	Model         LossModel    // the one with the lowest BIC
	LossRate      float64      // of the chosen model
	MeanBurst     float64      // of the chosen model (1/r; 1/(1−p) for Bernoulli)
	Bursts        []int        // Bursts[k] = observed bursts of k+1 lost packets
	BurstTest     ChiSquare

	// Reorder is netem's reorder parameter: the share of the delivered
	// packets that skipped the delay (Skipped of them), found below the
	// jitter's range and left out of the delays' fit.
	Reorder float64
	Skipped int
	// ReorderObserved is the share of delivered packets that arrived after
	// a later-sent one; ReorderModel the same for the fitted link.
	ReorderObserved, ReorderModel float64

	Verdicts []Verdict
	Periods  []Period // with Options.Periods: the periods found, if more than one

	delays []float64 // sorted, drift removed, ns (for plots)
	scores []float64 // normal scores in delivery sequence
	drift  float64   // the drift removed (ns per ns), when DriftRemoved
	// blackouts are the runs of losses the other bursts do not explain
	// (as --periods finds them): how many packets, from when.
	blackouts []blackoutRun
}

type blackoutRun struct {
	packets int
	from    time.Duration
}

// LossModel names a loss model the fit chooses among.
type LossModel int

// The loss models, from the fewest parameters.
const (
	BernoulliLoss      LossModel = iota // independent losses: p
	GilbertElliottLoss                  // the lab's two-state chain, every packet lost in BAD: p, r
	FourStateLoss                       // netem's 4-state chain: p13, p31, p32, p23, p14
)

func (m LossModel) String() string {
	return [...]string{"Bernoulli", "Gilbert–Elliott", "4-state"}[m]
}

// Quantile compares one quantile of the delays with the fitted model's.
type Quantile struct {
	P                  float64
	Observed, Expected float64 // ns
}

// ChiSquare is the goodness-of-fit test of the burst lengths.
type ChiSquare struct {
	Bins       []BurstBin
	Stat, Crit float64
	DF         int
	Testable   bool
	law        burstLaw
}

// BurstBin is burst lengths From..To (To 0: and longer).
type BurstBin struct {
	From, To int
	Observed int
	Expected float64
}

// Verdict is one plain finding about the fit.
type Verdict struct {
	Misfit bool
	Text   string
}

// Params is the lab's link parameters the fit found for d.
func (d *Dir) Params() netem.Params {
	c := d.Candidates[d.Best]
	p := netem.Params{
		Latency:    roundDur(c.Latency),
		Jitter:     roundDur(c.Jitter),
		JitterDist: c.Dist,
		JitterCorr: d.Rho,
		Loss:       d.LossRate,
		Reorder:    d.Reorder,
		Duplicate:  d.Duplicate,
	}
	switch d.Model {
	case GilbertElliottLoss:
		p.LossBurst = d.MeanBurst
	case FourStateLoss:
		p.GI = d.Four.FourState
	}
	return p
}

// roundDur rounds ns to the microsecond, at least 0.
func roundDur(ns float64) time.Duration {
	return time.Duration(math.Round(max(ns, 0)/1e3)) * time.Microsecond
}

// Options are the fit's choices.
type Options struct {
	// Periods: also cut each direction at its blackouts and where its loss
	// or its delay's level changes, and fit every period on its own (a
	// timeline in the scenario).
	Periods bool
}

// Fit fits the model to both directions of t. With two clocks whose
// offset puts a floor out of the link's range, the offset is split (see
// offsetSplit) and both directions fitted again on the shifted delays:
// a fit made on delays below 0, which the link floors at 0, is no fit.
func Fit(t *trace.Trace, o Options) (*Result, error) {
	r, err := fitBoth(t, o)
	if err != nil {
		return nil, err
	}
	theta := r.offsetSplit()
	if theta == 0 {
		return r, nil
	}
	shifted := *t
	for _, dir := range []*trace.Direction{&shifted.Up, &shifted.Down} {
		by := theta // subtracted from the first direction fitted, added to the second
		if r.Dirs[0].Name != dir.Name {
			by = -theta
		}
		dir.Packets = slices.Clone(dir.Packets)
		for j := range dir.Packets {
			if dir.Packets[j].Status == trace.Delivered {
				dir.Packets[j].Delay -= by
			}
		}
	}
	if r, err = fitBoth(&shifted, o); err != nil {
		return nil, err
	}
	r.File, r.OffsetRemoved = t.File, float64(theta)
	return r, nil
}

// Corrected is t as the fit saw it: with two clocks, the offset split as
// the report says and each direction's drift removed when it stood out of
// its noise (around the mean send time of its delivered packets, as the
// fit removes it). Other captures come back as they are.
func (r *Result) Corrected(t *trace.Trace) *trace.Trace {
	if r.SyncedClocks {
		return t
	}
	out := *t
	for _, dir := range []*trace.Direction{&out.Up, &out.Down} {
		var d *Dir
		for i, x := range r.Dirs {
			if x.Name == dir.Name {
				d = r.Dirs[i]
			}
		}
		if d == nil || len(dir.Packets) == 0 {
			continue
		}
		by := int64(math.Round(r.OffsetRemoved)) // subtracted from the first direction, added to the second
		if d != r.Dirs[0] {
			by = -by
		}
		pk := slices.Clone(dir.Packets)
		for i := range pk {
			if pk[i].Status == trace.Delivered {
				pk[i].Delay -= by
			}
		}
		if d.DriftRemoved {
			pk = withoutDrift(pk, d.drift)
		}
		dir.Packets = pk
	}
	return &out
}

// medianDelay is the median delay of the delivered packets of pk.
func medianDelay(pk []trace.Packet) (float64, bool) {
	var d []float64
	for _, p := range pk {
		if p.Status == trace.Delivered {
			d = append(d, float64(p.Delay))
		}
	}
	if len(d) == 0 {
		return 0, false
	}
	slices.Sort(d)
	return quantileOf(d, 0.5), true
}

// fitBoth fits each direction of t that has packets.
func fitBoth(t *trace.Trace, o Options) (*Result, error) {
	r := &Result{File: t.File, Format: t.Format, SyncedClocks: t.SyncedClocks}
	for _, dir := range []*trace.Direction{&t.Up, &t.Down} {
		if len(dir.Packets) == 0 {
			continue
		}
		if med, ok := medianDelay(dir.Packets); t.SyncedClocks && ok && med < 0 {
			return nil, fmt.Errorf("%s: %s: one clock for send and arrival, yet the packets arrive before they are sent (median delay %.1f ms): the capture's ends are the wrong way round (a pcap: --client names the game client's own endpoint, --server the game server's)",
				t.File, dir.Name, med/1e6)
		}
		d, err := fitDir(dir, t.SyncedClocks, t.Origin, o.Periods)
		if err != nil {
			// One direction may be dead or barely used; fit the other.
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: %v", dir.Name, err))
			continue
		}
		r.Dirs = append(r.Dirs, d)
	}
	if len(r.Dirs) == 0 {
		return nil, fmt.Errorf("%s: %s", t.File, strings.Join(r.Skipped, "; "))
	}
	return r, nil
}

// Duration is how long the captured session lasted, for the scenario: per
// direction from the capture's start ([Dir.Start]) to the last send plus
// the mean spacing of the sends (the last packet's share of time), the
// longer of the two.
func (r *Result) Duration() time.Duration {
	var dur time.Duration
	for _, d := range r.Dirs {
		end := d.Start + d.Span
		if d.Sent > 1 {
			end += d.Span / time.Duration(d.Sent-1)
		}
		dur = max(dur, end)
	}
	return dur
}

// offsetSplit: with two clocks, a floor below 0 or above the link's
// longest latency can only be their offset. It is split so that both
// directions get the same floor (NTP's assumption); with one direction its
// floor becomes 0. offsetSplit returns the ns to subtract from the first
// direction's delays and add to the second's, 0 when the floors are in
// range.
func (r *Result) offsetSplit() int64 {
	if r.SyncedClocks || len(r.Dirs) == 0 {
		return 0
	}
	out := false
	for _, d := range r.Dirs {
		out = out || d.Floor < 0 || d.Floor > float64(netem.MaxLatency)
	}
	if !out {
		return 0
	}
	theta := r.Dirs[0].Floor
	if len(r.Dirs) == 2 {
		theta = float64((r.Dirs[0].Floor - r.Dirs[1].Floor) / 2)
	}
	return int64(math.Round(theta))
}

// MinDelivered is the fewest delivered packets a direction needs for a fit.
const MinDelivered = 20

// point is one delivered packet: send time from the first send and delay, ns.
type point struct {
	t, d float64
	seq  uint64
	at   int64 // arrival on the receiver's clock
	idx  int   // in the direction's packets
}

func fitDir(dir *trace.Direction, synced bool, origin int64, periods bool) (*Dir, error) {
	pk := dir.Packets
	d := &Dir{Name: dir.Name, Sent: len(pk), Duplicates: dir.Duplicates}
	t0 := pk[0].Send
	var tMin, tMax = pk[0].Send, pk[0].Send
	var pts []point
	if synced {
		d.Start = time.Duration(t0 - origin)
	}
	for i, p := range pk {
		tMin, tMax = min(tMin, p.Send), max(tMax, p.Send)
		switch p.Status {
		case trace.Delivered:
			d.Delivered++
			pts = append(pts, point{t: float64(p.Send - t0), d: float64(p.Delay), seq: p.Seq, at: p.Send + p.Delay, idx: i})
		case trace.Lost:
			d.Lost++
		case trace.Unmeasured:
			d.Unmeasured++
		}
	}
	d.Span = time.Duration(tMax - tMin)
	if len(pts) < MinDelivered {
		return nil, fmt.Errorf("%d delivered packets: the fit needs at least %d", len(pts), MinDelivered)
	}

	// Clock drift: the lower envelope's slope, removed around the mean send
	// time so that the mean delay is kept.
	if !synced {
		slope, se, ok := envelopeSlope(pts)
		d.DriftPPM, d.DriftSE = float64(slope*1e6), float64(se*1e6)
		// Removed only when it stands out of its noise (3 standard errors).
		if ok && math.Abs(slope) > 3*se {
			d.DriftRemoved, d.drift = true, slope
			var tm float64
			for _, p := range pts {
				tm += p.t
			}
			tm /= float64(len(pts))
			for i := range pts {
				pts[i].d -= float64(slope * (pts[i].t - tm))
			}
		}
	}
	d.fitDelays(pts)
	// Packets that skipped the delay (netem's reorder): below the jitter's
	// range. The delays are fitted again without them.
	all := pts
	if rest, excess := d.withoutSkipped(pts); len(rest) < len(pts) {
		d.Skipped = len(pts) - len(rest)
		d.Reorder = excess / float64(len(pts))
		pts = rest
		d.fitDelays(pts)
	}

	fitLoss(d, pk)
	if l := float64(d.Lost) / float64(d.Sent); d.Duplicates > 0 && l < 1 {
		d.Duplicate = min(float64(d.Duplicates)/(float64(d.Sent)*float64((1-l)*(1-l))), 1)
	}
	fitReorder(d, all, pk)
	for _, b := range blackouts(pk) {
		d.blackouts = append(d.blackouts, blackoutRun{b[1] - b[0], d.Start + time.Duration(pk[b[0]].Send-t0)})
	}
	d.judge()
	if periods {
		fitPeriods(d, pk, pts, synced, origin)
	}
	return d, nil
}

// fitDelays fits the delays of pts (drift removed): their normal scores and
// autocorrelation, the five distributions and the quantiles.
func (d *Dir) fitDelays(pts []point) {
	x := make([]float64, len(pts))
	for i, p := range pts {
		x[i] = p.d
	}
	d.scores = normalScores(x)
	slices.Sort(x)
	d.delays = x
	d.Floor = x[0]

	// Correlation, then the jitter distribution (the KS test's effective
	// sample size needs the correlation).
	d.ACF, d.ACFPairs = autocorr(d.scores, 10)
	d.Rho = min(max(d.ACF[0], 0), 1)
	d.RhoSE = math.Sqrt(max(1-float64(d.Rho*d.Rho), 0) / float64(max(d.ACFPairs[0], 1)))
	d.NEff = float64(len(x)) * (1 - d.Rho) / (1 + d.Rho)
	d.KSCrit = 1.358 / math.Sqrt(max(d.NEff, 1))
	d.Candidates, d.Best, d.Quantiles = nil, 0, nil
	for dist := range netem.Dist(len(netem.DistNames())) {
		c := fitDist(dist, x)
		c.KS = ksDistance(dist, c.Latency, c.Jitter, x)
		d.Candidates = append(d.Candidates, c)
		if c.KS < d.Candidates[d.Best].KS {
			d.Best = len(d.Candidates) - 1
		}
	}
	best := d.Candidates[d.Best]
	for _, p := range []float64{0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 0.999} {
		d.Quantiles = append(d.Quantiles, Quantile{P: p, Observed: quantileOf(x, p), Expected: modelQuantile(best, p)})
	}
}

// withoutSkipped finds the packets that skipped the delay: netem's reorder
// sends a packet at once, so its delay is the path's floor, below the
// fitted jitter's whole range. The range starts at the fitted model's
// 1/(10n) quantile less 5σ/√n (σ the jitter's standard deviation: the
// fitted quantile's own error, so that a bounded range's edge fitted a
// little high takes no packet of the range; below it: skipped), or at 0 when that is below 0 (the
// link floors delays at 0, so a skipped packet and the model's floored
// draws share 0: at 0 is skipped). Expected of the model there: e =
// n·max(1/(10n), F(0)) packets. Those packets are taken as skipped when they exceed e by
// more than 3 + 3·√e (3 standard deviations of a Poisson count, and 3
// packets at least) and e < 1 (else the jitter's own floor hides them);
// reorder is then (count − e)/n. It returns pts without them, and their
// number less e (0 and pts itself when none are taken).
func (d *Dir) withoutSkipped(pts []point) ([]point, float64) {
	c := d.Candidates[d.Best]
	n := float64(len(pts))
	sd := c.Jitter // the jitter's standard deviation
	if c.Dist == netem.Uniform {
		sd /= math.Sqrt(3)
	}
	margin := 5 * sd / math.Sqrt(n)
	start := max(c.Latency+float64(c.Jitter*c.Dist.Offset(normInv(1/float64(10*n))))-margin, 0)
	e := float64(n * max(1/float64(10*n), cdf(c, 0)))
	var rest []point
	for _, p := range pts {
		if p.d >= start && (p.d > 0 || start > 0) {
			rest = append(rest, p)
		}
	}
	k := float64(len(pts) - len(rest))
	if e >= 1 || k-e <= 3+float64(3*math.Sqrt(e)) || len(rest) < MinDelivered {
		return pts, 0
	}
	return rest, k - e
}

// envelopeSlope estimates the drift as the slope of the delays' lower
// envelope against send time: the packets, in send order, are cut into
// windows of equal count (between 4 and 50 of at least 50 packets); a least-
// squares line goes through each window's (mean send time, 5 % quantile of
// delay). A low quantile rather than the minimum, so that a soft floor (normal
// jitter's lower tail) does not tilt the line. It returns the slope and its
// standard error from the residuals.
func envelopeSlope(pts []point) (slope, se float64, ok bool) {
	return envelopeSlopeWithin(pts, nil)
}

// envelopeSlopeWithin is envelopeSlope with the delay's level free to
// change at cuts (packet indices, ascending): one slope through every
// segment's windows, each segment with its own intercept; a window that
// straddles a cut is left out.
func envelopeSlopeWithin(pts []point, cuts []int) (slope, se float64, ok bool) {
	ps := slices.Clone(pts)
	slices.SortStableFunc(ps, func(a, b point) int { return cmp.Compare(a.t, b.t) })
	k := min(max(len(ps)/50, 4), 50)
	if len(ps) < 4*k {
		return 0, 0, false
	}
	segOf := func(p point) int {
		n, _ := slices.BinarySearch(cuts, p.idx+1)
		return n
	}
	var xs, ys []float64
	var seg []int
	var w []float64
	for i := range k {
		lo, hi := i*len(ps)/k, (i+1)*len(ps)/k
		s := segOf(ps[lo])
		w = w[:0]
		var st float64
		for _, p := range ps[lo:hi] {
			if segOf(p) != s {
				s = -1
			}
			w = append(w, p.d)
			st += p.t
		}
		if s < 0 {
			continue
		}
		slices.Sort(w)
		xs, ys, seg = append(xs, st/float64(hi-lo)), append(ys, quantileOf(w, 0.05)), append(seg, s)
	}
	mx, my, cnt := make([]float64, len(cuts)+1), make([]float64, len(cuts)+1), make([]float64, len(cuts)+1)
	for i := range xs {
		mx[seg[i]] += xs[i]
		my[seg[i]] += ys[i]
		cnt[seg[i]]++
	}
	segs := 0
	for j := range cnt {
		if cnt[j] > 0 {
			mx[j] /= cnt[j]
			my[j] /= cnt[j]
			segs++
		}
	}
	df := len(xs) - segs - 1
	var sxx, sxy float64
	for i := range xs {
		dx := xs[i] - mx[seg[i]]
		sxx += float64(dx * dx)
		sxy += float64(dx * (ys[i] - my[seg[i]]))
	}
	if sxx <= 0 || df < 1 {
		return 0, 0, false
	}
	slope = sxy / sxx
	var rss float64
	for i := range xs {
		r := ys[i] - my[seg[i]] - float64(slope*(xs[i]-mx[seg[i]]))
		rss += float64(r * r)
	}
	return slope, math.Sqrt(rss / float64(df) / sxx), true
}

// normalScores maps each value to Φ⁻¹((rank − ½)/n), ties sharing their
// mean rank: the Gaussian-space values whatever the marginal law.
func normalScores(v []float64) []float64 {
	n := len(v)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	z := make([]float64, n)
	for i := 0; i < n; {
		j := i
		for j < n && v[idx[j]] == v[idx[i]] {
			j++
		}
		rank := float64(float64(i+j+1) / 2) // mean of ranks i+1..j
		s := normInv((rank - 0.5) / float64(n))
		for k := i; k < j; k++ {
			z[idx[k]] = s
		}
		i = j
	}
	return z
}

// autocorr is the autocorrelation of z at lags 1..maxLag (z has mean ≈ 0).
func autocorr(z []float64, maxLag int) ([]float64, []int) {
	var mean, v float64
	for _, x := range z {
		mean += x
	}
	mean /= float64(len(z))
	for _, x := range z {
		v += float64((x - mean) * (x - mean))
	}
	acf, pairs := make([]float64, maxLag), make([]int, maxLag)
	if v == 0 {
		return acf, pairs // constant: no correlation to measure
	}
	for k := 1; k <= maxLag && k < len(z); k++ {
		var s float64
		for i := k; i < len(z); i++ {
			s += float64((z[i] - mean) * (z[i-k] - mean))
		}
		acf[k-1] = s / v * float64(len(z)) / float64(len(z)-k)
		pairs[k-1] = len(z) - k
	}
	return acf, pairs
}

// trimP: the fit uses the central 90 % of the order statistics, so that a
// tail of outliers (a busy host, a retry) does not steer the body.
const trimP = 0.05

// fitDist fits latency and jitter by least squares on the QQ plot: the
// sorted delays against the distribution's standard quantiles over the
// central 90 % (see trimP).
func fitDist(dist netem.Dist, x []float64) Candidate {
	n := len(x)
	var sq, sx, sqq, sqx, m float64
	for i, xi := range x {
		p := (float64(i) + 0.5) / float64(n)
		if p < trimP || p > 1-trimP {
			continue
		}
		q := dist.Offset(normInv(p))
		sq += q
		sx += xi
		sqq += float64(q * q)
		sqx += float64(q * xi)
		m++
	}
	c := Candidate{Dist: dist}
	if m < 2 {
		return c
	}
	den := float64(m*sqq) - float64(sq*sq)
	if den > 0 {
		c.Jitter = max((float64(m*sqx)-float64(sq*sx))/den, 0)
	}
	c.Latency = (sx - float64(c.Jitter*sq)) / m
	return c
}

// cdf is the model's probability that a delay is at most x.
func cdf(c Candidate, x float64) float64 {
	if c.Jitter <= 0 {
		if x >= c.Latency {
			return 1
		}
		return 0
	}
	y := (x - c.Latency) / c.Jitter
	if c.Dist == netem.Normal {
		return normCDF(y)
	}
	if p, ok := c.Dist.CDF(y); ok { // uniform, exponential, pareto
		return p
	}
	// ParetoNormal: the offset is increasing in z; bisect.
	lo, hi := -40.0, 40.0
	if c.Dist.Offset(lo) > y {
		return 0
	}
	if c.Dist.Offset(hi) <= y {
		return 1
	}
	for range 64 {
		mid := (lo + hi) / 2
		if c.Dist.Offset(mid) <= y {
			lo = mid
		} else {
			hi = mid
		}
	}
	return normCDF(lo)
}

// ksDistance is sup |F_n − F| over the sorted delays. At a value x that
// k delays share, F_n jumps from i/n to (i+k)/n and the model from
// P(delay < x) to P(delay ≤ x) (a jump too when the jitter is 0): the
// distance over the jump is the larger of the two ends'. A delay the model
// floors at 0 (latency + jitter·offset < 0) counts at 0.
func ksDistance(dist netem.Dist, lat, jit float64, x []float64) float64 {
	c := Candidate{Dist: dist, Latency: lat, Jitter: jit}
	n := float64(len(x))
	var d float64
	for i := 0; i < len(x); {
		j := i
		for j < len(x) && x[j] == x[i] {
			j++
		}
		f := cdf(c, x[i])
		if x[i] >= 0 && x[i] < 1 { // the floor at zero holds every negative draw
			f = max(f, cdf(c, 0))
		}
		below := f // P(delay < x): the same but where the model has a jump at x
		switch {
		case x[i] <= 0:
			below = 0
		case c.Jitter <= 0 && x[i] == c.Latency:
			below = 0
		}
		d = max(d, math.Abs(below-float64(i)/n), math.Abs(f-float64(j)/n))
		i = j
	}
	return d
}

// quantileOf is the empirical p-quantile of sorted x (the ⌈pn⌉-th value).
func quantileOf(x []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(x)))) - 1
	return x[min(max(i, 0), len(x)-1)]
}

// modelQuantile is the fitted model's p-quantile, floored at 0 as the link
// floors its delays.
func modelQuantile(c Candidate, p float64) float64 {
	return max(c.Latency+float64(c.Jitter*c.Dist.Offset(normInv(p))), 0)
}

// fitLoss fits Bernoulli and Gilbert–Elliott loss to the packets' loss
// sequence (an unmeasured packet arrived) and tests the burst lengths.
func fitLoss(d *Dir, pk []trace.Packet) {
	var n [2][2]float64 // transitions
	lost := 0
	run := 0
	for i, p := range pk {
		l := 0
		if p.Status == trace.Lost {
			l = 1
			lost++
			run++
		} else if run > 0 {
			d.addBurst(run)
			run = 0
		}
		if i > 0 {
			prev := 0
			if pk[i-1].Status == trace.Lost {
				prev = 1
			}
			n[prev][l]++
		}
	}
	if run > 0 {
		d.addBurst(run)
	}
	total := float64(len(pk))
	nl := float64(lost)
	pB := nl / total
	d.Bernoulli = LossFit{P: pB, LogL: xlogy(nl, pB) + xlogy(total-nl, 1-pB), Params: 1}
	d.Bernoulli.BIC = float64(-2*d.Bernoulli.LogL) + float64(float64(d.Bernoulli.Params)*detmath.Log(total))
	g := LossFit{Params: 2}
	if s := n[0][0] + n[0][1]; s > 0 {
		g.P = n[0][1] / s
	}
	if s := n[1][0] + n[1][1]; s > 0 {
		g.R = n[1][0] / s
	}
	// The first packet by the chain's stationary law, then the transitions.
	first := 0.0
	if pk[0].Status == trace.Lost {
		first = 1
	}
	pi1 := 0.0
	if g.P+g.R > 0 {
		pi1 = g.P / (g.P + g.R)
	}
	g.LogL = xlogy(first, pi1) + xlogy(1-first, 1-pi1) +
		xlogy(n[0][0], 1-g.P) + xlogy(n[0][1], g.P) + xlogy(n[1][0], g.R) + xlogy(n[1][1], 1-g.R)
	g.BIC = float64(-2*g.LogL) + float64(float64(g.Params)*detmath.Log(total))
	d.GE = g
	if lost > 0 && g.R > 0 && g.BIC < d.Bernoulli.BIC {
		d.Model = GilbertElliottLoss
	}
	law := burstLaw{Q: 1 - pB, Params: 1} // Bernoulli: a burst continues with probability p
	d.LossRate = pB
	if d.Model == GilbertElliottLoss {
		law.Q = g.R
		d.LossRate = pi1
	}
	// The 4-state model needs bursts to tell its states apart: with fewer
	// than fourMinBursts it is not fitted.
	if nb := d.burstCount(); nb >= fourMinBursts && lost < len(pk) {
		d.Four = fitFourState(pk, g)
		if best := min(d.Bernoulli.BIC, g.BIC); d.Four.P31 > 0 && d.Four.BIC < best {
			d.Model = FourStateLoss
			law = fourBurstLaw(d.Four.FourState)
			d.LossRate = d.Four.LossRate()
		}
	}
	d.MeanBurst = law.mean()
	if lost == 0 {
		d.MeanBurst = 0
	}
	d.BurstTest = burstTest(d.Bursts, law)
}

// fourMinBursts is the fewest bursts with which the 4-state model is
// fitted.
const fourMinBursts = 10

func (d *Dir) burstCount() int {
	n := 0
	for _, b := range d.Bursts {
		n += b
	}
	return n
}

func (d *Dir) addBurst(k int) {
	for len(d.Bursts) < k {
		d.Bursts = append(d.Bursts, 0)
	}
	d.Bursts[k-1]++
}

// xlogy is n·ln(p), 0 when n is 0.
func xlogy(n, p float64) float64 {
	if n == 0 {
		return 0
	}
	if p <= 0 {
		return math.Inf(-1)
	}
	return float64(n * detmath.Log(p))
}

// burstTest is Pearson's χ² test of the observed burst lengths against the
// law the chosen model gives them: geometric, P(length = k) = (1−r)^(k−1)·r,
// for Bernoulli and Gilbert–Elliott; for the 4-state model a mix of
// isolated losses and geometric bursts (see [burstLaw]). Lengths are binned
// from 1 up, each bin expecting at least 5 bursts, the last bin
// open-ended; the test has bins − 1 − (the law's fitted parameters)
// degrees of freedom and rejects at the 0.1 % level.
func burstTest(bursts []int, law burstLaw) ChiSquare {
	var total int
	for _, b := range bursts {
		total += b
	}
	t := ChiSquare{law: law}
	if total == 0 || law.Q <= 0 {
		return t
	}
	nb := float64(total)
	obsFrom := func(k int) int {
		s := 0
		for i := k - 1; i < len(bursts); i++ {
			s += bursts[i]
		}
		return s
	}
	for k := 1; ; k++ {
		// Close the bins with an open-ended one once what is left after
		// this bin expects fewer than 5.
		if float64(nb*law.tail(k+1)) < 5 || k >= maxBins {
			t.Bins = append(t.Bins, BurstBin{From: k, Observed: obsFrom(k), Expected: float64(nb * law.tail(k))})
			break
		}
		obs := 0
		if k <= len(bursts) {
			obs = bursts[k-1]
		}
		t.Bins = append(t.Bins, BurstBin{From: k, To: k, Observed: obs, Expected: float64(nb * law.p(k))})
	}
	t.DF = len(t.Bins) - 1 - law.Params
	if t.DF < 1 || t.Bins[0].Expected < 5 {
		return t
	}
	t.Testable = true
	for _, b := range t.Bins {
		dev := float64(b.Observed) - b.Expected
		t.Stat += float64(dev*dev) / b.Expected
	}
	t.Crit = chi2Crit(t.DF)
	return t
}

// maxBins bounds the burst histogram: lengths from maxBins up share a bin.
const maxBins = 12

// chi2Crit is the 99.9 % quantile of χ² with df degrees of freedom, by the
// Wilson–Hilferty approximation (within 1 % from df 1 up).
func chi2Crit(df int) float64 {
	const z = 3.090232306167813 // Φ⁻¹(0.999)
	k := float64(df)
	a := 2 / float64(9*k)
	c := 1 - a + float64(z*math.Sqrt(a))
	return float64(float64(k*c)*c) * c
}

// fitReorder measures the fraction of delivered packets that arrived after
// a later-sent one (the lab's count of reordered packets), and what the
// fitted link, its reorder parameter included, gives with the capture's
// send times (seed 1).
func fitReorder(d *Dir, pts []point, pk []trace.Packet) {
	d.ReorderObserved = reorderRate(pts)
	pr := d.Params()
	if d.Floor < 0 || d.Floor > float64(netem.MaxLatency) {
		// Two clocks' offset (removed later): only the delays above the
		// floor matter for the order.
		pr.Latency = roundDur(d.Candidates[d.Best].Latency - d.Floor)
	}
	l, err := netem.New(1, d.Name, pr)
	if err != nil {
		return
	}
	t0 := pk[0].Send
	var now sim.Time
	for _, p := range pk {
		now = max(now, sim.Time(p.Send-t0)) // a link's time never runs back
		for {
			at, ok := l.NextDelivery()
			if !ok || at > now {
				break
			}
			l.Deliver(at)
		}
		l.Send(now, netem.Packet{})
	}
	for {
		at, ok := l.NextDelivery()
		if !ok {
			break
		}
		l.Deliver(at)
	}
	c := l.Counters()
	if c.Delivered > 0 {
		d.ReorderModel = float64(c.Reordered) / float64(c.Delivered)
	}
}

// reorderRate is the fraction of packets that arrive after a packet sent
// later (by sequence number), in arrival order.
func reorderRate(pts []point) float64 {
	ps := slices.Clone(pts)
	slices.SortStableFunc(ps, func(a, b point) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
	var maxSeq uint64
	n := 0
	for i, p := range ps {
		if i > 0 && p.seq < maxSeq {
			n++
		}
		maxSeq = max(maxSeq, p.seq)
	}
	return float64(n) / float64(len(ps))
}
