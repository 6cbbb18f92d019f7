package tui

import (
	"strings"
	"testing"
	"time"

	"jitterlab/tui/widget"
)

// The charts' reference lines follow the settings in force: the tick
// offset's dead band (client.band), the send interval's fast and slow
// levels, the snap line (qa: after client.band=5, interval_fast=40ms and
// interval_slow=60ms the charts still drew ±2 and .048/.052, the levels
// the lab started with).
func TestChartReferenceLinesFollowTheSettingsInForce(t *testing.T) {
	a, screen := labAt(t, 80, 24)
	a.advance(5 * time.Second)
	for _, kv := range [][2]string{{"client.band", "5"}, {"client.interval_fast", "40ms"}, {"client.interval_slow", "60ms"}, {"client.snap", "0.7"}} {
		if err := a.set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	a.advance(2 * time.Second)
	draw(a, screen)
	labels := func(c *widget.Chart) string {
		var ls []string
		for _, r := range c.Refs {
			ls = append(ls, r.Label)
		}
		return strings.Join(ls, " ")
	}
	for _, c := range []struct {
		chart *widget.Chart
		want  string
	}{{a.offset, "+5 -5"}, {a.interval, ".060 .040"}, {a.visErr, "0.7"}} {
		if got := labels(c.chart); got != c.want {
			t.Errorf("%s: reference lines %q, want %q", c.chart.Short, got, c.want)
		}
	}
	out := draw(a, screen)
	for _, want := range []string{"│    +5 ┈", "│  .060 ┈", "│  .040 ┈"} {
		if !strings.Contains(out, want) {
			t.Errorf("the screen lacks the line %q:\n%s", want, out)
		}
	}
}
