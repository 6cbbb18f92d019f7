package check

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"jitterlab/batch"
	"jitterlab/lab"
	"jitterlab/stats"
)

// JUnit XML (the Ant/Jenkins format; check/testdata/junit.xsd): a
// testsuite per scenario file, a testcase per assertion; a failed one has
// a <failure>, an inconclusive one a <skipped> (a <failure> under
// --strict), each with the figures in its message.
type (
	JUnitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Suites   []JUnitSuite `xml:"testsuite"`
	}
	JUnitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		File       string          `xml:"file,attr"`
		Properties []JUnitProperty `xml:"properties>property"`
		Cases      []JUnitCase     `xml:"testcase"`
	}
	JUnitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	JUnitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Failure   *JUnitProblem `xml:"failure"`
		Skipped   *JUnitProblem `xml:"skipped"`
	}
	JUnitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// JUnit is the report as JUnit XML.
func (r *Report) JUnit() JUnitSuites {
	out := JUnitSuites{Name: "lab check"}
	for _, g := range r.Gates {
		s := JUnitSuite{Name: g.Scenario.Name, File: g.File, Properties: []JUnitProperty{
			{"seeds", batch.FormatSeeds(g.Seeds)}, {"duration", g.Duration().String()}, {"model", lab.ModelVersion}, {"version", r.Version}}}
		if g.Game != nil {
			s.Properties = []JUnitProperty{{"run", "one proxy run of a real game"}, {"frames", strconv.FormatUint(g.Game.Frames, 10)},
				{"duration", g.Game.Wall.String()}, {"version", r.Version}}
		}
		for _, warn := range r.Warnings[g] {
			s.Properties = append(s.Properties, JUnitProperty{"warning", warn})
		}
		for i := range r.Results {
			x := &r.Results[i]
			if x.Gate != g {
				continue
			}
			c := JUnitCase{Name: x.Claim(), Classname: g.Scenario.Name}
			p := &JUnitProblem{Message: r.Message(x), Type: x.Status.String(), Text: fmt.Sprintf("%s:%d\n", x.File, x.Line)}
			switch {
			case r.Failing(x):
				c.Failure = p
				s.Failures++
			case x.Status == Inconclusive:
				c.Skipped = p
				s.Skipped++
			}
			s.Cases = append(s.Cases, c)
			s.Tests++
		}
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Suites = append(out.Suites, s)
	}
	return out
}

// WriteJUnit writes the report as JUnit XML.
func (r *Report) WriteJUnit(w io.Writer) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(r.JUnit()); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteMarkdown writes the report as Markdown for a CI job's summary
// ($GITHUB_STEP_SUMMARY): the verdict, then a table per scenario.
func (r *Report) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "## lab check: %s\n\n", r.Summary())
	for _, g := range r.Gates {
		if g.Game != nil {
			fmt.Fprintf(w, "### the game's report card (`%s`)\n\n%s: %s\n\n", g.File, g.Game.runText(), GameRule)
		} else {
			fmt.Fprintf(w, "### %s (`%s`)\n\n%d seeds (%s), %v each, model %s.\n\n", mdCell(g.Scenario.Name), g.File, len(g.Seeds), batch.FormatSeeds(g.Seeds), g.Duration(), lab.ModelVersion)
		}
		for _, warn := range r.Warnings[g] {
			fmt.Fprintf(w, "⚠️ %s\n\n", warn)
		}
		value := "value (95 % interval)"
		if g.Game != nil {
			value = "value (one run)"
		}
		fmt.Fprintf(w, "| assertion | %s | verdict | line |\n", value)
		fmt.Fprintln(w, "|---|---|---|---|")
		for i := range r.Results {
			x := &r.Results[i]
			if x.Gate != g {
				continue
			}
			mark := "✅"
			if r.Failing(x) {
				mark = "❌"
			} else if x.Status == Inconclusive {
				mark = "⚠️"
			}
			fmt.Fprintf(w, "| %s | %s | %s %s | %d |\n", mdCell(x.Claim()), mdCell(x.Value()), mark, mdCell(r.Why(x)), x.Line)
		}
		fmt.Fprintln(w)
	}
	return nil
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// WriteAnnotations writes a GitHub Actions workflow command per failing
// assertion (::error) and per inconclusive one that does not fail
// (::warning), pointing at the [[assert]] line, after a ::warning per
// warning of the game's (Report.Warnings), pointing at the file.
func (r *Report) WriteAnnotations(w io.Writer) error {
	for _, g := range r.Gates {
		for _, warn := range r.Warnings[g] {
			if _, err := fmt.Fprintf(w, "::warning file=%s,title=%s::%s\n", ghProperty(g.File), ghProperty("lab check: the game"), ghData(warn)); err != nil {
				return err
			}
		}
	}
	for i := range r.Results {
		x := &r.Results[i]
		kind := "error"
		switch {
		case r.Failing(x):
		case x.Status == Inconclusive:
			kind = "warning"
		default:
			continue
		}
		if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,title=%s::%s\n", kind, ghProperty(x.File), x.Line, ghProperty("lab check: "+x.Claim()), ghData(r.Message(x))); err != nil {
			return err
		}
	}
	return nil
}

// ghData escapes a workflow command's message; ghProperty its properties.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// JSON is 'lab check --json' ($defs/check in docs/jitterlab.schema.json).
type JSON struct {
	Schema     int             `json:"schema"`
	Kind       string          `json:"kind"` // "check"
	Version    string          `json:"version"`
	Model      string          `json:"model"`
	Strict     bool            `json:"strict"`
	Status     Status          `json:"status"` // pass, fail or inconclusive
	Scenarios  []JSONScenario  `json:"scenarios"`
	Assertions []JSONAssertion `json:"assertions"`
}

// JSONScenario is a gate in JSON.
type JSONScenario struct {
	Name      string   `json:"name"`
	File      string   `json:"file"`
	Seeds     []uint64 `json:"seeds"`
	DurationS float64  `json:"duration_s"`
	Warnings  []string `json:"warnings,omitempty"` // Report.Warnings
}

// JSONAssertion is a result in JSON: value is the figure's interval over
// the seeds (for max_worse, the paired differences' interval, and
// baseline the baseline's own).
type JSONAssertion struct {
	Scenario    string          `json:"scenario"`
	File        string          `json:"file"`
	Line        int             `json:"line"`
	Metric      string          `json:"metric"`
	Unit        string          `json:"unit"`
	Bound       string          `json:"bound"`
	Limit       float64         `json:"limit"`
	Value       stats.Interval  `json:"value"`
	Baseline    *stats.Interval `json:"baseline,omitempty"`
	Verdict     Status          `json:"verdict"`
	Fails       bool            `json:"fails"` // fails the check (inconclusive does under --strict)
	SeedsNeeded *int            `json:"seeds_needed,omitempty"`
	NoData      int             `json:"no_data_seeds"`
	Message     string          `json:"message"`
}

// JSON is the report as 'lab check --json' writes it.
func (r *Report) JSON() JSON {
	out := JSON{Schema: batch.Schema, Kind: "check", Version: r.Version, Model: lab.ModelVersion, Strict: r.Strict, Status: r.Status(),
		Scenarios: []JSONScenario{}, Assertions: []JSONAssertion{}}
	for _, g := range r.Gates {
		out.Scenarios = append(out.Scenarios, JSONScenario{g.Scenario.Name, g.File, g.Seeds, g.Duration().Seconds(), r.Warnings[g]})
	}
	for i := range r.Results {
		x := &r.Results[i]
		a := JSONAssertion{Scenario: x.Gate.Scenario.Name, File: x.File, Line: x.Line, Metric: x.Metric.Name, Unit: x.Unit,
			Bound: x.Bound, Limit: x.Limit, Value: x.Interval, Baseline: x.Base, Verdict: x.Status, Fails: r.Failing(x),
			NoData: x.NoData, Message: r.Message(x)}
		if x.Status == Inconclusive && x.NoData == 0 {
			n := x.SeedsNeeded
			a.SeedsNeeded = &n
		}
		out.Assertions = append(out.Assertions, a)
	}
	return out
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.JSON())
}

// ParseJUnit reads JUnit XML as WriteJUnit writes it.
func ParseJUnit(data []byte) (JUnitSuites, error) {
	var s JUnitSuites
	err := xml.Unmarshal(data, &s)
	return s, err
}
