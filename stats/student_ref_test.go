package stats

// The exact Student t quantile, by bisection on the CDF: the reference the
// table in t975.go is generated from and checked against. It calls
// math.Lgamma, math.Exp and math.Log, whose bits differ between machines,
// so the lab itself reads the table instead.

import "math"

// TQuantile is the p-quantile of Student's t distribution with df degrees
// of freedom (df ≥ 1, 0 < p < 1): the x with P(T ≤ x) = p, found by
// bisection on the exact CDF to 1e-12.
func TQuantile(p float64, df int) float64 {
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -TQuantile(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for TCDF(hi, df) < p {
		hi *= 2
	}
	for hi-lo > 1e-12*hi {
		mid := (lo + hi) / 2
		if TCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// TCDF is P(T ≤ x) for Student's t with df degrees of freedom:
// 1 − ½·I_{df/(df+x²)}(df/2, ½) for x ≥ 0.
func TCDF(x float64, df int) float64 {
	v := float64(df)
	tail := 0.5 * betaInc(v/2, 0.5, v/(v+x*x))
	if x >= 0 {
		return 1 - tail
	}
	return tail
}

// betaInc is the regularised incomplete beta function I_x(a, b), by the
// continued fraction (Numerical Recipes §6.4).
func betaInc(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}
