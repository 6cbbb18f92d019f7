package recordings

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"jitterlab/metrics"
	"jitterlab/sim"
)

// watch opens b and watches its loss, collecting the warnings.
func watch(t *testing.T, b []byte) (*Reader, *Loss, *[]string) {
	t.Helper()
	r, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	l, err := WatchLoss(r, func(msg string) { warned = append(warned, msg) })
	if err != nil {
		t.Fatal(err)
	}
	return r, l, &warned
}

// The places a recording lost data, each counted once and told in words.
func TestWatchLossCountsEachPlaceOnce(t *testing.T) {
	closed := write(t, 400, true)
	t.Run("a closed whole recording lost nothing", func(t *testing.T) {
		_, l, warned := watch(t, closed)
		if l.Places() != 0 || len(*warned) != 0 {
			t.Fatalf("%d places, warnings %q", l.Places(), *warned)
		}
	})
	t.Run("a recording not closed lost what came after", func(t *testing.T) {
		_, l, warned := watch(t, write(t, 400, false))
		if l.Places() != 1 || len(*warned) != 1 || !strings.HasPrefix((*warned)[0], "not closed (no end record") {
			t.Fatalf("%d places, warnings %q", l.Places(), *warned)
		}
	})
	t.Run("a file cut inside a frame is truncated, not also not closed", func(t *testing.T) {
		_, l, warned := watch(t, closed[:len(closed)-10])
		if l.Places() != 1 || len(*warned) != 1 || !strings.HasPrefix((*warned)[0], "truncated at byte ") {
			t.Fatalf("%d places, warnings %q", l.Places(), *warned)
		}
	})
	t.Run("a damaged frame read twice is one place", func(t *testing.T) {
		bad := append([]byte(nil), closed...)
		bad[open(t, closed).frames[1].offset+5] ^= 0xFF
		r, l, warned := watch(t, bad)
		for range 2 {
			if err := r.Scan(0, sim.Time(time.Hour), func(*metrics.Sample) error { return nil }, nil); err != nil {
				t.Fatal(err)
			}
		}
		if l.Places() != 1 || len(*warned) != 1 || !strings.HasSuffix((*warned)[0], "; skipped") {
			t.Fatalf("%d places, warnings %q", l.Places(), *warned)
		}
	})
	if (*Loss)(nil).Places() != 0 {
		t.Fatal("a nil Loss lost something")
	}
}
