package sim

import "math/rand/v2"

// NewRand returns the PCG stream named stream of the session seed. Each
// component and direction draws from its own stream ("up.loss",
// "down.jitter", "input.script", ...), so a change to one knob never
// reshuffles the draws of another.
func NewRand(seed uint64, stream string) *rand.Rand {
	p := new(rand.PCG)
	Seed(p, seed, stream, "")
	return rand.New(p)
}

// Seed sets p to the start of the stream named prefix+suffix of the session
// seed: the stream NewRand(seed, prefix+suffix) draws from, set in place
// (a reused component reseeds its streams without allocating).
func Seed(p *rand.PCG, seed uint64, prefix, suffix string) {
	// FNV-1a (hash/fnv's New64a) over prefix then suffix.
	h := uint64(14695981039346656037)
	for _, part := range [2]string{prefix, suffix} {
		for i := range len(part) {
			h ^= uint64(part[i])
			h *= 1099511628211
		}
	}
	s := splitmix64(seed ^ splitmix64(h))
	p.Seed(s, splitmix64(s))
}

// splitmix64 is the SplitMix64 finaliser: a bijective mixer that turns
// nearby seeds into unrelated PCG states.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
