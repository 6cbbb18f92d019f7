//go:build !race

package testmem

// RaceFactor is 1 without the race detector (race.go says why it exists).
const RaceFactor = 1
