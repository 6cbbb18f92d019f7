package scenarios

import (
	goreflect "reflect"
	"strings"
	"testing"
)

func TestAssertsAndSeedsWithTheirLines(t *testing.T) {
	sc, err := parseText(t, `seeds = "1-20"
link.latency = "80ms"

[[assert]]
metric = "judder_mps"
max = 0.3

[[assert]]
metric = "local_response_p95_ms"
min = 1
max = "120ms"
max_worse = 10
`)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Seeds != "1-20" || sc.SeedsLine != 1 {
		t.Fatalf("seeds %q on line %d, want \"1-20\" on line 1", sc.Seeds, sc.SeedsLine)
	}
	want := []Assert{
		{Metric: "judder_mps", MetricLine: 5, Line: 4, File: "test.toml", Bounds: []Bound{{Key: "max", Value: 0.3, Line: 6}}},
		{Metric: "local_response_p95_ms", MetricLine: 9, Line: 8, File: "test.toml", Bounds: []Bound{
			{Key: "max", Value: 120, Unit: "ms", Line: 11}, {Key: "min", Value: 1, Line: 10}, {Key: "max_worse", Value: 10, Line: 12}}},
	}
	if !goreflect.DeepEqual(sc.Asserts, want) {
		t.Fatalf("asserts\n%+v\nwant\n%+v", sc.Asserts, want)
	}
}

func TestAssertErrorsNameFileAndLine(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"misspelt key", "[[assert]]\nmetric = \"judder_mps\"\nmaxx = 1\n", `test.toml:3: assert entry 1: unknown key "maxx"; did you mean max?`},
		{"no metric", "[[assert]]\nmax = 1\n", `test.toml:1: assert entry 1: want metric =`},
		{"no bound", "\n[[assert]]\nmetric = \"judder_mps\"\n", `test.toml:2: assert entry 1 (judder_mps): no bound`},
		{"bound not a number", "[[assert]]\nmetric = \"judder_mps\"\nmax = \"fast\"\n", `test.toml:3: assert entry 1: max = "fast": allowed a number`},
		{"bound a boolean", "[[assert]]\nmetric = \"judder_mps\"\nmin = true\n", `test.toml:3: assert entry 1: min = true`},
		{"seeds a number", "seeds = 20\n", `test.toml:1: seeds = 20: allowed seeds in quotes`},
		{"assert a table", "[assert]\nmetric = \"x\"\n", `assert: want [[assert]] entries`},
	} {
		_, err := parseText(t, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line with %q", c.name, err, c.want)
		}
	}
}
