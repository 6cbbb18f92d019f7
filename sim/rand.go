package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// NewRand returns the PCG stream named stream of the session seed. Each
// component and direction draws from its own stream ("up.loss",
// "down.jitter", "input.script", ...), so a change to one knob never
// reshuffles the draws of another.
func NewRand(seed uint64, stream string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(stream))
	s := splitmix64(seed ^ splitmix64(h.Sum64()))
	return rand.New(rand.NewPCG(s, splitmix64(s)))
}

// splitmix64 is the SplitMix64 finaliser: a bijective mixer that turns
// nearby seeds into unrelated PCG states.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
