//go:build jitterlab_unmeasured

package lab

// measured is false in the jitterlab_unmeasured build: see measured.go.
const measured = false
