package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"jitterlab/batch"
	"jitterlab/lab"
)

// batchResult runs a small A/B or sweep on the jitter-fix scenario.
func batchResult(t *testing.T, def batch.Definition) (*batch.Result, *batch.Timelines) {
	t.Helper()
	sc, err := lab.LoadScenario("jitter-fix")
	if err != nil {
		t.Fatal(err)
	}
	def.Version, def.Scenario, def.ScenarioFile, def.Seeds, def.DurationS = "test", "jitter-fix", sc.File, []uint64{1, 2, 3}, 8
	base := lab.DefaultConfig()
	if err := lab.ApplyScenario(&base, sc); err != nil {
		t.Fatal(err)
	}
	def.Link = batch.LinkOf(&base)
	p := &batch.Plan{Def: def, Scenario: sc}
	for _, sets := range def.Arms() {
		cfg := lab.DefaultConfig()
		if err := lab.ApplyScenario(&cfg, sc); err != nil {
			t.Fatal(err)
		}
		cfg.Duration = 8 * time.Second
		for _, s := range sets {
			k, v, _ := lab.ParseAssignment(s)
			if err := lab.Set(&cfg, k, v); err != nil {
				t.Fatal(err)
			}
		}
		p.Configs = append(p.Configs, cfg)
	}
	runs, err := p.Execute(batch.Shard{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	r, err := batch.NewResult(p.Def, runs)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := p.Timelines(r, 2)
	if err != nil {
		t.Fatal(err)
	}
	return r, tl
}

func renderBatch(t *testing.T, r *batch.Result, tl *batch.Timelines) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteBatch(&b, r, tl); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestBatchReportHasEverySection (issue 9 item 4): the A/B and sweep
// reports show the conditions, the table (a row per metric, the paired
// difference for A/B), a dot plot per metric with a dot per arm and seed,
// and the representative seed's four timelines with a line per arm; the
// page stands alone and the same batch gives the same bytes.
func TestBatchReportHasEverySection(t *testing.T) {
	for _, def := range []batch.Definition{
		{Kind: "ab", B: []string{"server.inputs=queue"}},
		{Kind: "sweep", Axes: []batch.Axis{{Key: "link.jitter", Values: []string{"0ms", "20ms"}}, {Key: "client.sender", Values: []string{"frame", "accumulator"}}}},
	} {
		r, tl := batchResult(t, def)
		page := renderBatch(t, r, tl)
		doc := parse(t, page)
		if h := doc.all("h1"); len(h) != 1 || h[0].text != "lab "+def.Kind+": jitter-fix" {
			t.Errorf("%s: h1 %+v", def.Kind, h)
		}
		for _, id := range []string{"conditions", "table", "seeds", "timelines"} {
			if doc.byID(id) == nil {
				t.Fatalf("%s: no section %q", def.Kind, id)
			}
		}
		cond := doc.byID("conditions").allText()
		for _, want := range []string{"jitter-fix", "seeds 1-3", "8s simulated each", "latency 50ms", "test"} {
			if !strings.Contains(cond, want) {
				t.Errorf("%s: conditions lack %q: %s", def.Kind, want, cond)
			}
		}
		arms := len(def.Arms())
		head, rows := r.Table()
		if got := len(doc.byID("table").all("tr")); got != len(head)+len(batch.Metrics) || len(rows) != len(batch.Metrics) {
			t.Errorf("%s: %d table rows, want %d header rows and one per metric", def.Kind, got, len(head))
		}
		if def.Kind == "ab" && !strings.Contains(doc.byID("table").allText(), "B − A") {
			t.Error("the A/B table lacks the paired difference")
		}
		dots := doc.byID("seeds").all("svg")
		if len(dots) != len(batch.Metrics) {
			t.Fatalf("%s: %d dot plots, want one per metric", def.Kind, len(dots))
		}
		if got := len(dots[0].all("circle")); got != arms*3 {
			t.Errorf("%s: %d dots, want %d arms × 3 seeds", def.Kind, got, arms)
		}
		lines := doc.byID("timelines").all("svg")
		if len(lines) != 4 {
			t.Fatalf("%s: %d timelines, want 4", def.Kind, len(lines))
		}
		for i, svg := range lines {
			if n := len(svg.all("polyline")); n != arms {
				t.Errorf("%s: timeline %d has %d lines, want one per arm (%d)", def.Kind, i, n, arms)
			}
		}
		for _, tag := range []string{"script", "link", "img", "iframe", "object", "embed", "image", "use"} {
			if n := len(doc.all(tag)); n > 0 {
				t.Errorf("%s: %d <%s> elements", def.Kind, n, tag)
			}
		}
		for _, s := range []string{"http:", "https:", "@import", "url("} {
			if bytes.Contains(page, []byte(s)) {
				t.Errorf("%s: the page contains %q", def.Kind, s)
			}
		}
		r2, tl2 := batchResult(t, def)
		if !bytes.Equal(page, renderBatch(t, r2, tl2)) {
			t.Errorf("%s: the same batch gave different pages", def.Kind)
		}
	}
}
