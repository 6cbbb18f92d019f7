//go:build !race

package testmem

// RaceFactor is 1 without the race detector (race.go says why it exists).
const RaceFactor = 1

// raceEnabled is false without the race detector (race.go says why it exists).
const raceEnabled = false
