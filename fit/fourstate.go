package fit

import (
	"math"

	"jitterlab/detmath"
	"jitterlab/netem"
	"jitterlab/trace"
)

// FourStateFit is netem's 4-state Markov loss model ([netem.FourState])
// fitted to a loss sequence by maximum likelihood. Its states are hidden:
// a lost packet is in state 3 (lost in a burst period) or 4 (an isolated
// loss), a received one in 1 (gap period) or 2 (burst period), so the
// likelihood is that of a hidden Markov chain with a deterministic
// emission, maximised by EM (Baum–Welch).
type FourStateFit struct {
	netem.FourState
	// SE is the standard error of P13, P31, P32, P23, P14 (in that order)
	// from the observed information (the numerical Hessian of the log
	// likelihood); 0 for a parameter on its boundary (0, or a row summing
	// to 1), NaN where the likelihood is flat (not identifiable).
	SE         [5]float64
	LogL, BIC  float64
	Params     int
	Iterations int // EM iterations of the start that won
}

// lossObs is a packet's observation: lost or not.
type lossObs []bool

// emStarts are the EM's starting points, relative to the Gilbert–Elliott
// fit (p = P(G→B), r = P(B→G)): the share of p that goes to isolated
// losses (P14), the share of r that goes to the burst period's received
// state (P32), and P23. Several starts, because EM finds a local maximum;
// the best log likelihood wins.
var emStarts = [][3]float64{{0.5, 0.5, 0.3}, {0.2, 0.2, 0.5}, {0.8, 0.5, 0.2}, {0.5, 0.8, 0.6}}

// EM limits: every start runs emStartIter iterations, then the best goes on
// until an iteration raises the log likelihood by less than emTol, or the
// fit has stepped through emMaxWork packets (at least one iteration more
// after the starts: a bound on time for captures of millions of packets),
// or after emMaxIter iterations.
const (
	emStartIter = 10
	emTol       = 1e-4
	emMaxIter   = 500
	emMaxWork   = 1e8
)

// fitFourState fits netem's 4-state model to the loss sequence of pk,
// starting EM from points around the Gilbert–Elliott fit g.
func fitFourState(pk []trace.Packet, g LossFit) FourStateFit {
	obs := make(lossObs, len(pk))
	for i, p := range pk {
		obs[i] = p.Status == trace.Lost
	}
	buf := &emBuf{alpha: make([][2]float64, len(obs)), scale: make([]float64, len(obs))}
	// run iterates EM from th at most n times; it returns the parameters,
	// their log likelihood and the iterations run.
	run := func(th netem.FourState, n int) (netem.FourState, float64, int) {
		ll := math.Inf(-1)
		for it := 1; it <= n; it++ {
			next, l := emStep(th, obs, buf) // l is th's log likelihood
			if l-ll < emTol {
				return th, l, it
			}
			th, ll = next, l
		}
		return th, fourLogL(th, obs), n
	}
	best := FourStateFit{Params: 5, LogL: math.Inf(-1)}
	work := 0
	for _, s := range emStarts {
		p, r := min(max(g.P, 1e-4), 0.5), min(max(g.R, 1e-3), 0.9)
		th := netem.FourState{
			P13: float64((1 - s[0]) * p), P14: float64(s[0] * p),
			P31: float64((1 - s[1]) * r), P32: float64(s[1] * r),
			P23: s[2],
		}
		th, ll, it := run(th, emStartIter)
		work += it
		if ll > best.LogL {
			best.FourState, best.LogL, best.Iterations = th, ll, it
		}
	}
	more := min(emMaxIter, max(int(emMaxWork/float64(len(obs)))-work, 1))
	th, ll, it := run(best.FourState, more)
	if ll >= best.LogL {
		best.FourState, best.LogL = th, ll
	}
	best.Iterations += it
	best.BIC = float64(-2*best.LogL) + float64(5*detmath.Log(float64(len(obs))))
	best.SE = fourSE(best.FourState, obs)
	return best
}

// trans is the 4-state chain's transition matrix, states 1..4 at 0..3.
func trans(g netem.FourState) [4][4]float64 {
	return [4][4]float64{
		{1 - g.P13 - g.P14, 0, g.P13, g.P14},
		{0, 1 - g.P23, g.P23, 0},
		{g.P31, g.P32, 1 - g.P31 - g.P32, 0},
		{1, 0, 0, 0},
	}
}

// initial is the law of the first packet's state: the chain's stationary
// law, or state 1 when it has none (P31 = 0).
func initial(g netem.FourState) [4]float64 {
	if g.P31 <= 0 || (g.P32 > 0 && g.P23 <= 0) {
		return [4]float64{1, 0, 0, 0}
	}
	return g.Stationary()
}

// emBuf holds the forward pass for the backward one: per packet the
// filtered probabilities of the two states that can show its observation
// (1, 2 when received; 3, 4 when lost) and the scaling constant.
type emBuf struct {
	alpha [][2]float64
	scale []float64
}

// states is the first state (0-based) of the pair that shows lost or not.
func states(lost bool) int {
	if lost {
		return 2
	}
	return 0
}

// forward runs the scaled forward recursion: the probability of each state
// at t given the observations up to t; it returns the log likelihood and,
// with buf, keeps what the backward pass needs.
func forward(g netem.FourState, obs lossObs, buf *emBuf) float64 {
	A := trans(g)
	var a [4]float64
	pi := initial(g)
	var ll float64
	for t, lost := range obs {
		var next [4]float64
		var c float64
		s0 := states(lost)
		for j := s0; j < s0+2; j++ {
			if t == 0 {
				next[j] = pi[j]
			} else {
				var s float64
				for i := range 4 {
					s += float64(a[i] * A[i][j])
				}
				next[j] = s
			}
			c += next[j]
		}
		if !(c > 0) {
			return math.Inf(-1)
		}
		next[s0] /= c
		next[s0+1] /= c
		a = next
		ll += detmath.Log(c)
		if buf != nil {
			buf.alpha[t], buf.scale[t] = [2]float64{next[s0], next[s0+1]}, c
		}
	}
	return ll
}

// fourLogL is the log likelihood of obs under g.
func fourLogL(g netem.FourState, obs lossObs) float64 { return forward(g, obs, nil) }

// emStep is one EM (Baum–Welch) iteration: the expected transition counts
// given the observations under g (forward–backward), then each row of the
// matrix re-estimated as those counts' shares (state 4 always returns to 1).
// It returns the new parameters and the log likelihood under g.
func emStep(g netem.FourState, obs lossObs, buf *emBuf) (netem.FourState, float64) {
	n := len(obs)
	ll := forward(g, obs, buf)
	if math.IsInf(ll, -1) || n < 2 {
		return g, ll
	}
	A := trans(g)
	var cnt [4][4]float64
	// beta[j] is P(observations after t | state j at t) over the scaling
	// constants after t; only the two states showing obs[t] matter.
	beta := [4]float64{1, 1, 1, 1}
	for t := n - 2; t >= 0; t-- {
		s0, s1 := states(obs[t]), states(obs[t+1])
		var prev [4]float64
		for i := s0; i < s0+2; i++ {
			ai := buf.alpha[t][i-s0]
			var s float64
			for j := s1; j < s1+2; j++ {
				if A[i][j] == 0 {
					continue
				}
				w := float64(A[i][j]*beta[j]) / buf.scale[t+1]
				s += w
				cnt[i][j] += float64(ai * w)
			}
			prev[i] = s
		}
		beta = prev
	}
	row := func(i int) float64 { return cnt[i][0] + cnt[i][1] + cnt[i][2] + cnt[i][3] }
	next := g
	if s := row(0); s > 0 {
		next.P13, next.P14 = cnt[0][2]/s, cnt[0][3]/s
	}
	if s := row(1); s > 0 {
		next.P23 = cnt[1][2] / s
	}
	if s := row(2); s > 0 {
		next.P31, next.P32 = cnt[2][0]/s, cnt[2][1]/s
	}
	return next, ll
}

// fourSE is the standard errors of g's parameters from the observed
// information: the inverse of the negative Hessian of the log likelihood,
// by central differences, over the parameters not on a boundary.
func fourSE(g netem.FourState, obs lossObs) [5]float64 {
	get := func(g netem.FourState) [5]float64 { return [5]float64{g.P13, g.P31, g.P32, g.P23, g.P14} }
	set := func(v [5]float64) netem.FourState {
		return netem.FourState{P13: v[0], P31: v[1], P32: v[2], P23: v[3], P14: v[4]}
	}
	v := get(g)
	var se [5]float64
	// A parameter is free when it and its row's complement are off 0.
	const edge = 1e-6
	var free []int
	for i, x := range v {
		rowSum := x
		switch i {
		case 0, 4:
			rowSum = v[0] + v[4]
		case 1, 2:
			rowSum = v[1] + v[2]
		}
		if x > edge && rowSum < 1-edge && !(i == 3 && v[2] <= edge) {
			free = append(free, i)
		}
	}
	if len(free) == 0 {
		return se
	}
	h := make([]float64, 5)
	for _, i := range free {
		h[i] = min(float64(1e-3*v[i]), float64(0.5*v[i]), float64(0.5*(1-v[i])))
	}
	f := func(d map[int]float64) float64 {
		w := v
		for i, x := range d {
			w[i] += x
		}
		return fourLogL(set(w), obs)
	}
	m := len(free)
	H := make([][]float64, m)
	f0 := f(nil)
	for a, i := range free {
		H[a] = make([]float64, m)
		for b, j := range free[:a+1] {
			var d2 float64
			if i == j {
				d2 = (f(map[int]float64{i: h[i]}) - float64(2*f0) + f(map[int]float64{i: -h[i]})) / float64(h[i]*h[i])
			} else {
				d2 = (f(map[int]float64{i: h[i], j: h[j]}) - f(map[int]float64{i: h[i], j: -h[j]}) -
					f(map[int]float64{i: -h[i], j: h[j]}) + f(map[int]float64{i: -h[i], j: -h[j]})) / float64(4*float64(h[i]*h[j]))
			}
			H[a][b], H[b][a] = -d2, -d2
		}
	}
	inv, ok := invert(H)
	for a, i := range free {
		if !ok || !(inv[a][a] > 0) {
			se[i] = math.NaN()
			continue
		}
		se[i] = math.Sqrt(inv[a][a])
	}
	return se
}

// invert inverts a small symmetric matrix by Gauss–Jordan elimination with
// partial pivoting; ok is false when it is singular.
func invert(m [][]float64) ([][]float64, bool) {
	n := len(m)
	a := make([][]float64, n)
	for i := range m {
		a[i] = make([]float64, 2*n)
		copy(a[i], m[i])
		a[i][n+i] = 1
	}
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if a[p][c] == 0 {
			return nil, false
		}
		a[c], a[p] = a[p], a[c]
		piv := a[c][c]
		for k := range a[c] {
			a[c][k] /= piv
		}
		for r := range n {
			if r == c || a[r][c] == 0 {
				continue
			}
			f := a[r][c]
			for k := range a[r] {
				a[r][k] -= float64(f * a[c][k])
			}
		}
	}
	out := make([][]float64, n)
	for i := range a {
		out[i] = a[i][n:]
	}
	return out, true
}

// burstLaw is the law of a burst's length: with probability W an isolated
// loss (length 1), else geometric, P(k) = (1−Q)^(k−1)·Q. Bernoulli and
// Gilbert–Elliott have W = 0; the 4-state model's bursts start in state 4
// (W, the share of bursts entered from state 1 through P14) or in state 3,
// which they leave with P31 + P32. Params is how many of the law's
// parameters were fitted (for the χ² test's degrees of freedom).
type burstLaw struct {
	W, Q   float64
	Params int
}

// p is P(length = k).
func (b burstLaw) p(k int) float64 {
	g := float64((1 - b.W) * powInt(1-b.Q, k-1) * b.Q)
	if k == 1 {
		return b.W + g
	}
	return g
}

// tail is P(length ≥ k).
func (b burstLaw) tail(k int) float64 {
	if k <= 1 {
		return 1
	}
	return float64((1 - b.W) * powInt(1-b.Q, k-1))
}

// mean is the mean burst length.
func (b burstLaw) mean() float64 {
	if b.Q <= 0 {
		return math.Inf(1)
	}
	return b.W + (1-b.W)/b.Q
}

// fourBurstLaw is the burst-length law of the 4-state chain g.
func fourBurstLaw(g netem.FourState) burstLaw {
	pi := g.Stationary()
	into4 := float64(pi[0] * g.P14)
	into3 := float64(pi[0]*g.P13) + float64(pi[1]*g.P23)
	w := 0.0
	if into3+into4 > 0 {
		w = into4 / (into3 + into4)
	}
	return burstLaw{W: w, Q: g.P31 + g.P32, Params: 2}
}
