package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"jitterlab/diagnose"
	"jitterlab/internal/testtool"
	"jitterlab/lab"
)

func diagnosis(t *testing.T) *diagnose.Result {
	t.Helper()
	cfg := lab.DefaultConfig()
	sc, err := lab.LoadScenario("jitter-fix")
	if err != nil {
		t.Fatal(err)
	}
	if err := lab.ApplyScenario(&cfg, sc); err != nil {
		t.Fatal(err)
	}
	cfg.Duration = 20 * time.Second
	r, err := diagnose.Run(diagnose.Options{Base: cfg, Scenario: sc, Name: "jitter-fix", Seeds: []uint64{1, 2, 3, 4}, Workers: 2, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// element is a parsed element: its name, attributes, text and children.
type element struct {
	name     string
	attrs    map[string]string
	text     string
	children []*element
}

// parse reads the page as XML, strictly: every element closed, every
// attribute quoted, no unknown entities.
func parse(t *testing.T, page []byte) *element {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Strict = true
	root := &element{name: "#document"}
	stack := []*element{root}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v", err)
		}
		top := stack[len(stack)-1]
		switch tk := tok.(type) {
		case xml.StartElement:
			e := &element{name: tk.Name.Local, attrs: map[string]string{}}
			for _, a := range tk.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			top.children = append(top.children, e)
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			top.text += string(tk)
		}
	}
	if len(stack) != 1 {
		t.Fatalf("%d elements left open", len(stack)-1)
	}
	return root
}

func (e *element) all(name string) []*element {
	var out []*element
	var walk func(*element)
	walk = func(x *element) {
		if x.name == name {
			out = append(out, x)
		}
		for _, c := range x.children {
			walk(c)
		}
	}
	walk(e)
	return out
}

func (e *element) byID(id string) *element {
	var found *element
	var walk func(*element)
	walk = func(x *element) {
		if x.attrs["id"] == id {
			found = x
		}
		for _, c := range x.children {
			walk(c)
		}
	}
	walk(e)
	return found
}

func (e *element) allText() string {
	s := e.text
	for _, c := range e.children {
		s += " " + c.allText()
	}
	return s
}

func render(t *testing.T, r *diagnose.Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestReportHasEverySection(t *testing.T) {
	r := diagnosis(t)
	doc := parse(t, render(t, r))
	if h := doc.all("h1"); len(h) != 1 || !strings.Contains(h[0].text, "jitter-fix") {
		t.Errorf("h1: %+v", h)
	}
	for _, id := range []string{"conditions", "diagnosis", "findings", "changes", "combination", "seeds", "timelines"} {
		if doc.byID(id) == nil {
			t.Errorf("no section %q", id)
		}
	}
	cond := doc.byID("conditions").allText()
	for _, want := range []string{"jitter-fix", "1-4", "20s each", "test", "judder"} {
		if !strings.Contains(cond, want) {
			t.Errorf("conditions lack %q: %s", want, cond)
		}
	}
	if got := len(doc.byID("findings").all("li")); got != len(r.Findings) {
		t.Errorf("%d findings shown, %d found", got, len(r.Findings))
	}
	if !strings.Contains(doc.byID("diagnosis").allText(), r.Headline()) {
		t.Error("the headline is missing")
	}
	if rows := doc.byID("changes").all("tr"); len(rows) != len(r.Changes)+1 {
		t.Errorf("%d change rows, want %d and a header", len(rows), len(r.Changes))
	}
	if rows := doc.byID("combination").all("tr"); len(rows) != len(diagnose.Metrics)+1 {
		t.Errorf("report card rows %d", len(rows))
	}
	dots := doc.byID("seeds").all("svg")
	if len(dots) != 2 {
		t.Fatalf("%d dot plots, want the primary metric and the tie-break", len(dots))
	}
	// One dot per seed per configuration: reference, perfect link, every change, the recommendation.
	arms := 2 + len(r.Changes)
	if len(r.Recommended) > 0 {
		arms++
	}
	if got := len(dots[0].all("circle")); got != arms*len(r.Conditions.Seeds) {
		t.Errorf("%d dots, want %d", got, arms*len(r.Conditions.Seeds))
	}
	lines := doc.byID("timelines").all("svg")
	if len(lines) != 4 {
		t.Fatalf("%d timelines, want 4", len(lines))
	}
	series := 1 // the reference, and the recommended when there is one
	if len(r.Recommended) > 0 {
		series++
	}
	for i, svg := range lines {
		ps := svg.all("polyline")
		if len(ps) != series {
			t.Errorf("timeline %d: %d series, want %d (reference, recommended %v)", i, len(ps), series, r.Recommended)
			continue
		}
		if n := len(strings.Fields(ps[0].attrs["points"])); n != len(r.RefSeries.TS) {
			t.Errorf("timeline %d: %d points, %d samples", i, n, len(r.RefSeries.TS))
		}
	}
	dashed := func(svg *element) int {
		n := 0
		for _, l := range svg.all("line") {
			if l.attrs["stroke-dasharray"] != "" {
				n++
			}
		}
		return n
	}
	if dashed(lines[0]) != 2 || dashed(lines[2]) != 1 {
		t.Errorf("band lines %d (want 2), snap lines %d (want 1)", dashed(lines[0]), dashed(lines[2]))
	}
}

// The page stands alone: no scripts, frames, images, style sheets or any
// URL to fetch.
func TestReportIsSelfContained(t *testing.T) {
	page := render(t, diagnosis(t))
	doc := parse(t, page)
	for _, tag := range []string{"script", "link", "img", "iframe", "object", "embed", "image", "use"} {
		if n := len(doc.all(tag)); n > 0 {
			t.Errorf("%d <%s> elements", n, tag)
		}
	}
	var walk func(*element)
	walk = func(e *element) {
		for k, v := range e.attrs {
			if k == "src" || k == "href" || strings.Contains(v, "url(") || strings.Contains(v, "//") {
				t.Errorf("<%s %s=%q>", e.name, k, v)
			}
		}
		for _, c := range e.children {
			walk(c)
		}
	}
	walk(doc)
	for _, s := range []string{"http:", "https:", "@import", "url("} {
		if bytes.Contains(page, []byte(s)) {
			t.Errorf("the page contains %q", s)
		}
	}
}

func TestSameDiagnosisSameBytes(t *testing.T) {
	a, b := render(t, diagnosis(t)), render(t, diagnosis(t))
	if !bytes.Equal(a, b) {
		t.Fatal("the same seeds gave different pages")
	}
}

// TestNothingRecommendedPageSaysWhy: when nothing is recommended the page
// gives the same reason as the text (on mobile-3.75g with
// client.predict=consume, client.smoothing=predicted and
// server.inputs=buffer: the engine fixes already in place, no further
// change meets the bar),
// and it shows the input the diagnosis was found on, as the text does.
func TestNothingRecommendedPageSaysWhy(t *testing.T) {
	r := builtin(t, "mobile-3.75g", "judder_mps", "client.predict=consume", "client.smoothing=predicted", "server.inputs=buffer")
	if len(r.Recommended) != 0 {
		t.Fatalf("recommended %v; this test needs a diagnosis that recommends nothing", r.Recommended)
	}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	page := parse(t, b.Bytes())
	all := strings.Join(strings.Fields(page.allText()), " ")
	if why := r.NoRecommendation(); !strings.Contains(all, why) {
		t.Errorf("the page does not give the reason %q:\n%s", why, all)
	}
	if in := strings.Join(strings.Fields("ensemble "+r.EnsembleLine()), " "); !strings.Contains(all, in) {
		t.Errorf("the page does not show the condition %q:\n%s", in, all)
	}
}

// TestDilationWithoutBufferMarkedOnThePage: the page marks the changes
// the text marks as another under a different name, with the reason, and
// those that improve a figure but fall short of the bar (§, on jitter-fix
// client.alpha=0.075: judder -0.242 m/s, rubber bands +5.6 /min), with
// what keeps each and the legend that says what the mark means. The page
// showed the § changes unmarked among the others.
func TestDilationWithoutBufferMarkedOnThePage(t *testing.T) {
	r := diagnosis(t)
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(strings.Fields(parse(t, b.Bytes()).allText()), " ")
	marked := 0
	for _, c := range r.Changes {
		if c.SameAs != "" {
			marked++
			if !strings.Contains(all, c.Set+" †") || !strings.Contains(all, "† "+c.Set+": "+c.SameAs) {
				t.Errorf("the page does not mark %s (%s):\n%s", c.Set, c.SameAs, all)
			}
		}
	}
	if marked == 0 {
		t.Fatal("jitter-fix (latest-wins inputs) marks no change; this test needs dilation marked")
	}
	short := 0
	for _, c := range r.Changes {
		if why := r.ShortOfTheBar(c); why != "" {
			short++
			if !strings.Contains(all, c.Set+" §") || !strings.Contains(all, strings.Join(strings.Fields("§ "+c.Set+" does not meet the bar: "+why), " ")) {
				t.Errorf("the page does not mark %s short of the bar (%s):\n%s", c.Set, why, all)
			}
		}
	}
	if short == 0 {
		t.Fatal("jitter-fix marks no change short of the bar; this test needs one")
	}
	if legend := strings.Join(strings.Fields(r.RankingLegend()), " "); !strings.Contains(strings.ToLower(all), strings.ToLower(legend)) {
		t.Errorf("the page does not give the ranking's legend %q", legend)
	}
}

// The page states the combination's steps as the text does: the last one
// names its best change, and its cost when that change improves the metric
// or where in the ensemble it fails (diagnose/testdata/lossy-uplink.toml by
// progress deficit: after the queue, the changes that meet the bar on the
// search's cell fail in other cells). The page said "no further change
// improves significantly" alone.
func TestCombinationStepsAsTheText(t *testing.T) {
	r := builtin(t, "../diagnose/testdata/lossy-uplink.toml", "progress_deficit_mps")
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(strings.Fields(parse(t, b.Bytes()).allText()), " ")
	for _, s := range r.Steps {
		if line := strings.Join(strings.Fields(r.StepLine(s)), " "); !strings.Contains(all, line) {
			t.Errorf("the page does not say the step %q", line)
		}
	}
	step := r.Steps[len(r.Steps)-1]
	last := r.StepLine(step)
	// Where it fails: the first change passed over (what it adds to the
	// combination before the step), with the cells it holds in.
	failsAt := false
	if len(step.NotRobust) > 0 {
		sets := step.NotRobust[0].Sets
		added := sets[min(len(step.On), len(sets)-1):]
		failsAt = strings.Contains(last, "so not taken: "+strings.Join(added, " + ")+", which holds at ")
	}
	if !strings.Contains(last, "without a cost (best ") && !failsAt {
		t.Errorf("the last step %q does not name its best change's cost or where it fails", last)
	}
}

// builtin is lab diagnose --scenario name --metric metric (name a built-in
// scenario or a TOML file).
// builtin diagnoses a scenario as lab diagnose does by default (20 seeds ×
// 2 min over the whole ensemble), once per test binary for the same
// arguments: the tests only read the result.
func builtin(t *testing.T, name, metric string, sets ...string) *diagnose.Result {
	t.Helper()
	return diagnosed(t, name, metric, 20, 2*time.Minute, sets...)
}

// diagnosed is builtin with --seeds 1-seeds and --duration dur.
func diagnosed(t *testing.T, name, metric string, seeds int, dur time.Duration, sets ...string) *diagnose.Result {
	t.Helper()
	testtool.NotUnderRace(t, fmt.Sprintf("a diagnosis: %d seeds × %v × 12 cells per arm", seeds, dur))
	r, err := builtins.Do(fmt.Sprintf("%q %q %d %v %q", name, metric, seeds, dur, sets), func() (*diagnose.Result, error) {
		return diagnoseBuiltin(name, metric, seeds, dur, sets...)
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var builtins testtool.Memo[*diagnose.Result]

func diagnoseBuiltin(name, metric string, seedCount int, dur time.Duration, sets ...string) (*diagnose.Result, error) {
	cfg := lab.DefaultConfig()
	sc, err := lab.LoadScenario(name)
	if err != nil {
		return nil, err
	}
	if err := lab.ApplyScenario(&cfg, sc); err != nil {
		return nil, err
	}
	for _, s := range sets {
		k, v, err := lab.ParseAssignment(s)
		if err != nil {
			return nil, err
		}
		if err := lab.Set(&cfg, k, v); err != nil {
			return nil, err
		}
	}
	cfg.Duration = dur
	var seeds []uint64
	for s := uint64(1); s <= uint64(seedCount); s++ {
		seeds = append(seeds, s)
	}
	return diagnose.Run(diagnose.Options{Base: cfg, Scenario: sc, Name: name, Overrides: sets, Seeds: seeds, Workers: 2, Version: "test", Metric: metric})
}

// With nothing recommended the timelines show the reference alone, and
// the legend names no "recommended" line (it drew the reference twice, the
// second over the first, under a "recommended" legend).
func TestNothingRecommendedTimelinesShowTheReferenceAlone(t *testing.T) {
	r := builtin(t, "mobile-3.75g", "judder_mps", "client.predict=consume", "client.smoothing=predicted", "server.inputs=buffer")
	if len(r.Recommended) != 0 {
		t.Fatalf("recommended %v; this test needs a diagnosis that recommends nothing", r.Recommended)
	}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	tl := parse(t, b.Bytes()).byID("timelines")
	if got := tl.allText(); strings.Contains(got, "recommended") {
		t.Errorf("the timelines name a recommended line: %s", got)
	}
	if n := strings.Count(b.String(), `stroke="`+bestColour+`"`); n != 0 {
		t.Errorf("%d lines drawn in the recommended colour %s", n, bestColour)
	}
	if n := strings.Count(b.String(), `stroke="`+refColour+`"`); n != len(tl.all("svg")) {
		t.Errorf("%d reference lines in %d timeline charts", n, len(tl.all("svg")))
	}
}

// TestPairsOnThePage: a diagnosis that tried pairs (mobile-4g over 8 seeds
// × 40 s: no single change meets the bar in every cell; 13 pairs) shows
// them on the page as the text states them, and why none is taken when
// none is; one that recommends something
// (testdata/congested-link.toml) the lab ab command that reproduces the
// recommendation, its steps, where its changes hold across the ensemble
// and the recommendation across it.
func TestPairsOnThePage(t *testing.T) {
	r := diagnosed(t, "mobile-4g", "judder_mps", 8, 40*time.Second)
	if len(r.Pairs) == 0 {
		t.Fatalf("%d pairs: not the case this test is about", len(r.Pairs))
	}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(strings.Fields(parse(t, b.Bytes()).byID("combination").allText()), " ")
	for i := range r.Pairs {
		if line := strings.Join(strings.Fields(r.PairLine(i)), " "); !strings.Contains(all, line) {
			t.Errorf("the page does not show pair %d: %q", i+1, line)
		}
	}
	if why := strings.Join(strings.Fields(r.NoRecommendation()), " "); len(r.Recommended) == 0 && !strings.Contains(all, why) {
		t.Errorf("the page does not say why nothing is recommended: %q", why)
	}
	r = congestedDiagnosis(t)
	if r.Reproduce == "" {
		t.Fatalf("%s recommends nothing: not the case this test is about", congested)
	}
	b.Reset()
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	page := parse(t, b.Bytes())
	all = strings.Join(strings.Fields(page.byID("combination").allText()), " ")
	if !strings.Contains(all, r.Reproduce) || !strings.Contains(all, strings.Join(strings.Fields(r.StepLine(r.Steps[0])), " ")) ||
		!strings.Contains(all, r.RecommendedAcross()) || r.RecommendedAcross() == "" {
		t.Errorf("the page does not show the command %q, the first step or %q:\n%s", r.Reproduce, r.RecommendedAcross(), all)
	}
	changes := strings.Join(strings.Fields(page.byID("changes").allText()), " ")
	notes := r.RobustnessNotes()
	if len(notes) < 2 {
		t.Fatalf("%s: %d robustness notes; server.inputs=queue and server.inputs=buffer fail at a cell", congested, len(notes))
	}
	for _, n := range notes {
		if !strings.Contains(changes, strings.Join(strings.Fields(n), " ")) {
			t.Errorf("the page does not say %q", n)
		}
	}
}

// congested is a constructed link on which the diagnosis recommends a
// combination (a pair and changes on top) and passes over single changes
// that fail in the ensemble.
const congested = "testdata/congested-link.toml"

// congestedDiagnosis is congested's diagnosis over 8 seeds × 40 s (a
// tenth of the default's CPU): a combination of three steps recommended
// and changes passed over that fail in the ensemble, as over 20 × 2 min.
func congestedDiagnosis(t *testing.T) *diagnose.Result {
	t.Helper()
	return diagnosed(t, congested, "judder_mps", 8, 40*time.Second)
}

// The page's report card has the text's "%" change column: the text
// read "judder_mps … -0.573 ± 0.049 *  -100 %", the page had no such
// column. Each row's change in percent is the text's, or empty where the
// text gives none (no percentage on a base near zero). It needs a
// diagnosis that recommends something: with nothing recommended every
// difference is zero and no row has a percentage.
func TestReportCardHasThePercentColumn(t *testing.T) {
	r := congestedDiagnosis(t)
	var txt bytes.Buffer
	if err := r.WriteText(&txt); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	lines := strings.Split(txt.String(), "\n")
	for i, l := range lines {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "report" && f[1] == "card" {
			for _, row := range lines[i+1 : i+1+len(diagnose.Metrics)] {
				f := strings.Fields(row)
				want[f[0]] = ""
				if f[len(f)-1] == "%" {
					want[f[0]] = f[len(f)-2] + " %"
				}
			}
		}
	}
	if len(want) != len(diagnose.Metrics) || !slices.ContainsFunc(slices.Collect(maps.Values(want)), func(s string) bool { return s != "" }) {
		t.Fatalf("read %d rows of the text's report card, none with a percentage: %v", len(want), want)
	}
	var card *element
	for _, tb := range parse(t, render(t, r)).all("table") {
		if tb.attrs["class"] == "card" {
			card = tb
		}
	}
	if card == nil {
		t.Fatal("no report card table")
	}
	rows := card.all("tr")
	if th := rows[0].all("th"); len(th) != 5 || strings.TrimSpace(th[4].text) != "%" {
		t.Errorf("the card's header has no %% column: %d cells", len(th))
	}
	for _, tr := range rows[1:] {
		td := tr.all("td")
		if len(td) != 5 {
			t.Errorf("row %v: %d cells, want 5", td[0].text, len(td))
			continue
		}
		if got := strings.TrimSpace(td[4].text); got != want[td[0].text] {
			t.Errorf("%s: the page says %q, the text %q", td[0].text, got, want[td[0].text])
		}
	}
}

// The page states the bar the recommendation was held to, as the text.
func TestReportStatesTheBar(t *testing.T) {
	r := diagnosis(t)
	all := strings.Join(strings.Fields(parse(t, render(t, r)).byID("combination").allText()), " ")
	if bar := strings.Join(strings.Fields(r.Bar()), " "); !strings.Contains(strings.ToLower(all), strings.ToLower(bar)) {
		t.Errorf("the page does not state the bar %q:\n%s", bar, all)
	}
	if floor := strings.Join(strings.Fields(r.FloorLine()), " "); !strings.Contains(strings.ToLower(all), strings.ToLower(floor)) {
		t.Errorf("the page does not state the floor %q:\n%s", floor, all)
	}
}
