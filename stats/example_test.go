package stats_test

import (
	"fmt"

	"jitterlab/stats"
)

// Judder of the reference and of a fix on the same five seeds: the fix is
// better on every seed, so the paired difference is significant although
// the two means' intervals overlap.
func ExamplePaired() {
	ref := []float64{0.52, 0.61, 0.48, 0.66, 0.57}
	fix := []float64{0.47, 0.55, 0.45, 0.60, 0.50}
	fmt.Println("reference", stats.Mean(ref).Format(3))
	fmt.Println("fix      ", stats.Mean(fix).Format(3))
	d := stats.Paired(ref, fix)
	fmt.Println("fix − reference", d.Format(3), "significant:", d.Significant)
	// Output:
	// reference 0.568 ± 0.088
	// fix       0.514 ± 0.076
	// fix − reference -0.054 ± 0.019 significant: true
}
