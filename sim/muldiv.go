package sim

import "math/bits"

// mulDivFloor returns floor(a·b/c) for c > 0, b ≥ 0, computed in 128 bits.
// It panics only if the result does not fit in int64, which callers rule out
// by construction (times of centuries).
func mulDivFloor(a, b, c int64) int64 {
	neg := a < 0
	ua := uint64(a)
	if neg {
		ua = uint64(-a)
	}
	hi, lo := bits.Mul64(ua, uint64(b))
	q, r := bits.Div64(hi, lo, uint64(c))
	if neg {
		if r != 0 {
			q++
		}
		return -int64(q)
	}
	return int64(q)
}

// mulDivCeil returns ceil(a·b/c) for c > 0, b ≥ 0.
func mulDivCeil(a, b, c int64) int64 { return -mulDivFloor(-a, b, c) }

// mulDivRound returns a·b/c rounded to the nearest integer, halves away
// from zero, for c > 0, b ≥ 0.
func mulDivRound(a, b, c int64) int64 {
	neg := a < 0
	ua := uint64(a)
	if neg {
		ua = uint64(-a)
	}
	hi, lo := bits.Mul64(ua, uint64(b))
	hi = hi<<1 | lo>>63 // 2·|a|·b
	lo <<= 1
	var carry uint64
	lo, carry = bits.Add64(lo, uint64(c), 0)
	hi += carry
	q, _ := bits.Div64(hi, lo, 2*uint64(c))
	if neg {
		return -int64(q)
	}
	return int64(q)
}
