//go:build race

package testtool

// Race is true when this test binary was built with the race detector.
const Race = true
