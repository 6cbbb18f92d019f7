package proxyscreen

import (
	"strings"
	"testing"
)

// slowDown is the fake relay whose up delays are near 100 ms and whose
// down delays are measured too (98.5 ms), as behind a mobile-4g link.
type slowDown struct{ *fakeProxy }

func (s slowDown) Snapshot() Snapshot {
	snap := s.fakeProxy.Snapshot()
	snap.Down.DelaysMs = []float64{98.5, 98.5, 98.5}
	return snap
}

// Each chart says what it draws at 80×24 even when its values take the
// room of its whole title (qa: with both directions' delays at about
// 100 ms the first chart's title was "up 100.0, dn 98.5" alone, so
// nothing said it was the added delay); a short name, as the lab's
// charts have, keeps it with the values.
func TestProxyChartTitlesNameTheirChartWhenTheValuesAreLong(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		f := newFakeProxy(t)
		f.added = 45 // up delays 85–115 ms
		v, screen := openProxy(slowDown{f}, Options{}, sz.w, sz.h, 400)
		out := drawProxy(v, screen)
		lines := strings.Split(out, "\n")
		var titles []string
		for _, l := range lines {
			if strings.HasPrefix(l, "┌") && strings.Contains(l, ", dn ") {
				titles = append(titles, l[:strings.Index(l, "┐")])
			}
		}
		if len(titles) != 3 {
			t.Fatalf("%d×%d: %d chart titles with both directions, want 3:\n%s", sz.w, sz.h, len(titles), out)
		}
		for i, name := range []string{"delay", "packets/s", "jitter"} {
			if !strings.Contains(titles[i], name) || !strings.Contains(titles[i], "up ") {
				t.Errorf("%d×%d: chart %d's title %q does not name it (%s) with its values", sz.w, sz.h, i+1, titles[i], name)
			}
		}
		if !strings.Contains(titles[0], "dn 98.5") {
			t.Errorf("%d×%d: the delay chart's title %q lost the down delay", sz.w, sz.h, titles[0])
		}
	}
}
