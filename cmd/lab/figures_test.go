package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// proseFigure is a decimal figure in a page's prose, with the character
// before it: a figure right after "=" is a setting (`client.alpha=0.075`),
// one inside a word or a version (v0.8.2) is no figure.
var proseFigure = regexp.MustCompile(`(^|[^\w.=])(\d+\.\d+)`)

// proseInterval is a mean with its interval ("-512 ± 47"), quoted whole:
// the output must show the same pair, sign included (− read as -).
var proseInterval = regexp.MustCompile(`[+−-]?\d+(\.\d+)? ± \d+(\.\d+)?`)

// figureIn says whether the output text shows fig as a whole number
// (0.05 is not in 0.052, nor 2.1 in 12.1).
func figureIn(output, fig string) bool {
	for i := strings.Index(output, fig); i >= 0; {
		before, after := i-1, i+len(fig)
		okBefore := before < 0 || !strings.ContainsRune("0123456789.", rune(output[before]))
		okAfter := after >= len(output) || !strings.ContainsRune("0123456789", rune(output[after])) &&
			!(output[after] == '.' && after+1 < len(output) && output[after+1] >= '0' && output[after+1] <= '9')
		if okBefore && okAfter {
			return true
		}
		j := strings.Index(output[i+1:], fig)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// unsourcedFigures returns the decimal figures of a page's prose (its
// text outside fenced blocks, link targets left out) that none of its
// outputs shows and the allowlist does not name, in the order they occur.
func unsourcedFigures(page string, outputs []string, allowed map[string]string) []string {
	var missing []string
	for i, part := range strings.Split(page, "```") {
		if i%2 == 1 {
			continue // a fenced block
		}
		part = mdTarget.ReplaceAllString(part, "]")
		for _, iv := range proseInterval.FindAllString(part, -1) {
			iv = strings.ReplaceAll(iv, "−", "-")
			if !slices.ContainsFunc(outputs, func(out string) bool {
				return strings.Contains(strings.Join(strings.Fields(out), " "), iv)
			}) {
				missing = append(missing, iv)
			}
		}
		for _, m := range proseFigure.FindAllStringSubmatch(part, -1) {
			fig := m[2]
			if _, ok := allowed[fig]; ok {
				continue
			}
			if !slices.ContainsFunc(outputs, func(out string) bool { return figureIn(out, fig) }) {
				missing = append(missing, fig)
			}
		}
	}
	return missing
}

func TestUnsourcedFiguresOfConstructedPage(t *testing.T) {
	page := "The judder is 0.245 m/s and the tank moves at 1.66 of 2 m/s.\n" +
		"With `client.alpha=0.075` and [a link](../v0.8.2/x.md) the floor is 0.05 s (a setting).\n" +
		"```\n$ go run ./cmd/lab diagnose\njudder 9.99\n```\n" +
		"It ends at +2.9 and 12.1; overwritten −512 ± 47, not +512 ± 47 nor -399 ± 85.\n"
	outputs := []string{"judder +0.245 ± 0.044, ends at +2.9, offset 2.1, delay 0.052 s\noverwritten -512 ±\n  47, 399 ± 85\n"}
	got := unsourcedFigures(page, outputs, map[string]string{"0.05": "a setting"})
	// 9.99 is in a block; 0.075 a setting; 0.8.2 a link; an interval
	// wrapped across lines is found; its sign counts.
	want := []string{"1.66", "+512 ± 47", "-399 ± 85", "12.1"}
	if !slices.Equal(got, want) {
		t.Errorf("unsourced figures %q; want %q", got, want)
	}
	if figureIn("0.052", "0.05") || figureIn("12.1", "2.1") || figureIn("2.15", "2.1") || !figureIn("at 2.1.", "2.1") {
		t.Error("figureIn matches part of a number, or misses one before a full stop")
	}
}

// diagnoseGuides are the pages under docs/ that read a diagnosis or quote
// runs: every figure their prose quotes comes from an output block on the
// same page, tested against a real run (TestREADMEOutputsReproduce). The
// allowlist names figures that are settings or definitions, not outputs,
// each with why.
var diagnoseGuides = map[string]map[string]string{
	"guide/why-does-my-player-jitter.md": {},
	"guide/diagnose-latency-steps.md":    {},
	"guide/diagnose-blackouts.md":        {},
	"guide/diagnose-realistic-links.md":  {},
	"explanation/diagnose-bar.md":        {},
	"explanation/the-reference-game.md": {
		"0.052": "the dead band's latched interval, a setting (spec 003)",
		"0.15":  "client.alpha's default, a setting",
		"0.5":   "client.snap's default in m, a setting",
		"0.02":  "the overwatch dilation law's gain per tick, a definition",
		"0.1":   "the unity dilation law's gain per tick, a definition",
		"2.5":   "the duration of the real-socket runs, a setting",
	},
	"explanation/variants-client.md": {
		"102.6": "τ at α = 0.15, arithmetic on the definition",
		"0.15":  "client.alpha's default, a setting",
		"0.6":   "a test's input: a 0.6 m correction snaps",
		"0.85":  "1 − α in a test's expected value, a definition",
		"0.02":  "the overwatch dilation law's gain per tick, a definition",
		"0.9":   "Unity's PredictionTimeScaleMin, a constant it ships",
		"1.1":   "Unity's PredictionTimeScaleMax, a constant it ships",
		"0.075": "the low end of Unity's documented gain range, a constant",
		"3.4":   "170 ms ÷ the 50 ms tick, arithmetic",
		"2.3":   "an issue's section number (§2.3)",
		"0.25":  "a test's input: throttle −0.25",
	},
}

// TestDocsGuideFiguresComeFromTheirOutputs (issue 23: figures quoted in
// several places say which run they come from): a figure in a diagnose
// guide's prose must appear in a tested output block of the same page,
// and every fenced block on those pages is such a tested output (or a
// shell snippet), so no figure can come from a run the page does not show.
func TestDocsGuideFiguresComeFromTheirOutputs(t *testing.T) {
	pages, examples := readmeExamples(t, "run", "ab", "sweep", "replay", "diagnose")
	for name, allowed := range diagnoseGuides {
		abs, err := filepath.Abs(filepath.Join("..", "..", "docs", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		blocks, ok := pages[abs]
		if !ok {
			t.Fatalf("%s is not among the docs' pages", name)
		}
		text := strings.Join(blocks, "```")
		var outputs []string
		tested := map[int]bool{}
		for _, ex := range examples {
			if ex.file == abs {
				outputs = append(outputs, ex.want)
				tested[ex.block] = true
			}
		}
		for i, block := range blocks {
			if i%2 == 1 && !tested[i] && !strings.HasPrefix(block, "sh\n") {
				first, _, _ := strings.Cut(strings.TrimPrefix(block, "\n"), "\n")
				t.Errorf("%s: the block starting %q is not a tested output (\"$ go run ./cmd/lab …\" with its output, or an excerpt)", name, first)
			}
		}
		for _, fig := range unsourcedFigures(text, outputs, allowed) {
			t.Errorf("%s quotes %s, which no output on the page shows", name, fig)
		}
	}
}
