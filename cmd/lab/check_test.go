package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"jitterlab/check"
)

// writeGate writes a gate file in dir.
func writeGate(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const smallGate = `base = "home-broadband"
duration = "5s"
seeds = "1-5"

[[assert]]
metric = "judder_mps"
`

// Exit 0: the example gates pass, with every output written and the JSON
// following the schema; under GITHUB_ACTIONS nothing passing is annotated.
func TestCheckExamplesPass(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	dir := t.TempDir()
	junit, summary := filepath.Join(dir, "check.xml"), filepath.Join(dir, "summary.md")
	code, out, errOut := runLab(t, "check", "--junit", junit, "--summary", summary, "../../scenarios/examples/ci/")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "3 scenarios, 14 assertions: 14 pass, 0 fail, 0 inconclusive; check passed") || strings.Contains(out, "::") {
		t.Errorf("output:\n%s", out)
	}
	b, _ := os.ReadFile(junit)
	if s, err := check.ParseJUnit(b); err != nil || len(s.Suites) != 3 || s.Tests != 14 || s.Failures != 0 {
		t.Errorf("junit: %+v %v", s, err)
	}
	if md, _ := os.ReadFile(summary); !strings.Contains(string(md), "| judder_mps ≤ 0.75 m/s |") {
		t.Errorf("summary:\n%s", md)
	}
	code, out, errOut = runLab(t, "check", "--json", "../../scenarios/examples/ci/")
	if code != 0 {
		t.Fatal(errOut)
	}
	s := loadSchema(t)
	v := decodeJSON(t, []byte(out), "check --json")
	if err := s.validate(v, s.root, "$"); err != nil {
		t.Errorf("check --json does not follow the schema: %v", err)
	}
	if err := s.validate(v, s.def("check"), "$"); err != nil {
		t.Errorf("check --json does not follow $defs/check: %v", err)
	}
}

// Exit 3: an assertion failed; its annotation points at the [[assert]]
// line, the JUnit file is still written.
func TestCheckFailedExits3(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	dir := t.TempDir()
	p := writeGate(t, dir, "g.toml", smallGate+"max = 0.001\n")
	junit := filepath.Join(dir, "check.xml")
	code, out, errOut := runLab(t, "check", "--junit", junit, p)
	if code != 3 || !strings.Contains(errOut, "lab check: an assertion failed") {
		t.Fatalf("exit %d (want 3): %s%s", code, out, errOut)
	}
	if !strings.Contains(out, "FAIL") || !strings.Contains(out, "::error file="+p+",line=5,title=lab check%3A judder_mps ≤ 0.001 m/s::judder_mps ≤ 0.001 m/s: ") {
		t.Errorf("output:\n%s", out)
	}
	if b, _ := os.ReadFile(junit); !strings.Contains(string(b), "<failure message=\"judder_mps ≤ 0.001 m/s: ") {
		t.Errorf("junit:\n%s", b)
	}
}

// Exit 4: a bound on the mean measured is inconclusive; it passes with a
// warning, and fails under --strict.
func TestCheckInconclusiveExits4UnderStrict(t *testing.T) {
	dir := t.TempDir()
	p := writeGate(t, dir, "g.toml", smallGate+"max = 1e9\n")
	code, out, errOut := runLab(t, "check", "--json", p)
	if code != 0 {
		t.Fatal(errOut)
	}
	var doc check.JSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	mean := doc.Assertions[0].Value.Mean
	p = writeGate(t, dir, "g.toml", smallGate+"max = "+jsonNumber(mean)+"\n")
	if code, out, errOut := runLab(t, "check", p); code != 0 || !strings.Contains(out, "inconclusive") {
		t.Fatalf("without --strict: exit %d (want 0): %s%s", code, out, errOut)
	}
	code, out, errOut = runLab(t, "check", "--strict", p)
	if code != 4 || !strings.Contains(out, "INCONCLUSIVE (fails under --strict)") || !strings.Contains(errOut, "inconclusive (--strict)") {
		t.Fatalf("--strict: exit %d (want 4): %s%s", code, out, errOut)
	}
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// Exit 2: bad input, one line naming the file and line.
func TestCheckBadInputExits2(t *testing.T) {
	dir := t.TempDir()
	base := writeGate(t, dir, "other.json", `{"schema":2,"kind":"baseline","model":"card-1","scenarios":[]}`)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown figure", []string{writeGate(t, dir, "a.toml", strings.Replace(smallGate, "judder_mps", "input_delay_p95_ms", 1)+"max = 1\n")}, "a.toml:6: metric \"input_delay_p95_ms\": no such figure; did you mean server_input_delay_p95_ms?"},
		{"wrong unit", []string{writeGate(t, dir, "b.toml", smallGate+"max = \"300ms\"\n")}, "b.toml:7: max = \"300ms\" on judder_mps: the figure is in m/s, not ms"},
		{"baseline of another model", []string{"--baseline", base, writeGate(t, dir, "c.toml", smallGate+"max_worse = 0.1\n")}, `baseline ` + base + `: saved by model "card-1"`},
		{"max_worse without a baseline", []string{writeGate(t, dir, "d.toml", smallGate+"max_worse = 0.1\n")}, "d.toml:5: max_worse on judder_mps needs a baseline"},
		{"no file", []string{}, "give the scenario files or folders to check"},
	} {
		code, out, errOut := runLab(t, append([]string{"check"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%s: exit %d (want 2), stderr %q, want one line with %q (stdout %q)", c.name, code, errOut, c.want, out)
		}
	}
}

// Exit 1: the command failed: a run that cannot start (flaps that make
// more changes than a run takes, as lab run refuses them with exit 1), or
// an output it cannot write after the runs.
func TestCheckFailedCommandExits1(t *testing.T) {
	dir := t.TempDir()
	flaps := writeGate(t, dir, "flaps.toml", "duration = \"1h\"\nseeds = \"1-2\"\n[[flap]]\nperiod = \"10ms\"\ndown = \"5ms\"\n[[assert]]\nmetric = \"judder_mps\"\nmax = 1\n")
	code, _, errOut := runLab(t, "check", flaps)
	if code != 1 || !strings.Contains(errOut, "lab check: a run failed: seed 1: "+flaps+":3: oscillators and flaps make more than 200000 changes") {
		t.Errorf("a run that cannot start: exit %d (want 1): %s", code, errOut)
	}
	p := writeGate(t, dir, "g.toml", smallGate+"max = 1e9\n")
	code, _, errOut = runLab(t, "check", "--junit", filepath.Join(dir, "no", "such", "dir", "x.xml"), p)
	if code != 1 || !strings.Contains(errOut, "x.xml") {
		t.Fatalf("an output it cannot write: exit %d (want 1): %s", code, errOut)
	}
}

// A baseline saved by --save-baseline is read back by --baseline: the same
// build on the same seeds is no worse (every paired difference 0).
func TestCheckBaselineRoundTrip(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if code, _, errOut := runLab(t, "check", "--save-baseline", base, writeGate(t, dir, "g.toml", smallGate+"max = 1e9\n")); code != 0 {
		t.Fatal(errOut)
	}
	p := writeGate(t, dir, "g.toml", smallGate+"max_worse = 0\n")
	code, out, errOut := runLab(t, "check", "--baseline", base, p)
	if code != 0 || !strings.Contains(out, "judder_mps − baseline ≤ 0 m/s") || !strings.Contains(out, "0.000 ± 0.000 m/s") {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	other := writeGate(t, dir, "g.toml", strings.Replace(smallGate, "5s", "6s", 1)+"max_worse = 0\n")
	if code, _, errOut := runLab(t, "check", "--baseline", base, other); code != 2 || !strings.Contains(errOut, `was saved with duration = "5s", `) {
		t.Errorf("another duration: exit %d: %s", code, errOut)
	}
}

// BenchmarkCheckExamples is 'lab check scenarios/examples/ci/' in
// process: the goal is ≤ 10 s on 2 cores (s/check).
func BenchmarkCheckExamples(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if code := realMain([]string{"check", "../../scenarios/examples/ci/"}, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/check")
}

// The workflow in docs runs the lab check command .ci/run runs (issue 24:
// the workflow is tested by running the same command in CI).
func TestWorkflowRunsTheCommandCIRuns(t *testing.T) {
	wf, err := os.ReadFile("../../docs/ci-gate.yml")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	flags := func(text, file string) []string {
		for _, l := range strings.Split(text, "\n") {
			if _, cmd, ok := strings.Cut(l, "go run ./cmd/lab check "); ok {
				// The flags and the gates; the files the flags name differ.
				var out []string
				words := strings.Fields(cmd)
				for _, w := range words {
					if strings.HasPrefix(w, "-") {
						out = append(out, w)
					}
				}
				return append(out, words[len(words)-1])
			}
		}
		t.Fatalf("%s runs no 'go run ./cmd/lab check'", file)
		return nil
	}
	a, b := flags(string(wf), "docs/ci-gate.yml"), flags(string(ci), ".ci/run")
	if strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("docs/ci-gate.yml runs lab check %v, .ci/run %v: the flags and gates should be the same", a, b)
	}
}

// The verdicts do not depend on --workers.
func TestCheckOutputDoesNotDependOnWorkers(t *testing.T) {
	p := writeGate(t, t.TempDir(), "g.toml", smallGate+"max = 0.5\n")
	_, one, _ := runLab(t, "check", "--json", "--workers", "1", p)
	_, two, _ := runLab(t, "check", "--json", "--workers", "3", p)
	if one != two || one == "" {
		t.Errorf("--workers 1:\n%s\n--workers 3:\n%s", one, two)
	}
}
