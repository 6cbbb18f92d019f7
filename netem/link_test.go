package netem

import (
	"errors"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"jitterlab/param"
	"jitterlab/sim"
)

const ms = time.Millisecond

// drive sends n packets of size bytes every spacing and delivers each copy
// at its time, as the session's event loop does. It returns the send
// results in send order and the deliveries in arrival order.
func drive(t testing.TB, l *Link, n int, spacing time.Duration, size int) ([]SendResult, []Delivery) {
	t.Helper()
	sends := make([]SendResult, 0, n)
	var dels []Delivery
	deliverUntil := func(now sim.Time) {
		for {
			at, ok := l.NextDelivery()
			if !ok || at > now {
				return
			}
			d, ok := l.Deliver(at)
			if !ok {
				t.Fatal("NextDelivery due but Deliver refused")
			}
			dels = append(dels, d)
		}
	}
	for i := range n {
		now := sim.Time(int64(i) * int64(spacing))
		deliverUntil(now - 1) // deliveries due before this send
		sends = append(sends, l.Send(now, Packet{ID: uint64(i), Size: size}))
	}
	deliverUntil(math.MaxInt64)
	return sends, dels
}

func newLink(t testing.TB, p Params) *Link {
	t.Helper()
	l, err := New(7, "up", p)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %.3g", what, got, want, tol)
	} else {
		t.Logf("%s = %.6g (want %.6g ± %.3g)", what, got, want, tol)
	}
}

func TestBernoulliLossRate(t *testing.T) {
	const n, p = 200000, 0.05
	l := newLink(t, Params{Loss: p})
	drive(t, l, n, ms, 100)
	c := l.Counters()
	within(t, "loss rate", float64(c.Lost)/n, p, 5*math.Sqrt(p*(1-p)/n))
	if c.Lost+c.Delivered != c.Sent {
		t.Fatalf("lost %d + delivered %d != sent %d", c.Lost, c.Delivered, c.Sent)
	}
}

// lossPattern returns, per sent packet, whether it was lost.
func lossPattern(sends []SendResult) []bool {
	out := make([]bool, len(sends))
	for i, s := range sends {
		out[i] = s.Lost > 0
	}
	return out
}

func TestGilbertElliottLossRateAndBurstLength(t *testing.T) {
	for _, c := range []struct{ loss, burst float64 }{{0.05, 4}, {0.02, 1.5}, {0.2, 10}} {
		const n = 400000
		l := newLink(t, Params{Loss: c.loss, LossBurst: c.burst})
		sends, _ := drive(t, l, n, ms, 100)
		lost := lossPattern(sends)
		g, _ := BurstLoss(c.loss, c.burst)
		// The loss indicator is the state of a two-state Markov chain with
		// second eigenvalue λ = 1−p−r: Var(mean) ≈ π(1−π)(1+λ)/((1−λ)n).
		lam := 1 - g.P - g.R
		sd := math.Sqrt(c.loss * (1 - c.loss) * (1 + lam) / (1 - lam) / n)
		k := 0
		for _, x := range lost {
			if x {
				k++
			}
		}
		within(t, "GE loss rate", float64(k)/n, c.loss, 5*sd)

		// Bursts: maximal runs of lost packets, geometric with mean 1/r.
		var runs []int
		run := 0
		for _, x := range lost {
			if x {
				run++
			} else if run > 0 {
				runs = append(runs, run)
				run = 0
			}
		}
		sum := 0
		for _, r := range runs {
			sum += r
		}
		mean := float64(sum) / float64(len(runs))
		geoSD := math.Sqrt((1 - g.R) / (g.R * g.R))
		within(t, "GE mean burst length", mean, c.burst, 5*geoSD/math.Sqrt(float64(len(runs))))
	}
}

func TestGilbertElliottExplicitLossRate(t *testing.T) {
	// netem "loss gemodel 1% 10% 70% 0.1%": p, r, 1−h = LossBad, 1−k = LossGood.
	g := GilbertElliott{P: 0.01, R: 0.10, LossBad: 0.7, LossGood: 0.001}
	const n = 400000
	l := newLink(t, Params{GE: g})
	drive(t, l, n, ms, 100)
	want := g.LossRate()
	if math.Abs(want-(0.1*0.001+0.01*0.7)/0.11) > 1e-15 {
		t.Fatalf("LossRate formula: %v", want)
	}
	// Conservative sd: the chain mixes in ~1/(p+r) packets.
	sd := math.Sqrt(want * (1 - want) * (2/(g.P+g.R) - 1) / n)
	within(t, "GE explicit loss rate", float64(l.Counters().Lost)/n, want, 5*sd)
}

// delays returns the delay of every delivered original copy in send order.
func delays(dels []Delivery) []float64 {
	sort.Slice(dels, func(i, j int) bool { return dels[i].Seq < dels[j].Seq })
	out := make([]float64, 0, len(dels))
	for _, d := range dels {
		if d.Copy == 0 {
			out = append(out, float64(d.At-d.SentAt))
		}
	}
	return out
}

func moments(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

func normCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// cdf is each distribution's CDF of the offset (delay−latency)/jitter,
// written from its definition, not from the sampler.
func cdf(d Dist, y float64) float64 {
	switch d {
	case Uniform:
		return min(max((y+1)/2, 0), 1)
	case Normal:
		return normCDF(y)
	case Pareto:
		x := y*math.Sqrt(0.75) + 1.5
		if x < 1 {
			return 0
		}
		return 1 - math.Pow(x, -3)
	case Exponential:
		if y >= ExponentialCap {
			return 1
		}
		return 1 - math.Exp(-max(y, 0))
	case ParetoNormal:
		// Defined by its quantile function; invert it by bisection.
		return normCDF(zOf(d, y))
	}
	panic(d)
}

// zOf inverts the monotone map z → d.offset(z) by bisection.
func zOf(d Dist, y float64) float64 {
	lo, hi := -12.0, 12.0
	for range 52 {
		mid := (lo + hi) / 2
		if d.offset(mid) < y {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func TestDelayMomentsAndShape(t *testing.T) {
	const n = 400000
	lat, jit := 200*ms, 20*ms
	a := float64(ExponentialCap)
	expMean := 1 - math.Exp(-a)
	expVar := 2 - math.Exp(-a)*(2*a+2) - expMean*expMean
	cases := []struct {
		d             Dist
		mean, sd      float64 // of the offset in units of jitter
		kurtosis      float64 // μ4/σ⁴; 0 when infinite
		sdRelTolHeavy float64
	}{
		{Uniform, 0, 1 / math.Sqrt(3), 1.8, 0},
		{Normal, 0, 1, 3, 0},
		{Exponential, expMean, math.Sqrt(expVar), 9, 0},
		// α = 3: the fourth moment is infinite, so the sample variance has no
		// finite variance and converges like n^(−1/3); 4 % at n = 400k.
		{Pareto, 0, 1, 0, 0.04},
		{ParetoNormal, 0, 1, 0, 0.04},
	}
	for _, c := range cases {
		t.Run(c.d.String(), func(t *testing.T) {
			l := newLink(t, Params{Latency: lat, Jitter: jit, JitterDist: c.d})
			_, dels := drive(t, l, n, ms, 100)
			x := delays(dels)
			mean, sd := moments(x)
			wantMean := float64(lat) + c.mean*float64(jit)
			wantSD := c.sd * float64(jit)
			within(t, "mean delay (ns)", mean, wantMean, 5*wantSD/math.Sqrt(n))
			if c.kurtosis > 0 {
				// Var(s²) ≈ (μ4 − σ⁴)/n, so sd(s) ≈ σ·sqrt((κ−1)/n)/2.
				within(t, "sd of delay (ns)", sd, wantSD, 5*wantSD*math.Sqrt((c.kurtosis-1)/n)/2)
			} else {
				within(t, "sd of delay (ns)", sd, wantSD, c.sdRelTolHeavy*wantSD)
			}
			// Kolmogorov-Smirnov against the CDF: D·√n < 1.95 at α = 0.001.
			ys := make([]float64, len(x))
			for i, v := range x {
				ys[i] = (v - float64(lat)) / float64(jit)
			}
			sort.Float64s(ys)
			var dmax float64
			for i, y := range ys {
				f := cdf(c.d, y)
				dmax = max(dmax, math.Abs(f-float64(i)/float64(len(ys))), math.Abs(f-float64(i+1)/float64(len(ys))))
			}
			if ks := dmax * math.Sqrt(float64(len(ys))); ks > 1.95 {
				t.Errorf("KS statistic %.3f > 1.95: the delays do not follow %v", ks, c.d)
			}
			if c.d == Uniform && (ys[0] < -1 || ys[len(ys)-1] >= 1) {
				t.Errorf("uniform delay outside [latency−jitter, latency+jitter): %v..%v", ys[0], ys[len(ys)-1])
			}
		})
	}
}

func TestParetoNormalScale(t *testing.T) {
	// pnSD is the sd of ¼z + ¾·paretoStd(z) for z ~ N(0,1): check it by
	// quadrature over z (the integrand vanishes beyond ±38).
	h := 1e-3
	var ezp, ep2 float64
	for z := -38.0; z <= 38; z += h {
		phi := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
		p := paretoStd(z)
		ezp += z * p * phi * h
		ep2 += p * p * phi * h
	}
	if math.Abs(ep2-1) > 1e-6 {
		t.Fatalf("paretoStd is not unit variance: E[p²] = %v", ep2)
	}
	sd := math.Sqrt(0.0625 + 0.5625 + 0.375*ezp)
	if math.Abs(sd-pnSD) > 1e-6 {
		t.Fatalf("pnSD = %v, quadrature gives %v", pnSD, sd)
	}
}

func lag1(x []float64) float64 {
	mean, _ := moments(x)
	var num, den float64
	for i := range x {
		den += (x[i] - mean) * (x[i] - mean)
		if i > 0 {
			num += (x[i] - mean) * (x[i-1] - mean)
		}
	}
	return num / den
}

func TestJitterCorrelationIsRho(t *testing.T) {
	for _, d := range DistNames() {
		dist, _ := ParseDist("k", d)
		// Normal and uniform are checked on the delays themselves; the
		// others through their normal scores, which need a bisection per
		// sample, so fewer samples.
		n := 200000
		if dist != Normal && dist != Uniform {
			n = 40000
		}
		for _, rho := range []float64{0, 0.5, 0.9} {
			l := newLink(t, Params{Latency: 500 * ms, Jitter: 20 * ms, JitterDist: dist, JitterCorr: rho})
			_, dels := drive(t, l, n, ms, 100)
			x := delays(dels)
			// sd of the lag-1 estimate of an AR(1): sqrt((1−ρ²)/n).
			tol := 5 * math.Sqrt((1-rho*rho)/float64(n))
			switch dist {
			case Normal:
				within(t, "normal delay lag-1 autocorrelation", lag1(x), rho, tol)
			case Uniform:
				// Pearson correlation of Φ(Z1), Φ(Z2): (6/π)·asin(ρ/2), which
				// is 0.8915 at ρ = 0.9.
				within(t, "uniform delay lag-1 autocorrelation", lag1(x), 6/math.Pi*math.Asin(rho/2), tol)
			default:
				// Normal scores: map every delay back to Gaussian space,
				// where the process is AR(1) with coefficient ρ.
				zs := make([]float64, len(x))
				for i, v := range x {
					zs[i] = zOf(dist, (v-float64(500*ms))/float64(20*ms))
				}
				within(t, d+" normal-score lag-1 autocorrelation", lag1(zs), rho, tol+1e-4)
			}
		}
	}
}

func TestReorderRateWithGap(t *testing.T) {
	for _, c := range []struct {
		p   float64
		gap int
	}{{0.25, 0}, {0.25, 1}, {0.25, 5}, {0.5, 3}} {
		const n = 200000
		l := newLink(t, Params{Latency: 100 * ms, Reorder: c.p, ReorderGap: c.gap})
		sends, _ := drive(t, l, n, ms, 100)
		g := float64(max(c.gap, 1))
		immediate, sinceLast := 0, 0
		for i, s := range sends {
			delay := s.At[0].Sub(sim.Time(int64(i) * int64(ms)))
			if delay == 0 {
				// netem: a packet skips the delay only after gap−1 delayed ones.
				if sinceLast < int(g)-1 {
					t.Fatalf("packet %d reordered after only %d delayed packets (gap %v)", i, sinceLast, g)
				}
				immediate++
				sinceLast = 0
			} else {
				if delay != 100*ms {
					t.Fatalf("packet %d delayed %v", i, delay)
				}
				sinceLast++
			}
		}
		// Renewal process: cycle C = (g−1) + Geometric(p), mean μ, var σ²;
		// the fraction 1/μ has variance σ²/(μ³n).
		mu := g - 1 + 1/c.p
		sigma2 := (1 - c.p) / (c.p * c.p)
		within(t, "reorder fraction", float64(immediate)/n, c.p/(1+(g-1)*c.p), 5*math.Sqrt(sigma2/(mu*mu*mu*n)))
	}
}

func TestReorderedCounterMatchesArrivalOrder(t *testing.T) {
	l := newLink(t, Params{Latency: 30 * ms, Jitter: 20 * ms, Reorder: 0.1})
	_, dels := drive(t, l, 20000, 5*ms, 100)
	var maxSeq uint64
	var want uint64
	for _, d := range dels {
		late := d.Seq < maxSeq
		if late != d.Reordered {
			t.Fatalf("seq %d at %v: Reordered=%v, but max seq seen %d", d.Seq, d.At, d.Reordered, maxSeq)
		}
		if late {
			want++
		}
		maxSeq = max(maxSeq, d.Seq)
	}
	if got := l.Counters().Reordered; got != want || want == 0 {
		t.Fatalf("Reordered counter %d, arrival order says %d", got, want)
	}
}

func TestDuplicateRate(t *testing.T) {
	const n, p = 200000, 0.1
	l := newLink(t, Params{Latency: 50 * ms, Jitter: 20 * ms, Duplicate: p})
	_, dels := drive(t, l, n, ms, 100)
	c := l.Counters()
	within(t, "duplicate rate", float64(c.Duplicated)/n, p, 5*math.Sqrt(p*(1-p)/n))
	if c.Delivered != c.Sent+c.Duplicated {
		t.Fatalf("delivered %d != sent %d + duplicated %d", c.Delivered, c.Sent, c.Duplicated)
	}
	// The copy draws its own delay, so it sometimes overtakes the original.
	seen := map[uint64]int{}
	overtook := 0
	for _, d := range dels {
		if d.Copy == 1 && seen[d.Seq] == 0 {
			overtook++
		}
		seen[d.Seq]++
	}
	if overtook == 0 {
		t.Fatal("no duplicate ever overtook its original")
	}
}

func TestRateLimitedThroughputEqualsRate(t *testing.T) {
	const rate, size, overhead = 1_000_000, 100, 28
	l := newLink(t, Params{Latency: 10 * ms, Rate: rate, Overhead: overhead})
	// Offer 2× the rate: 128 B every 512 µs = 2 Mbit/s.
	const n = 5000
	_, dels := drive(t, l, n, 512*time.Microsecond, size)
	first, last := dels[0].At, dels[len(dels)-1].At
	bits := float64((n - 1) * (size + overhead) * 8)
	got := bits / last.Sub(first).Seconds()
	// Each transmit time is rounded to the nearest ns: 1024 bits at 1 Mbit/s
	// is exactly 1.024 ms, so the throughput is exact.
	within(t, "throughput (bit/s)", got, rate, 1e-6*rate)
	for i := 1; i < len(dels); i++ {
		if dels[i].At < dels[i-1].At || dels[i].Seq < dels[i-1].Seq {
			t.Fatal("a rate-limited link is FIFO")
		}
	}
	// An idle link adds exactly latency + transmit time.
	l = newLink(t, Params{Latency: 10 * ms, Rate: rate, Overhead: overhead})
	if r := l.Send(0, Packet{Size: size}); r.At[0] != sim.Time(10*ms+1024*time.Microsecond) {
		t.Fatalf("idle delivery at %v, want 11.024ms", r.At[0])
	}
}

func TestQueueTailDrop(t *testing.T) {
	l := newLink(t, Params{Latency: 100 * ms, Queue: 10})
	for i := range 25 {
		r := l.Send(0, Packet{ID: uint64(i)})
		if want := i >= 10; (r.QueueDropped == 1) != want {
			t.Fatalf("packet %d: dropped=%v, want %v", i, r.QueueDropped == 1, want)
		}
	}
	if c := l.Counters(); c.QueueDropped != 15 || l.InFlight() != 10 {
		t.Fatalf("queue-dropped %d in flight %d, want 15 and 10", c.QueueDropped, l.InFlight())
	}
	now := sim.Time(100 * ms)
	for range 10 {
		if d, ok := l.Deliver(now); !ok || d.ID >= 10 {
			t.Fatalf("deliver: %+v %v", d, ok)
		}
	}
	if r := l.Send(now, Packet{ID: 99}); r.Scheduled != 1 {
		t.Fatal("the drained queue still drops")
	}
}

func TestKeepOrderDeliversInSendOrder(t *testing.T) {
	p := Params{Latency: 100 * ms, Jitter: 50 * ms, Duplicate: 0.05}
	l := newLink(t, p)
	drive(t, l, 20000, 5*ms, 100)
	if l.Counters().Reordered == 0 {
		t.Fatal("jitter larger than the send spacing should reorder without keep_order")
	}
	p.KeepOrder = true
	l = newLink(t, p)
	_, dels := drive(t, l, 20000, 5*ms, 100)
	for i := 1; i < len(dels); i++ {
		if dels[i].At < dels[i-1].At || dels[i].Seq < dels[i-1].Seq {
			t.Fatalf("keep_order delivered seq %d after %d", dels[i].Seq, dels[i-1].Seq)
		}
	}
	if l.Counters().Reordered != 0 {
		t.Fatalf("keep_order reordered %d", l.Counters().Reordered)
	}
}

func TestParamChangeAffectsOnlyLaterPackets(t *testing.T) {
	l := newLink(t, Params{Latency: 100 * ms})
	a := l.Send(0, Packet{ID: 1})
	if err := l.SetParams(Params{Latency: 10 * ms}, "up"); err != nil {
		t.Fatal(err)
	}
	b := l.Send(sim.Time(5*ms), Packet{ID: 2})
	if a.At[0] != sim.Time(100*ms) || b.At[0] != sim.Time(15*ms) {
		t.Fatalf("in-flight packet moved or new one ignored the change: %v %v", a.At[0], b.At[0])
	}
	d, _ := l.Deliver(sim.Time(100 * ms))
	if d.ID != 2 {
		t.Fatal("the later packet sent with the lower latency should arrive first")
	}
}

func TestStreamsAreIndependent(t *testing.T) {
	// Changing the jitter does not change which packets are lost.
	a := newLink(t, Params{Loss: 0.1})
	b := newLink(t, Params{Loss: 0.1, Latency: 80 * ms, Jitter: 30 * ms, JitterDist: Normal, JitterCorr: 0.5})
	sa, _ := drive(t, a, 10000, ms, 100)
	sb, _ := drive(t, b, 10000, ms, 100)
	la, lb := lossPattern(sa), lossPattern(sb)
	for i := range la {
		if la[i] != lb[i] {
			t.Fatalf("packet %d: loss decision changed with the jitter", i)
		}
	}
	// Same seed, same params: identical deliveries.
	_, d1 := drive(t, newLink(t, Params{Latency: 80 * ms, Jitter: 30 * ms, Loss: 0.05, Duplicate: 0.05, Reorder: 0.05}), 5000, ms, 100)
	_, d2 := drive(t, newLink(t, Params{Latency: 80 * ms, Jitter: 30 * ms, Loss: 0.05, Duplicate: 0.05, Reorder: 0.05}), 5000, ms, 100)
	if len(d1) != len(d2) {
		t.Fatal("same seed gave different delivery counts")
	}
	for i := range d1 {
		if d1[i] != d2[i] {
			t.Fatalf("delivery %d differs: %+v vs %+v", i, d1[i], d2[i])
		}
	}
}

func TestValidateNamesKeyAndAllowed(t *testing.T) {
	cases := map[string]Params{
		"down.latency":     {Latency: -ms},
		"down.loss":        {Loss: 1.2},
		"down.jitter_corr": {JitterCorr: math.NaN()},
		"down.duplicate":   {Duplicate: -0.1},
		"down.loss_burst":  {Loss: 0.9, LossBurst: 2},
		"down.queue":       {Queue: -1},
		"down.rate":        {Rate: -5},
		"down.shape_rate":  {ShapeRate: 10},
		"down.shape_burst": {ShapeBurst: MaxShapeBytes + 1},
		"down.shape_limit": {ShapeLimit: 100, ShapeLatency: ms},
	}
	for key, p := range cases {
		err := p.Validate("down")
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Key != key || pe.Allowed == "" {
			t.Errorf("%s: got %v", key, err)
		}
	}
	if err := (Params{Loss: 0.05, LossBurst: 4, JitterCorr: 1}).Validate("up"); err != nil {
		t.Fatal(err)
	}
	if _, err := New(1, "up", Params{Loss: 2}); err == nil {
		t.Fatal("New accepted loss 200%")
	}
}

// BenchmarkLink runs a link per packet (one op = one packet sent and its
// copies delivered): "netem" with the netem stages of the first link work,
// "all" with every stage on (correlated jitter, the 4-state loss model with
// bad-state delay, duplicates, reorder, rate, queue limit, slots, the
// shaper, spikes, keep_order). Both must stay at 0 allocs/op.
func BenchmarkLink(b *testing.B) {
	for _, c := range []struct {
		name string
		p    Params
	}{
		{"netem", Params{Latency: 50 * ms, Jitter: 10 * ms, JitterDist: Normal, JitterCorr: 0.5,
			Loss: 0.02, LossBurst: 2, Duplicate: 0.01, Reorder: 0.01, Rate: 10_000_000, Overhead: 28}},
		{"all", Params{Latency: 50 * ms, Jitter: 10 * ms, JitterDist: Normal, JitterCorr: 0.5,
			GI: FourState{P13: 0.01, P31: 0.3, P32: 0.2, P23: 0.1, P14: 0.005}, BadDelay: 5 * ms,
			Duplicate: 0.01, Reorder: 0.01, Rate: 10_000_000, Overhead: 28, Queue: 1000,
			Slot:      Slot{Min: 2 * ms, Max: 6 * ms, Packets: 8},
			ShapeRate: 8_000_000, ShapeBurst: 3000, ShapeLatency: 50 * ms,
			Spike: 0.01, SpikeDelay: 100 * ms, KeepOrder: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			l, err := New(1, "up", c.p)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			now := sim.Time(0)
			for i := 0; i < b.N; i++ {
				now += sim.Time(ms)
				l.Send(now, Packet{ID: uint64(i), Size: 60})
				for {
					at, ok := l.NextDelivery()
					if !ok || at > now {
						break
					}
					l.Deliver(at)
				}
			}
		})
	}
}

// Issue 8.16: a blackout (100 % loss) with bursty loss configured is a valid
// link that loses everything, and errors write values as people write them.
func TestBlackoutWithBurstLoss(t *testing.T) {
	l := newLink(t, Params{Loss: 1, LossBurst: 3})
	sends, _ := drive(t, l, 1000, ms, 100)
	for i, s := range sends {
		if s.Scheduled != 0 {
			t.Fatalf("packet %d got through a blackout", i)
		}
	}
	if err := l.SetParams(Params{Loss: 0.05, LossBurst: 3}, "up"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Loss: 0.9, LossBurst: 3}, `up.loss_burst: bad value "3": allowed a mean burst ≥ 9 for loss 90%`},
		{Params{Loss: 1.5}, `up.loss: bad value "150%"`},
		{Params{Latency: -5 * ms}, `up.latency: bad value "-5ms"`},
		{Params{Rate: -1000}, `up.rate: bad value "-1kbit"`},
	} {
		if err := c.p.Validate("up"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to say %q", c.p, err, c.want)
		}
	}
}

// Issue 8.17: as in Linux netem, a packet the reorder draw sends at once
// skips the delay and the rate (netem puts it at the head of its queue
// with time_to_send = now), so a rate does not stop reordering; normally
// delayed packets still queue behind each other at the rate.
func TestRateStillReorders(t *testing.T) {
	const n, p = 100000, 0.25
	// 100 B every 1 ms at 1 Mbit/s: 0.8 ms on the wire, no queueing.
	l := newLink(t, Params{Latency: 100 * ms, Rate: 1_000_000, Reorder: p})
	sends, _ := drive(t, l, n, ms, 100)
	immediate := 0
	for i, s := range sends {
		switch delay := s.At[0].Sub(sim.Time(int64(i) * int64(ms))); delay {
		case 0:
			immediate++
		case 100*ms + 800*time.Microsecond:
		default:
			t.Fatalf("packet %d delayed %v: want 0 (reordered) or latency + 0.8 ms on the wire", i, delay)
		}
	}
	// gap 1: each packet independently with probability p; binomial σ.
	within(t, "reorder fraction with a rate", float64(immediate)/n, p, 5*math.Sqrt(p*(1-p)/n))
	if c := l.Counters(); c.Reordered == 0 {
		t.Fatal("no packet arrived after a later-sent one")
	}
}

// Issue 15.7: a link's times stay far inside int64 nanoseconds: latency and
// jitter are bounded, a heavy-tailed draw is capped at MaxDelay, and the
// rate stage holds at most MaxBacklog of waiting packets (later ones are
// dropped at the queue and counted).
func TestLinkTimesAreBounded(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Latency: math.MaxInt64}, `up.latency: bad value "2562047h47m16.854775807s": allowed a duration in [0, 1m0s]`},
		{Params{Jitter: MaxJitter + 1}, `up.jitter: bad value "1m0.000000001s": allowed a duration in [0, 1m0s]`},
		{Params{Rate: 999}, `up.rate: bad value "999bit": allowed 0 (unlimited) or a rate ≥ 1kbit`},
	} {
		if err := c.p.Validate("up"); err == nil || err.Error() != c.want {
			t.Errorf("%+v: error %v, want %q", c.p, err, c.want)
		}
	}
	l := newLink(t, Params{Latency: MaxLatency, Jitter: MaxJitter, JitterDist: Pareto})
	sends, _ := drive(t, l, 20000, ms, 100)
	for i, s := range sends {
		if d := s.At[0].Sub(sim.Time(int64(i) * int64(ms))); d < 0 || d > MaxDelay {
			t.Fatalf("packet %d delayed %v, want within [0, %v]", i, d, MaxDelay)
		}
	}
	// 1 kbit/s offered 100 B every ms: 800 times the rate.
	l = newLink(t, Params{Rate: MinRate})
	sends, _ = drive(t, l, 20000, ms, 100)
	for i, s := range sends {
		now := sim.Time(int64(i) * int64(ms))
		if s.Scheduled == 1 && s.At[0].Sub(now) > MaxBacklog+800*ms {
			t.Fatalf("packet %d waits %v at the rate stage", i, s.At[0].Sub(now))
		}
	}
	if c := l.Counters(); c.QueueDropped < 19000 {
		t.Fatalf("an overloaded 1 kbit/s link dropped only %d of 20000 at its backlog limit", c.QueueDropped)
	}
}

// CDF is the law offset gives a standard normal z: CDF(offset(z)) = Φ(z).
func TestCDFIsTheLawOfTheOffset(t *testing.T) {
	for _, d := range []Dist{Uniform, Exponential, Pareto} {
		for _, z := range []float64{-6, -3, -1, -0.1, 0, 0.5, 1, 2, 4, 6} {
			want := 0.5 * math.Erfc(-z/math.Sqrt2)
			if d == Exponential && z > 2.5 {
				want = 1 // from z ≈ 3.9 on the cap holds the offset at ExponentialCap, where the CDF is 1
			}
			p, ok := d.CDF(d.offset(z))
			if !ok || math.Abs(p-want) > 1e-9 {
				t.Errorf("%v: CDF(offset(%v)) = %v %v, want Φ(z) = %v", d, z, p, ok, want)
			}
		}
	}
	if _, ok := Normal.CDF(0); ok {
		t.Error("Normal.CDF says ok: fit uses its own normal CDF")
	}
	if _, ok := ParetoNormal.CDF(0); ok {
		t.Error("ParetoNormal.CDF says ok: its CDF has no closed form")
	}
}

// An uncorrelated uniform jitter is latency + jitter·(2u − 1), u the
// link's jitter stream's next uniform number: one draw a packet, no normal
// draw. A correlation set later starts its chain from its stationary law,
// and correlated delays stay within [latency − jitter, latency + jitter).
func TestUncorrelatedUniformJitterDrawsOneUniformNumber(t *testing.T) {
	p := Params{Latency: 50 * ms, Jitter: 20 * ms, JitterDist: Uniform}
	l := newLink(t, p)
	u := sim.NewRand(7, "up.jitter")
	for i := range 1000 {
		now := sim.Time(int64(i) * int64(time.Second))
		r := l.Send(now, Packet{ID: uint64(i), Size: 100})
		want := p.Latency + time.Duration(math.Round(float64(20*ms)*(2*u.Float64()-1)))
		if r.Scheduled != 1 || r.At[0].Sub(now) != want {
			t.Fatalf("packet %d: delay %v, want %v", i, r.At[0].Sub(now), want)
		}
		if _, ok := l.Deliver(r.At[0]); !ok {
			t.Fatal("not delivered")
		}
	}
	p.JitterCorr = 0.9
	if err := l.SetParams(p, "up"); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		now := sim.Time(int64(1000+i) * int64(time.Second))
		r := l.Send(now, Packet{ID: uint64(i), Size: 100})
		if d := r.At[0].Sub(now); d < 30*ms || d > 70*ms {
			t.Fatalf("correlated packet %d: delay %v outside 50 ± 20 ms", i, d)
		}
		l.Deliver(r.At[0])
	}
}

// Two links sharing an Order hand out their copies in the one (time,
// sequence) order: by delivery time, and at the same instant in the order
// they were sent, whichever link carried them; a timer set from the same
// Order between two sends goes between them.
func TestShareOrderMergesLinksBySendOrder(t *testing.T) {
	var o sim.Order
	a, _ := New(1, "up", Params{Latency: 10 * time.Millisecond})
	b, _ := New(1, "down", Params{Latency: 5 * time.Millisecond})
	a.ShareOrder(&o)
	b.ShareOrder(&o)
	ms := func(n int) sim.Time { return sim.Time(time.Duration(n) * time.Millisecond) }
	a.Send(ms(0), Packet{ID: 1}) // due at 10
	b.Send(ms(5), Packet{ID: 2}) // due at 10, sent after 1
	var timer sim.Timer
	timer.Set(ms(10), &o)        // at 10, after 1 and 2
	a.Send(ms(0), Packet{ID: 3}) // due at 10, after the timer
	b.Send(ms(1), Packet{ID: 4}) // due at 6: first
	var got []uint64
	for {
		at, seq, ok := a.NextKey()
		l := a
		if bt, bs, bok := b.NextKey(); bok && (!ok || bt < at || (bt == at && bs < seq)) {
			at, seq, ok, l = bt, bs, true, b
		}
		if timer.Armed && (!ok || timer.Before(at, seq)) {
			got, timer.Armed = append(got, 0), false
			continue
		}
		if !ok {
			break
		}
		d, _ := l.Deliver(at)
		got = append(got, d.ID)
	}
	if want := []uint64{4, 1, 2, 0, 3}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v (0 is the timer)", got, want)
	}
}
