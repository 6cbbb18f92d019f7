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
	if !delayIsJitterOnly(p) {
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

// delayIsJitterOnly: no stage but latency and jitter moves a packet's
// delay (no reorder, rate, slot, shaper, spike, keep-order, bad-state
// delay or trace).
func delayIsJitterOnly(p Params) bool {
	return !(p.Reorder > 0 || p.Rate > 0 || p.Slot.On() || p.ShapeRate > 0 || p.Spike > 0 || p.KeepOrder || p.BadDelay > 0 || p.Trace != nil)
}

// z99 is the standard normal's 99th percentile, Φ⁻¹(0.99).
const z99 = 2.3263478740408408

// DelayPercentiles are the median and 99th percentile of the delay the
// link gives a packet: latency + jitter·offset(z) clamped to [0,
// MaxDelay] at z = 0 and z = Φ⁻¹(0.99), since the offset rises with z and
// every draw of z is standard normal whatever the correlation. Exponential
// jitter of mean 8 ms on 100 ms gives 105.5 ms and 136.8 ms; uniform ±5
// ms on 20 ms gives 20 ms and 24.9 ms. ok is false, as for ExpectedJitter,
// when another stage moves delays.
func DelayPercentiles(p Params) (p50, p99 time.Duration, ok bool) {
	if !delayIsJitterOnly(p) {
		return 0, 0, false
	}
	at := func(z float64) time.Duration {
		d := float64(p.Latency)
		if p.Jitter > 0 {
			d += float64(float64(p.Jitter) * p.JitterDist.offset(z))
		}
		return time.Duration(math.Round(min(max(d, 0), float64(MaxDelay))))
	}
	return at(0), at(z99), true
}
