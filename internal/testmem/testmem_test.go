package testmem

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that notes failures instead of failing.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

var kept []byte

func TestWithinCatchesGrowth(t *testing.T) {
	r := &recorder{TB: t}
	peak := Within(r, 8<<20, "a 20 MB slice", func() {
		kept = make([]byte, 20<<20)
		for i := range kept {
			kept[i] = byte(i)
		}
	})
	if r.failed == "" || peak < 20<<20 {
		t.Fatalf("20 MB kept under an 8 MB bound: peak %d, failure %q", peak, r.failed)
	}
	kept = nil
	r = &recorder{TB: t}
	Within(r, 8<<20, "1 MB", func() { kept = make([]byte, 1<<20) })
	if r.failed != "" {
		t.Fatalf("1 MB under an 8 MB bound: %s", r.failed)
	}
	kept = nil
}

// TestInChildMeasuresRSS: 64 MB touched in the child passes a 16 MB bound
// on its RSS (48 MB under the race detector), and is within a 256 MB one.
func TestInChildMeasuresRSS(t *testing.T) {
	r := &recorder{TB: t}
	if InChild(r, 1<<30, 16<<20) {
		kept = make([]byte, 64<<20)
		for i := range kept {
			kept[i] = byte(i)
		}
		return
	}
	if r.failed == "" || !strings.Contains(r.failed, "peak RSS") {
		t.Fatalf("64 MB touched under a 16 MB RSS bound: failure %q", r.failed)
	}
}

func TestInChildPassesWithinBound(t *testing.T) {
	r := &recorder{TB: t}
	if InChild(r, 1<<30, 256<<20) {
		kept = make([]byte, 8<<20)
		return
	}
	if r.failed != "" {
		t.Fatalf("8 MB under a 256 MB RSS bound: %s", r.failed)
	}
}
