// Package testmem runs a test's step under a memory limit and checks its
// peak, so a test of hostile input fails when memory grows with the
// input instead of swapping the machine: [Within] watches the heap of
// this process, [InChild] the resident set (RSS) of the test run again
// in a child process under an address-space limit.
package testmem
