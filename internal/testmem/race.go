//go:build race

package testmem

// RaceFactor is how much more resident memory a process built with the
// race detector takes than the same process without it: its shadow memory
// and bookkeeping (measured 2.1× on cmd/lab's plot of a 6-hour recording,
// 60.8 MB → 127 MB). A bound on a child's RSS is multiplied by it.
const RaceFactor = 3
