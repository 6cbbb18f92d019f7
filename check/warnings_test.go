package check

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"jitterlab/lab"
)

// A gate on a game whose client cannot keep pace with its server (a 20 ms
// server tick against the 50 ms send interval: the tank at 40 % of its
// speed) passes a judder bound, since a crawling tank judders little. The
// check says the game is broken beside the verdict, in every format, and
// leaves the verdict as it is. The reference game gets no warning.
func TestGateWarnsWhenTheGameDoesNotKeepPace(t *testing.T) {
	for _, c := range []struct {
		name, set string
		warn      bool
	}{{"reference", "", false}, {"underfed", `server.tick = "20ms"`, true}} {
		p := gateFile(t, c.name+".toml", `seeds = "1-3"
duration = "20s"
`+c.set+`

[[assert]]
metric = "judder_mps"
max = 2
`)
		g, err := Load(p)
		if err != nil {
			t.Fatal(err)
		}
		rep, _, err := Check([]*Gate{g}, nil, "test", 1, false)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Status() != Pass {
			t.Fatalf("%s: the judder bound %v, want it to pass either way", c.name, rep.Status())
		}
		warns := rep.Warnings[g]
		if !c.warn {
			if len(warns) > 0 {
				t.Errorf("%s: warnings %q, want none", c.name, warns)
			}
			continue
		}
		if len(warns) != 1 || !strings.HasPrefix(warns[0], "seed 1: the client fell ") || !strings.HasSuffix(warns[0], "(3 of 3 seeds alike)") {
			t.Fatalf("%s: warnings %q, want one: seed 1's words, 3 of 3 seeds alike", c.name, warns)
		}
		var text, md, ann, junit, js bytes.Buffer
		for _, err := range []error{rep.WriteText(&text), rep.WriteMarkdown(&md), rep.WriteAnnotations(&ann), rep.WriteJUnit(&junit), rep.WriteJSON(&js)} {
			if err != nil {
				t.Fatal(err)
			}
		}
		for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "annotations": ann.String(), "junit": junit.String()} {
			if !strings.Contains(out, "the client fell") {
				t.Errorf("%s: the %s output does not say the warning:\n%s", c.name, name, out)
			}
		}
		var got JSON
		if err := json.Unmarshal(js.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Scenarios) != 1 || len(got.Scenarios[0].Warnings) != 1 || got.Scenarios[0].Warnings[0] != warns[0] {
			t.Errorf("%s: JSON scenarios %+v, want the warning", c.name, got.Scenarios)
		}
	}
}

// gameWarnings on constructed summaries: one warning per kind, with the
// first such seed's words and the count.
func TestGameWarningsSayTheFirstSeedAndHowMany(t *testing.T) {
	nan := math.NaN()
	ok := lab.Summary{InputsSent: 1000, FinalOffset: 2, Card: lab.ReportCard{JudderMPS: 0.1}}
	behind := lab.Summary{InputsSent: 100, FinalOffset: 50, Card: lab.ReportCard{JudderMPS: 0.1}}
	never := lab.Summary{Card: lab.ReportCard{JudderMPS: nan}}
	got := gameWarnings([]uint64{7, 8, 9, 10}, []lab.Summary{ok, never, behind, behind})
	want := []string{
		"seed 8: " + never.NoGame() + " (1 of 4 seeds alike)",
		"seed 9: " + behind.OffPace() + " (2 of 4 seeds alike)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("gameWarnings = %q\nwant %q", got, want)
	}
	if got := gameWarnings([]uint64{1, 2}, []lab.Summary{ok, ok}); got != nil {
		t.Errorf("a healthy game's warnings: %q", got)
	}
}
