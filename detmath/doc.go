// Package detmath is the floating-point math the model uses, written so that
// every machine computes the same bits.
//
// The Go spec lets a compiler fuse x*y + z into one multiply-add (FMA) that
// rounds once instead of twice; arm64 always does, amd64 does with
// GOAMD64=v3, and so do the standard library's pure-Go [math.Sincos],
// [math.Erf], [math.Log] and friends and math/rand/v2's NormFloat64. The
// functions here are those, copied from Go 1.26 (BSD licence, GO-LICENSE)
// with every product that meets a sum wrapped in an explicit float64(...)
// conversion, which the spec says rounds and so cannot be fused. On amd64
// without FMA they return exactly what the standard library returns; on
// every architecture they return the same bits. The model packages follow the
// same rule for their own expressions; TestNoFusedMultiplyAdd checks the
// compiled lab for arm64 and amd64 v3 and fails on any FMA instruction.
package detmath
