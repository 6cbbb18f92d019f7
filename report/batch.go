package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"jitterlab/batch"
)

// palette colours a batch's arms: A (or the first combination) as the
// diagnosis's reference, B as its recommendation, then distinct hues.
var palette = []string{refColour, bestColour, perfColour, "#8e44ad", "#c0392b", "#16a085", "#7f6000", "#e84393"}

type legendItem struct{ Label, Colour string }

type batchPage struct {
	Title      string
	Conditions [][2]string
	Legend     []string
	Head       [][]string
	Rows       [][]string
	Dots       []chart
	Timelines  []chart
	Seed       uint64
	Arms       []legendItem
	More       int // arms without timelines
}

// WriteBatch writes an A/B or a sweep (lab ab, lab sweep, lab merge) as one
// self-contained HTML page: the conditions, the table, one dot plot per
// metric (a row per arm, a dot per seed, the mean with its interval) and the
// timelines of the representative seed tl.Seed for the first arms.
func WriteBatch(w io.Writer, r *batch.Result, tl *batch.Timelines) error {
	p := batchPage{Title: fmt.Sprintf("lab %s: %s", r.Def.Kind, r.Def.Scenario), Conditions: r.Conditions(), Legend: strings.Split(r.Legend(), "\n"), Seed: tl.Seed}
	if r.Def.Kind == "ab" {
		p.Conditions = append(p.Conditions, [2]string{"A", r.ArmLine(0)}, [2]string{"B", r.ArmLine(1)})
	}
	p.Head, p.Rows = r.Table()
	arms := len(r.Def.Arms())
	for _, m := range batch.Metrics {
		var rows []dotRow
		for a := range arms {
			rows = append(rows, dotRow{r.ArmLabel(a), r.PerSeed(a, m), r.Mean(a, m), palette[a%len(palette)]})
		}
		p.Dots = append(p.Dots, chart{Title: m.Name, Caption: "one dot per seed; the bar is the mean with its 95 % interval", SVG: dots(rows, m.Prec)})
	}
	for a := range tl.Series {
		p.Arms = append(p.Arms, legendItem{r.ArmLabel(a), palette[a%len(palette)]})
	}
	p.More = arms - len(tl.Series)
	p.Timelines = batchTimelines(tl)
	return writePage(w, batchTemplate, &p)
}

// batchTimelines draws every arm's timelines of the representative seed.
func batchTimelines(tl *batch.Timelines) []chart {
	colours := make([]string, len(tl.Series))
	for a := range colours {
		colours[a] = palette[a%len(palette)]
	}
	return timelineCharts(tl.Series, colours, tl.Band, tl.SnapM)
}

var batchTemplate = template.Must(template.Must(pageFrame.Clone()).Parse(`{{define "style"}}table { border-collapse: collapse; font-size: 0.85em; }
td, th { padding: 0.2em 0.6em; text-align: right; border-bottom: 1px solid #eee; white-space: nowrap; }
td:first-child, th:first-child { text-align: left; }
table.conditions td { text-align: left; white-space: normal; }
.scroll { overflow-x: auto; }
{{end}}{{define "sections"}}<section id="table">
<h2>Results</h2>
{{range .Legend}}<p>{{.}}.</p>
{{end}}
<div class="scroll"><table class="results">
{{range .Head}}<tr>{{range .}}<th>{{.}}</th>{{end}}</tr>
{{end}}{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></div>
</section>
{{end}}{{define "legend"}}<p class="legend">{{range $i, $a := .Arms}}<span{{if and (eq $i 0) (gt (len $.Arms) 1)}} class="band"{{end}} style="background: {{$a.Colour}}"></span>{{$a.Label}}{{if and (eq $i 0) (gt (len $.Arms) 1)}} (the pale band){{end}}{{end}}</p>
{{if .More}}<p>{{.More}} more combinations without timelines (at most 8 are drawn).</p>
{{end}}{{end}}`))
