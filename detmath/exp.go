// Adapted from Go's math/exp_amd64.s: Copyright The Go Authors, BSD-style
// license in GO-LICENSE; the method and constants are Naoki Shibata's SLEEF
// (public domain), as that file says.

package detmath

import "math"

// Exp returns e**x, the base-e exponential of x.
//
// It is the algorithm of the standard library's amd64 assembly on a CPU with
// FMA (what [math.Exp] computes on almost every x86-64 machine since 2013),
// written with explicit [math.FMA] calls, which round once on every
// architecture. The standard library's pure-Go exp, used on other
// architectures, is a different algorithm and rounds differently.
//
// Special cases are:
//
//	Exp(+Inf) = +Inf
//	Exp(NaN) = NaN
//	Exp(x) = 0 for x ≤ about -745.13 (and for -Inf)
//	Exp(x) = +Inf for x > about 709.78
func Exp(x float64) float64 {
	const (
		log2e    = 1.4426950408889634073599246810018920                  // 1/ln 2
		ln2U     = 0.69314718055966295651160180568695068359375           // upper half of ln 2
		ln2L     = 0.28235290563031577122588448175013436025525412068e-12 // lower half of ln 2
		overflow = 7.09782712893384e+02
	)
	bits := math.Float64bits(x)
	switch {
	case bits&^(1<<63) >= 0x7FF0000000000000: // not finite
		if math.IsInf(x, -1) {
			return 0
		}
		return x // NaN or +Inf
	case x > overflow:
		return math.Inf(1)
	}
	// k = round(x/ln 2) as the SSE conversion does: to nearest, ties to even,
	// and the "integer indefinite" -2^31 when out of int32's range.
	kf := float64(log2e * x)
	k := int64(math.MinInt32)
	if kf >= math.MinInt32 && kf <= math.MaxInt32 {
		k = int64(math.RoundToEven(kf))
	}
	fk := float64(k)
	r := math.FMA(-fk, ln2U, x)
	r = math.FMA(-fk, ln2L, r)
	r = float64(r * 0.0625)
	// Taylor series of e^r − 1 to r^9, then squared four times: (e^(r))^16.
	p := 2.4801587301587301587e-5
	p = math.FMA(p, r, 1.9841269841269841270e-4)
	p = math.FMA(p, r, 1.3888888888888888889e-3)
	p = math.FMA(p, r, 8.3333333333333333333e-3)
	p = math.FMA(p, r, 4.1666666666666666667e-2)
	p = math.FMA(p, r, 1.6666666666666666667e-1)
	p = math.FMA(p, r, 0.5)
	p = math.FMA(p, r, 1.0)
	r = float64(p * r)
	r = float64(r * float64(r+2))
	r = float64(r * float64(r+2))
	r = float64(r * float64(r+2))
	r = math.FMA(r, float64(r+2), 1.0)
	// r · 2^k, through the subnormal range as the assembly does.
	e := k + 0x3FF
	switch {
	case e >= 0x7FF:
		return math.Inf(1)
	case e > 0:
		return float64(r * math.Float64frombits(uint64(e)<<52))
	case e < -52:
		return 0
	}
	r = float64(r * math.Float64frombits(uint64(e+0x3FE)<<52))
	return float64(r * math.Float64frombits(1<<52))
}
