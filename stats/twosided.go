package stats

import "math"

// TTwoSided is the factor of a two-sided interval of confidence level
// (0 < level < 1) from Student's t with df ≥ 1 degrees of freedom: the x
// with P(|T| ≤ x) = level, so TTwoSided(0.95, df) is [T975](df). It finds
// x by bisection, to 1e-12 of x, on the closed form of P(|T| ≤ x) for an
// integer df (Abramowitz and Stegun 26.7.3 and 26.7.4): finite sums of
// powers of cos²θ, θ = atan(x/√df), with only +, −, ×, ÷ and square roots,
// each product rounded on its own, so it computes the same bits on every
// machine. It is NaN outside its domain.
func TTwoSided(level float64, df int) float64 {
	if df < 1 || !(level > 0 && level < 1) {
		return math.NaN()
	}
	lo, hi := 0.0, 1.0
	for tAbsCDF(hi, df) < level {
		lo, hi = hi, float64(2*hi)
	}
	for range 200 {
		mid := float64(lo+hi) / 2
		if tAbsCDF(mid, df) < level {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= float64(1e-12*hi) {
			break
		}
	}
	return float64(lo+hi) / 2
}

// tAbsCDF is P(|T| ≤ x) for x ≥ 0 and Student's t with df ≥ 1: with
// c² = df/(df+x²),
//
//	df even: x/√(df+x²) · Σ_{j<df/2} c^{2j}·(1·3⋯(2j−1))/(2·4⋯2j)
//	df odd:  (2/π)·(θ + x√df/(df+x²) · Σ_{j<(df−1)/2} c^{2j}·(2·4⋯2j)/(3·5⋯(2j+1)))
func tAbsCDF(x float64, df int) float64 {
	v := float64(df)
	d := v + float64(x*x)
	c2 := v / d
	sum, term := 0.0, 1.0
	if df%2 == 0 {
		for j := 0; j < df/2; j++ {
			if j > 0 {
				term = float64(term*c2) * float64(2*j-1) / float64(2*j)
			}
			sum += term
		}
		return float64(x/math.Sqrt(d)) * sum
	}
	for j := 0; j < (df-1)/2; j++ {
		if j > 0 {
			term = float64(term*c2) * float64(2*j) / float64(2*j+1)
		}
		sum += term
	}
	sc := float64(x*math.Sqrt(v)) / d // sin θ · cos θ
	theta := atanPos(x / math.Sqrt(v))
	return float64(2/math.Pi) * (theta + float64(sc*sum))
}

// atanPos is atan(y) for y ≥ 0: the angle halved (atan y = 2·atan(y/(1 +
// √(1+y²)))) until y ≤ 1/8, then the Taylor series y − y³/3 + y⁵/5 − …,
// whose terms are below 1e-19 of the sum by the 20th.
func atanPos(y float64) float64 {
	k := 1.0
	for y > 0.125 {
		y = y / (1 + math.Sqrt(1+float64(y*y)))
		k *= 2
	}
	y2 := float64(y * y)
	sum, term := 0.0, y
	for j := range 20 {
		sum += term / float64(2*j+1)
		term = -float64(term * y2)
	}
	return float64(k * sum)
}
