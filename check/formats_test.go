package check

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"jitterlab/internal/testtool"
)

// constructed is a report on a gate of three assertions judged on
// constructed per-seed values: judder 1..5 against max 5 (pass), max 3
// (inconclusive) and snaps_per_min 2,2,2,2,2 against max 1 (fail).
func constructed(t *testing.T, strict bool) *Report {
	t.Helper()
	p := gateFile(t, "gate, 100%.toml", `name = "a <gate> & co"
seeds = "1-5"

[[assert]]
metric = "judder_mps"
max = 5

[[assert]]
metric = "judder_mps"
max = 3

[[assert]]
metric = "snaps_per_min"
max = 1
`)
	g, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	figs := Figures{"judder_mps": oneToFive, "snaps_per_min": {2, 2, 2, 2, 2}}
	res, err := Judgement(g, figs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Report{Gates: []*Gate{g}, Results: res, Strict: strict, Version: "test"}
}

func TestTextSaysEachVerdictWithItsFigures(t *testing.T) {
	var b bytes.Buffer
	if err := constructed(t, false).WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"judder_mps ≤ 5 m/s", "3.000 ± 1.963 m/s", "pass",
		"judder_mps ≤ 3 m/s", "inconclusive: the mean is on the bound",
		"snaps_per_min ≤ 1/min", "2.00 ± 0.00/min", "FAIL",
		"1 scenario, 3 assertions: 1 pass, 1 fail, 1 inconclusive; check FAILED",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}

// The JUnit XML is valid against the Ant/Jenkins JUnit schema
// (testdata/junit.xsd, xmllint) and reads back: a suite per scenario,
// a case per assertion, the failure with its figures, the inconclusive
// one skipped (a failure under --strict).
func TestJUnitValidatesAndReadsBack(t *testing.T) {
	xmllint := testtool.Need(t, "xmllint", "libxml2-utils")
	for _, strict := range []bool{false, true} {
		var b bytes.Buffer
		if err := constructed(t, strict).WriteJUnit(&b); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(t.TempDir(), "check.xml")
		os.WriteFile(f, b.Bytes(), 0o644)
		out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", f).CombinedOutput()
		if err != nil {
			t.Fatalf("xmllint (strict %v): %v\n%s\n%s", strict, err, out, b.String())
		}
		s, err := ParseJUnit(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		wantFail, wantSkip := 1, 1
		if strict {
			wantFail, wantSkip = 2, 0
		}
		if len(s.Suites) != 1 || s.Tests != 3 || s.Failures != wantFail {
			t.Fatalf("strict %v: %d suites, %d tests, %d failures; want 1, 3, %d", strict, len(s.Suites), s.Tests, s.Failures, wantFail)
		}
		suite := s.Suites[0]
		if suite.Name != "a <gate> & co" || suite.Skipped != wantSkip || len(suite.Cases) != 3 {
			t.Fatalf("strict %v: suite %q, %d skipped, %d cases", strict, suite.Name, suite.Skipped, len(suite.Cases))
		}
		fail := suite.Cases[2].Failure
		if fail == nil || !strings.Contains(fail.Message, "snaps_per_min ≤ 1/min: 2.00 ± 0.00/min over 5 seeds") || !strings.Contains(fail.Message, ":12, scenario a <gate> & co") {
			t.Errorf("strict %v: failure %+v; want the figures and the line", strict, fail)
		}
		if suite.Cases[0].Failure != nil || suite.Cases[0].Skipped != nil {
			t.Errorf("strict %v: the passing case has %+v", strict, suite.Cases[0])
		}
	}
}

func TestAnnotationsPointAtTheAssertLine(t *testing.T) {
	var b bytes.Buffer
	r := constructed(t, false)
	if err := r.WriteAnnotations(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "::warning file=") || !strings.HasPrefix(lines[1], "::error file=") {
		t.Fatalf("annotations:\n%s\nwant a warning (inconclusive), then an error (fail)", b.String())
	}
	// The file name's comma and percent sign are escaped as workflow
	// commands require; the line is the [[assert]]'s.
	if !strings.Contains(lines[1], "gate%2C 100%25.toml,line=12,title=lab check%3A snaps_per_min ≤ 1/min::") {
		t.Errorf("error annotation %q", lines[1])
	}
	b.Reset()
	r.Strict = true
	r.WriteAnnotations(&b)
	if strings.Count(b.String(), "::error ") != 2 {
		t.Errorf("under --strict: %s; want two errors", b.String())
	}
}

func TestMarkdownHasATableRowPerAssertion(t *testing.T) {
	var b bytes.Buffer
	constructed(t, false).WriteMarkdown(&b)
	out := b.String()
	if strings.Count(out, "\n| judder_mps") != 2 || !strings.Contains(out, "| snaps_per_min ≤ 1/min | 2.00 ± 0.00/min | ❌ FAIL | 12 |") {
		t.Errorf("markdown:\n%s", out)
	}
}

func TestJSONAssertions(t *testing.T) {
	var b bytes.Buffer
	constructed(t, false).WriteJSON(&b)
	var doc struct {
		Status     string
		Assertions []struct {
			Metric, Bound, Verdict string
			Line                   int
			SeedsNeeded            *int `json:"seeds_needed"`
			Value                  struct{ Mean, Half float64 }
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	a := doc.Assertions
	if doc.Status != "fail" || len(a) != 3 || a[0].Verdict != "pass" || a[1].Verdict != "inconclusive" || a[2].Verdict != "fail" {
		t.Fatalf("json %s", b.String())
	}
	if a[1].SeedsNeeded == nil || *a[1].SeedsNeeded != 0 || a[0].SeedsNeeded != nil || math.Abs(a[0].Value.Half-1.9632) > 1e-4 {
		t.Errorf("json %s", b.String())
	}
}

// FuzzParseJUnit: no input panics; what it reads, written again, reads
// back the same.
func FuzzParseJUnit(f *testing.F) {
	f.Add([]byte(`<testsuites name="lab check" tests="1" failures="1" errors="0"><testsuite name="g" tests="1" failures="1" errors="0" skipped="0" file="g.toml"><testcase name="x" classname="g"><failure message="m" type="fail">g.toml:3</failure></testcase></testsuite></testsuites>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseJUnit(data)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := xml.NewEncoder(&b).Encode(s); err != nil {
			return // text XML cannot carry (a control character): nothing to compare
		}
		again, err := ParseJUnit(b.Bytes())
		if err != nil || !reflect.DeepEqual(normal(s), normal(again)) {
			t.Fatalf("%q read as %+v, written as %s, read back as %+v (%v)", data, s, b.Bytes(), again, err)
		}
	})
}

// normal drops the XMLName, which the encoder sets.
func normal(s JUnitSuites) JUnitSuites {
	s.XMLName = xml.Name{}
	return s
}
