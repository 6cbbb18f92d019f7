package lab

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// The side box's card: six lines of the same 41 columns whatever the
// figures, a rate of 100/min or more without decimals, a dash for a
// figure without data (a game's telemetry leaves the corrections and the
// server input delay NaN).
func TestSideTextByHand(t *testing.T) {
	nan := math.NaN()
	c := ReportCard{JudderMPS: 0.256, ProgressDeficitMPS: -0.031, BackwardExcursionsPerMin: 2.5, HesitationsPerMin: 120,
		SnapsPerMin: 0, CorrectionsMediumPerMin: nan, CorrectionsLargePerMin: nan}
	c.SnapDistanceM.Max = nan
	c.LocalResponseMs.P50 = 48
	c.ServerInputDelayMs.P50 = nan
	c.VisibleLagMs.P50, c.VisibleLagMs.P99 = 71, 133
	want := []string{
		" judder     0.26m/s  deficit  -0.03m/s",
		" rubber     2.5/min  hesitate  120/min",
		" snaps      0.0/min  snap max        –",
		" corr 1-10        –  corr >10        –",
		" response/server input           48 / –", // fmt pads by bytes: a dash (3) is one column
		" visible lag p50/99         71 / 133 ms",
	}
	got := strings.Split(c.SideText(), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("side text\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, l := range got {
		if n := utf8.RuneCountInString(l); n > 41 {
			t.Errorf("%q is %d columns, the box holds 41", l, n)
		}
	}
}
