package tui

import (
	"strings"
	"testing"
)

// reflow undoes a wrapper's breaks and wraps again at the new width:
// paragraphs wrapped at 30 columns read, at 20 and at 60, as if wrapped
// there first; lines that were not broken stay lines.
func TestReflowRewrapsParagraphsAtTheNewWidth(t *testing.T) {
	// Wrapped at 30 by the rule of diagnose's wrap: a word goes to the
	// next line when the line and it do not fit.
	text := strings.Join([]string{
		"The link costs judder +0.243",
		"m/s over the same game.",
		"",
		"findings",
		"  1. the server overwrote all",
		"     16.7 % of the inputs.",
		"  2. short one.",
		"  seeds      1-5 (5, the same for every variant)",
	}, "\n")
	cases := []struct {
		width int
		want  []string
	}{
		{60, []string{
			"The link costs judder +0.243 m/s over the same game.",
			"",
			"findings",
			"  1. the server overwrote all 16.7 % of the inputs.",
			"  2. short one.",
			"  seeds      1-5 (5, the same for every variant)",
		}},
		{40, []string{
			"The link costs judder +0.243 m/s over",
			"the same game.",
			"",
			"findings",
			"  1. the server overwrote all 16.7 % of",
			"     the inputs.",
			"  2. short one.",
			"  seeds      1-5 (5, the same for every",
			"             variant)",
		}},
		// Too narrow for the label's column: two spaces more than the line.
		{20, []string{
			"The link costs",
			"judder +0.243 m/s",
			"over the same game.",
			"",
			"findings",
			"  1. the server",
			"     overwrote all",
			"     16.7 % of the",
			"     inputs.",
			"  2. short one.",
			"  seeds      1-5 (5,",
			"    the same for",
			"    every variant)",
		}},
	}
	for _, c := range cases {
		if got := reflow(text, 30, c.width); got != strings.Join(c.want, "\n") {
			t.Errorf("reflow at %d:\n%s\nwant:\n%s", c.width, got, strings.Join(c.want, "\n"))
		}
	}
}

// A word wider than the line is cut, and every line fits.
func TestReflowCutsAWordWiderThanTheLine(t *testing.T) {
	got := reflow("  lab diagnose --scenario=a-very-long-scenario-name", 100, 16)
	for _, l := range strings.Split(got, "\n") {
		if runes(l) > 16 {
			t.Errorf("line %q is wider than 16:\n%s", l, got)
		}
	}
	if strings.Join(strings.Fields(got), "") != "labdiagnose--scenario=a-very-long-scenario-name" {
		t.Errorf("reflow lost text:\n%s", got)
	}
}
