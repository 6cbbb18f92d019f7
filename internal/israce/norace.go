//go:build !race

package israce

// Enabled is true when the binary was built with the race detector.
const Enabled = false
