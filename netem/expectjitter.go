package netem

import (
	"math"
	"time"

	"jitterlab/detmath"
)

// ExpectedJitter is the RFC 3550 interarrival jitter the link gives in the
// long run to a stream whose packets keep their order (sent further apart
// than the jitter spreads them): the mean of |D| = |d_i − d_{i−1}| for the
// delays d of consecutive copies, each latency + jitter·offset(z) clamped
// to [0, MaxDelay], z an AR(1) standard normal with correlation
// JitterCorr. The estimator J += (|D| − J)/16 has that mean; one reading
// of it spreads around it (about 15 % for uniform jitter). Uniform jitter
// of half-width a gives 2a/3 (ρ = 0), normal σ gives 2σ·√((1−ρ)/π).
// Packets sent closer together overtake one another and, read in arrival
// order, show more. ok is false when another stage moves delays (reorder,
// rate, slot, shaper, spike, keep-order, bad-state delay, a trace): the
// model then gives no such figure. Loss, duplicates and the queue limit
// draw no delay and leave it unchanged.
func ExpectedJitter(p Params) (j time.Duration, ok bool) {
	if p.Reorder > 0 || p.Rate > 0 || p.Slot.On() || p.ShapeRate > 0 || p.Spike > 0 || p.KeepOrder || p.BadDelay > 0 || p.Trace != nil {
		return 0, false
	}
	if p.Jitter == 0 || p.JitterCorr >= 1 {
		return 0, true
	}
	delay := func(z float64) float64 {
		d := float64(p.Latency) + float64(float64(p.Jitter)*p.JitterDist.offset(z))
		return min(max(d, 0), float64(MaxDelay))
	}
	// E|delay(u) − delay(ρu + s·v)| for independent standard normals u, v,
	// by the midpoint rule over ±8 σ (the integrand's kink costs O(h²)).
	rho := p.JitterCorr
	s := math.Sqrt(1 - float64(rho*rho))
	const n, lim = 600, 8.0
	h := 2 * lim / n
	var sum float64
	phi := make([]float64, n)
	zs := make([]float64, n)
	du := make([]float64, n)
	for i := range n {
		zs[i] = -lim + float64((float64(i)+0.5)*h)
		phi[i] = detmath.Exp(-zs[i]*zs[i]/2) / math.Sqrt(2*math.Pi) * h
		du[i] = delay(zs[i])
	}
	for i, u := range zs {
		var row float64
		for k, v := range zs {
			row += float64(phi[k] * math.Abs(du[i]-delay(float64(rho*u)+float64(s*v))))
		}
		sum += float64(phi[i] * row)
	}
	return time.Duration(math.Round(sum)), true
}
