package netem

import (
	"math"

	"jitterlab/detmath"
	"jitterlab/param"
)

// Dist is a jitter distribution. Each maps a standard normal draw z (the
// AR(1) state) to an offset in units of the jitter parameter through the
// normal CDF and the distribution's inverse CDF, so the marginal
// distribution is exact whatever the correlation.
type Dist uint8

const (
	// Uniform: delay in [latency−jitter, latency+jitter); jitter is the
	// half-width (netem's default, Unity, toxiproxy). σ = jitter/√3.
	Uniform Dist = iota
	// Normal: jitter is σ.
	Normal
	// Pareto: a Pareto of shape α = 3 (netem's table), shifted to mean 0 and
	// scaled to σ = 1, so jitter is σ. Heavy right tail.
	Pareto
	// ParetoNormal: the quantile mix ¼·normal + ¾·pareto (the proportions of
	// netem's table) rescaled to σ = 1: a normal body with a pareto tail.
	ParetoNormal
	// Exponential: one-sided, delay = latency + X with X exponential of mean
	// jitter capped at ExponentialCap·jitter (Valve GameNetworkingSockets
	// style). The cap lowers the mean by the factor 1−e^−ExponentialCap.
	Exponential
)

// ExponentialCap is the cap of the exponential jitter, in units of its mean.
const ExponentialCap = 10

var distNames = [...]string{"uniform", "normal", "pareto", "paretonormal", "exponential"}

func (d Dist) String() string {
	if int(d) < len(distNames) {
		return distNames[d]
	}
	return "dist(?)"
}

// JitterMeasure is what the jitter parameter measures under d: the
// half-width (uniform), σ (normal, pareto, paretonormal) or the mean
// (exponential). The same jitter is a different spread under each.
func (d Dist) JitterMeasure() string {
	switch d {
	case Uniform:
		return "half-width"
	case Exponential:
		return "mean"
	}
	return "σ"
}

// DistNames lists the accepted names, for help texts and errors.
func DistNames() []string { return distNames[:] }

// ParseDist reads a distribution name; the error names key and the choices.
func ParseDist(key, s string) (Dist, error) {
	v, err := param.Choice(key, s, distNames[:]...)
	if err != nil {
		return 0, err
	}
	for i, n := range distNames {
		if n == v {
			return Dist(i), nil
		}
	}
	panic("unreachable")
}

const (
	paretoAlpha = 3.0
	paretoMean  = paretoAlpha / (paretoAlpha - 1)                                     // 1.5 for x_m = 1
	paretoSD    = 0.8660254037844386                                                  // sqrt(α/((α−1)²(α−2))) = sqrt(0.75)
	pnSD        = 0.937753856873552                                                   // sd of ¼z + ¾·pareto_std(z); see TestParetoNormalScale
	invSqrt2    = 0.70710678118654752440084436210484903928483593768847403658833986900 // 1/√2
)

// offset maps a standard normal z to the distribution's offset in units of
// jitter: mean 0 and σ 1 for Normal, Pareto, ParetoNormal; [-1, 1) for
// Uniform; [0, ExponentialCap] for Exponential.
func (d Dist) offset(z float64) float64 {
	switch d {
	case Uniform:
		// 2Φ(z)−1 = −erf(−z/√2) = erf(z/√2)
		return detmath.Erf(z * invSqrt2)
	case Normal:
		return z
	case Pareto:
		return paretoStd(z)
	case ParetoNormal:
		return (float64(0.25*z) + float64(0.75*paretoStd(z))) / pnSD
	case Exponential:
		// X = −ln(1−u), 1−u = Φ(−z) computed directly for tail precision.
		return min(-detmath.Log(0.5*detmath.Erfc(z*invSqrt2)), ExponentialCap)
	}
	return 0
}

// CDF is P(offset ≤ y) for the distributions whose CDF has a closed form
// (uniform, exponential, pareto); ok is false for the others.
func (d Dist) CDF(y float64) (p float64, ok bool) {
	switch d {
	case Uniform:
		return min(max((y+1)/2, 0), 1), true
	case Exponential:
		if y < 0 {
			return 0, true
		}
		if y >= ExponentialCap {
			return 1, true
		}
		return 1 - detmath.Exp(-y), true
	case Pareto:
		// The unscaled Pareto x = y·σ + μ has P(X > x) = x^−α for x ≥ 1.
		x := float64(y*paretoSD) + paretoMean
		if x <= 1 {
			return 0, true
		}
		return 1 - 1/float64(float64(x*x)*x), true
	}
	return 0, false
}

// paretoStd is the standardized α=3 Pareto quantile at u = Φ(z).
func paretoStd(z float64) float64 {
	tail := 0.5 * detmath.Erfc(z*invSqrt2) // 1−u without cancellation
	if tail <= 0 {
		tail = math.SmallestNonzeroFloat64
	}
	return (detmath.Pow(tail, -1/paretoAlpha) - paretoMean) / paretoSD
}
