package tui

import (
	"fmt"
	"testing"
)

// The A/B box shows a figure that rounds to zero as 0, unsigned: the
// recommended B on jitter-fix showed its progress deficit as "-0.00".
func TestABBoxShowsNoNegativeZero(t *testing.T) {
	for _, c := range []struct {
		v    float64
		prec int
		want string
	}{{-0.0004, 2, "0.00"}, {-0.004, 2, "0.00"}, {-0.006, 2, "-0.01"}, {0.0004, 2, "0.00"}, {-0.4, 0, "0"}, {-0.6, 0, "-1"}} {
		if got := fmt.Sprintf("%.*f", c.prec, unsignedZero(c.v, c.prec)); got != c.want {
			t.Errorf("%v with %d decimals: %q, want %q", c.v, c.prec, got, c.want)
		}
	}
}
