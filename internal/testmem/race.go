//go:build race

package testmem

// RaceFactor is how much more resident memory a process built with the
// race detector takes than the same process without it: its shadow memory
// and bookkeeping (measured 2.1× on cmd/lab's plot of a 6-hour recording,
// 60.8 MB → 127 MB). A bound on a child's RSS is multiplied by it.
const RaceFactor = 3

// raceEnabled: the race detector reserves terabytes of address space for
// its shadow memory at start, so no 'ulimit -v' a test can afford lets a
// race-built process start (ThreadSanitizer: "unable to mmap"). Under it
// [UlimitV] lifts the address-space limit; the RSS bound still holds.
const raceEnabled = true
