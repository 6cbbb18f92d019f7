//go:build amd64 && !amd64.v3

package detmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// On amd64 below v3 the compiler never fuses, so there the standard library's
// results are the ones every machine must now reproduce: the model's outputs
// on such machines did not change when it moved to this package.
//
// One caveat: the standard library's amd64 Exp is assembly that uses FMA when
// the CPU has it and rounds differently when it does not. This package always
// computes the FMA variant. On a CPU without FMA the functions built on Exp
// (Erf and Erfc in their tails, Pow, NormFloat64's rare slow path) therefore
// cannot match the standard library there, and only the others are compared.
func TestMatchesTheStandardLibraryWhereNothingFuses(t *testing.T) {
	differ := func(got, want float64) bool {
		return math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want))
	}
	same := func(name string, x, got, want float64) {
		t.Helper()
		if differ(got, want) {
			t.Fatalf("%s(%v) = %v (%#x), math says %v (%#x)", name, x, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	ins := testInputs()
	cpuFMA := true
	for _, in := range ins {
		if differ(Exp(in.exp), math.Exp(in.exp)) {
			cpuFMA = false
			t.Logf("math.Exp(%v) takes the assembly's path for CPUs without FMA here: comparing only Sincos and Log", in.exp)
			break
		}
	}
	for _, in := range ins {
		s, c := Sincos(in.angle)
		ws, wc := math.Sincos(in.angle)
		same("Sin", in.angle, s, ws)
		same("Cos", in.angle, c, wc)
		same("Log", in.positive, Log(in.positive), math.Log(in.positive))
		if cpuFMA {
			same("Exp", in.exp, Exp(in.exp), math.Exp(in.exp))
			same("Erf", in.erf, Erf(in.erf), math.Erf(in.erf))
			same("Erfc", in.erf, Erfc(in.erf), math.Erfc(in.erf))
			same("Pow(x, -1/3)", in.positive, Pow(in.positive, -1.0/3), math.Pow(in.positive, -1.0/3))
			same("Pow(x, y)", in.positive, Pow(in.positive, in.exp), math.Pow(in.positive, in.exp))
		}
	}
	if !cpuFMA {
		return
	}
	a, b := rand.New(rand.NewPCG(3, 4)), rand.New(rand.NewPCG(3, 4))
	for i := range 1_000_000 {
		same("NormFloat64", float64(i), NormFloat64(a), b.NormFloat64())
	}
}
