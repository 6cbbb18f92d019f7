package stats

import "math"

// T975 is the 0.975 quantile of Student's t distribution with df ≥ 1
// degrees of freedom: the factor of a two-sided 95 % interval. It reads a
// table for df ≤ 1000, generated from the exact CDF ('go test ./stats -run
// T975 -update'), and beyond that the Cornish–Fisher expansion, written
// with explicit float64 conversions so that it computes the same bits on
// every machine (docs/explanation/model.md, "Time and determinism").
func T975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if df < len(t975) {
		return t975[df]
	}
	const z = 1.959963984540054 // the normal 0.975 quantile
	const z2 = z * z
	v := float64(df)
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	return z + float64(g1/v) + float64(g2/float64(v*v)) + float64(g3/float64(float64(v*v)*v))
}
