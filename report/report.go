package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"jitterlab/batch"
	"jitterlab/detmath"
	"jitterlab/diagnose"
	"jitterlab/internal/axis"
	"jitterlab/stats"
)

// Colours of the two configurations in every chart.
const (
	refColour  = "#1f5fa8"
	bestColour = "#d9730d"
	perfColour = "#6b8e23"
)

type row struct{ Cells []string }

type findingView struct {
	Text, Change string
	Problem      bool
}

type chart struct {
	Title, Caption string
	SVG            template.HTML
}

type page struct {
	Title      string
	Conditions [][2]string
	Headline   string
	Problem    bool
	Link       string
	Findings   []findingView
	Changes    []row
	ChangeHead []string
	Bar        string // the bar every change is held to (diagnose.Result.Bar)
	Floor      string // the practical floor it reads "significantly" by
	PairsHead  string // why and which pairs were tried ("" when none)
	Pairs      []string
	Steps      []string
	Recommend  string
	Reproduce  string // the lab ab command of the recommended comparison
	NoneWhy    string
	Legend     string   // how the changes are ranked and what § marks
	Notes      []string // what the marks say: † another change here, § short of the bar
	Robustness []string // where the changes that meet the bar hold across the ensemble
	AttrHead   string   // what costs the player what ("" without a condition to remove)
	Attr       []string
	Across     string // the recommendation across the ensemble
	Card       []row
	Dots       []chart
	Timelines  []chart
	Seed       uint64
	RefColour  string
	BestColour string // "" when nothing is recommended: no such line
	PerfColour string
}

// Write writes the diagnosis as one self-contained HTML page.
func Write(w io.Writer, r *diagnose.Result) error {
	c := &r.Conditions
	m, tie := r.Metric(), r.TieBreak()
	p := page{Title: "lab diagnose: " + c.Scenario, Headline: r.Headline(), Problem: r.Problem, Link: r.LinkLine(),
		Seed: r.Representative, RefColour: refColour, PerfColour: perfColour}
	if len(r.Recommended) > 0 {
		p.BestColour = bestColour
	}
	over := strings.Join(c.Overrides, " ")
	if over == "" {
		over = "(none)"
	}
	scenario := c.Scenario
	if c.About != "" {
		scenario += ": " + c.About
	}
	p.Conditions = [][2]string{{"scenario", scenario}, {"overrides", over}}
	if len(c.Pinned) > 0 {
		p.Conditions = append(p.Conditions, [2]string{"timeline entries overridden by --set", strings.Join(c.Pinned, ", ") + " (an override pins its key for the whole run)"})
	}
	p.Conditions = append(p.Conditions,
		[2]string{"seeds", fmt.Sprintf("%s (%d, the same for every variant)", diagnose.SeedList(c.Seeds), len(c.Seeds))},
		[2]string{"duration", fmt.Sprintf("%v each", time.Duration(c.DurationS*float64(time.Second)))},
		[2]string{"version", c.Version},
		[2]string{"ensemble", r.EnsembleLine()},
		[2]string{"metric", fmt.Sprintf("%s, %s; %s breaks ties", m.Named(), m.Better(), tie.Name)})
	for i := range r.Findings {
		f := &r.Findings[i]
		p.Findings = append(p.Findings, findingView{Text: f.Text + ".", Change: r.ChangeLine(f), Problem: f.Problem})
	}
	p.ChangeHead = []string{"#", "change", m.Name, tie.Name, "holds in"}
	p.Legend = upperFirst(r.RankingLegend())
	rows, notes := r.ChangesTable()
	for _, cells := range rows {
		p.Changes = append(p.Changes, row{cells})
	}
	p.Notes = notes
	p.Robustness = r.RobustnessNotes()
	if len(r.Attribution) > 0 {
		p.AttrHead = upperFirst(r.AttributionHead()) + "."
		for _, a := range r.Attribution {
			p.Attr = append(p.Attr, r.AttributionLine(a)+".")
		}
	}
	p.Across = r.RecommendedAcross()
	p.Bar = strings.ToUpper(r.Bar()[:1]) + r.Bar()[1:]
	p.Floor = strings.ToUpper(r.FloorLine()[:1]) + r.FloorLine()[1:]
	if len(r.Pairs) > 0 {
		p.PairsHead = r.PairsHead() + "."
		for i := range r.Pairs {
			p.Pairs = append(p.Pairs, r.PairLine(i)+".")
		}
	}
	for _, s := range r.Steps {
		p.Steps = append(p.Steps, r.StepLine(s))
	}
	p.Recommend, p.Reproduce = strings.Join(r.Recommended, " "), r.Reproduce
	if p.Recommend == "" {
		p.Recommend = "(none)"
		p.NoneWhy = "Why: " + r.NoRecommendation() + "."
	}
	for i, mt := range diagnose.Metrics {
		ref, best := r.Reference.Stat(mt).Mean, r.Best.Stat(mt).Mean
		p.Card = append(p.Card, row{[]string{mt.Name, diagnose.FormatInterval(ref, mt.Prec), diagnose.FormatInterval(best, mt.Prec), diagnose.FormatDiff(r.BestVsReference[i], mt.Prec), r.CardPercent(i)}})
	}
	for _, mt := range []diagnose.Metric{m, tie} {
		p.Dots = append(p.Dots, chart{Title: mt.Name + " per seed",
			Caption: "one dot per seed; the bar is the mean with its 95 % interval", SVG: dotPlot(r, mt)})
	}
	p.Timelines = timelines(r)
	return writePage(w, pageTemplate, &p)
}

// writePage executes t on p and writes the page to w only if all of it
// was made.
func writePage(w io.Writer, t *template.Template, p any) error {
	var b bytes.Buffer
	if err := t.Execute(&b, p); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// f1 formats a coordinate with one decimal.
func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

type dotRow struct {
	label  string
	values []float64
	mean   stats.Interval
	colour string
}

// dotPlot draws one row per configuration: every seed's value as a dot,
// the mean and its interval as a bar.
func dotPlot(r *diagnose.Result, m diagnose.Metric) template.HTML {
	stat := func(a *diagnose.Arm) ([]float64, stats.Interval) { s := a.Stat(m); return s.PerSeed, s.Mean }
	var rows []dotRow
	add := func(label, colour string, a *diagnose.Arm) {
		v, iv := stat(a)
		rows = append(rows, dotRow{label, v, iv, colour})
	}
	add("reference", refColour, r.Reference)
	add("perfect link", perfColour, r.PerfectLink)
	for i := range r.Changes {
		add(r.Changes[i].Set, "#777777", r.Changes[i].Arm())
	}
	if len(r.Recommended) > 0 {
		add("recommended", bestColour, r.Best)
	}
	return dots(rows, m.Prec)
}

// dots draws one row per configuration: every seed's value as a dot, the
// mean and its interval as a bar, the axis with prec decimals. Values
// without data (NaN) are left out.
func dots(rows []dotRow, prec int) template.HTML {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, rw := range rows {
		for _, v := range append([]float64{rw.mean.Lo(), rw.mean.Hi()}, rw.values...) {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 0
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-0.5, hi+0.5
	}
	pad := float64((hi - lo) * 0.05)
	lo, hi = lo-pad, hi+pad
	const width, left, right, rowH, top = 900.0, 250.0, 20.0, 22.0, 10.0
	x := func(v float64) float64 { return left + float64((v-lo)/(hi-lo)*(width-left-right)) }
	height := top + float64(rowH*float64(len(rows))) + 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="dots" width="%s" height="%s" viewBox="0 0 %s %s" role="img">`, f1(width), f1(height), f1(width), f1(height))
	for i, rw := range rows {
		y := top + float64(rowH*float64(i)) + rowH/2
		if i%2 == 0 {
			fmt.Fprintf(&b, `<rect x="0" y="%s" width="%s" height="%s" fill="#f3f3f3"/>`, f1(y-rowH/2), f1(width), f1(rowH))
		}
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" font-size="12">%s</text>`, f1(left-8), f1(y+4), template.HTMLEscapeString(rw.label))
		for _, v := range rw.values {
			if math.IsNaN(v) {
				continue
			}
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s" fill-opacity="0.55"/>`, f1(x(v)), f1(y), rw.colour)
		}
		if math.IsNaN(rw.mean.Mean) {
			continue
		}
		if !math.IsInf(rw.mean.Half, 1) {
			fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000" stroke-width="1.5"/>`, f1(x(rw.mean.Lo())), f1(y+7), f1(x(rw.mean.Hi())), f1(y+7))
		}
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#000" stroke-width="2"/>`, f1(x(rw.mean.Mean)), f1(y+3), f1(x(rw.mean.Mean)), f1(y+11))
	}
	axisY := top + float64(rowH*float64(len(rows))) + 4
	fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#444"/>`, f1(left), f1(axisY), f1(width-right), f1(axisY))
	// Ticks at round values, as the timelines' (at least the step of the
	// metric's own decimals).
	step := max(axis.Step((hi-lo)/5), detmath.Pow(10, -float64(prec)))
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#444"/>`, f1(x(v)), f1(axisY), f1(x(v)), f1(axisY+4))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" font-size="11">%s</text>`, f1(x(v)), f1(axisY+16), axis.Label(v, step))
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// timelines draws the representative seed's reference and recommended
// timelines.
func timelines(r *diagnose.Result) []chart {
	if len(r.Recommended) == 0 {
		return timelineCharts([]batch.Series{r.RefSeries}, []string{refColour}, r.Band, r.Snap)
	}
	return timelineCharts([]batch.Series{r.RefSeries, r.BestSeries}, []string{refColour, bestColour}, r.Band, r.Snap)
}

// timelineCharts draws series over time, series[i] in colours[i]: tick
// offset with the dead band, send interval, visible error with the snap
// line, visible speed.
func timelineCharts(series []batch.Series, colours []string, band int, snap float64) []chart {
	lines := func(get func(*batch.Series) []float64) []line {
		var ls []line
		for i := range series {
			ls = append(ls, line{series[i].TS, get(&series[i]), colours[i]})
		}
		return ls
	}
	b := float64(band)
	return []chart{
		{Title: "tick offset (ticks)", Caption: fmt.Sprintf("dashed: the dead band ±%d", band),
			SVG: multiLineChart(lines(func(s *batch.Series) []float64 { return s.TickOffset }), []float64{-b, b})},
		{Title: "send interval (s)", SVG: multiLineChart(lines(func(s *batch.Series) []float64 { return s.SendIntervalS }), nil)},
		{Title: "visible error (m)", Caption: fmt.Sprintf("dashed: the snap line %g m", snap),
			SVG: multiLineChart(lines(func(s *batch.Series) []float64 { return s.VisibleErrorM }), []float64{snap})},
		{Title: "visible speed (m/s)", SVG: multiLineChart(lines(func(s *batch.Series) []float64 { return s.VisibleSpeedMPS }), nil)},
	}
}

// line is one series over time and its colour.
type line struct {
	ts, ys []float64
	colour string
}

// multiLineChart draws series over time, the first of several as a wide
// pale band under the others, with dashed horizontal lines at lines.
func multiLineChart(series []line, lines []float64) template.HTML {
	const width, height, left, right, top, bottom = 900.0, 170.0, 60.0, 15.0, 10.0, 25.0
	lo, hi := math.Inf(1), math.Inf(-1)
	tmax := 0.0
	ys := [][]float64{lines}
	for _, s := range series {
		ys = append(ys, s.ys)
		for _, v := range s.ts {
			tmax = max(tmax, v)
		}
	}
	for _, y := range ys {
		for _, v := range y {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	if hi-lo < 1e-9 {
		lo, hi = lo-1, hi+1
	}
	pad := float64((hi - lo) * 0.08)
	lo, hi = lo-pad, hi+pad
	if tmax <= 0 {
		tmax = 1
	}
	x := func(t float64) float64 { return left + float64(t/tmax*(width-left-right)) }
	y := func(v float64) float64 { return top + float64((hi-v)/(hi-lo)*(height-top-bottom)) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="timeline" width="%s" height="%s" viewBox="0 0 %s %s" role="img">`, f1(width), f1(height), f1(width), f1(height))
	fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="#fafafa" stroke="#ccc"/>`, f1(left), f1(top), f1(width-left-right), f1(height-top-bottom))
	step := axis.Step((hi - lo) / 4)
	for v := math.Ceil(lo/step) * step; v <= hi; v += step {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e4e4e4"/>`, f1(left), f1(y(v)), f1(width-right), f1(y(v)))
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="end" font-size="11">%s</text>`, f1(left-6), f1(y(v)+4), axis.Label(v, step))
	}
	for k := 0; k <= 4; k++ {
		tt := tmax * float64(k) / 4
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" font-size="11">%s s</text>`, f1(x(tt)), f1(height-8), strconv.FormatFloat(tt, 'f', 0, 64))
	}
	for _, v := range lines {
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#c00" stroke-dasharray="5,4"/>`, f1(left), f1(y(v)), f1(width-right), f1(y(v)))
	}
	for i, s := range series {
		if len(s.ts) == 0 {
			continue
		}
		// The first series (the reference, or arm A) under the others as a
		// wide pale band: where a line drawn after it coincides, it lies
		// inside the band and both show.
		style := `stroke-width="1.2"`
		if i == 0 && len(series) > 1 {
			style = `stroke-width="4" stroke-opacity="0.35"`
		}
		b.WriteString(`<polyline fill="none" ` + style + ` stroke="` + s.colour + `" points="`)
		first := true
		for i := range s.ts {
			if math.IsNaN(s.ys[i]) {
				continue
			}
			if !first {
				b.WriteByte(' ')
			}
			first = false
			b.WriteString(f1(x(s.ts[i])) + "," + f1(y(s.ys[i])))
		}
		b.WriteString(`"/>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// pageFrame is the page both reports fill in: the head, the conditions,
// the per-seed dot plots and the timelines. A report defines "style" (its
// own CSS rules), "sections" (what comes between the conditions and the
// dot plots) and "legend" (the timelines' legend).
var pageFrame = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<title>{{.Title}}</title>
<style>
body { font-family: sans-serif; max-width: 960px; margin: 1.5em auto; color: #222; line-height: 1.4; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
{{template "style" .}}.legend span { display: inline-block; width: 1.2em; height: 0.2em; margin: 0 0.3em 0.25em 1em; }
.legend span.band { height: 0.6em; opacity: 0.35; margin-bottom: 0.05em; }
figure { margin: 1em 0; } figcaption { font-size: 0.85em; color: #555; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<section id="conditions">
<h2>Conditions</h2>
<table class="conditions">
{{range .Conditions}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table>
</section>
{{template "sections" .}}<section id="seeds">
<h2>Per seed</h2>
{{range .Dots}}<figure><figcaption>{{.Title}}: {{.Caption}}</figcaption>
{{.SVG}}
</figure>
{{end}}</section>
<section id="timelines">
<h2>Timelines of seed {{.Seed}}</h2>
{{template "legend" .}}{{range .Timelines}}<figure><figcaption>{{.Title}}{{if .Caption}}: {{.Caption}}{{end}}</figcaption>
{{.SVG}}
</figure>
{{end}}</section>
</body>
</html>
`))

var pageTemplate = template.Must(template.Must(pageFrame.Clone()).Parse(`{{define "style"}}table { border-collapse: collapse; font-size: 0.9em; }
td, th { padding: 0.2em 0.7em; text-align: right; border-bottom: 1px solid #eee; }
td:first-child, th:first-child { text-align: left; }
table.conditions td, table.changes td:nth-child(2), table.changes th:nth-child(2) { text-align: left; }
.headline { font-size: 1.05em; padding: 0.6em 0.8em; background: #fff4e5; border-left: 4px solid #d9730d; }
.headline.ok { background: #eef7e8; border-left-color: #6b8e23; }
.change { color: #555; font-size: 0.9em; }
.problem { font-weight: bold; }
{{end}}{{define "sections"}}<section id="diagnosis">
<h2>Diagnosis</h2>
<p class="headline{{if not .Problem}} ok{{end}}">{{.Headline}}</p>
<p>{{.Link}}</p>
</section>
{{if .AttrHead}}<section id="attribution">
<h2>What costs the player what</h2>
<p>{{.AttrHead}}</p>
<ul>{{range .Attr}}<li>{{.}}</li>{{end}}</ul>
</section>
{{end}}<section id="findings">
<h2>Findings (ranked by what each costs)</h2>
{{if .Findings}}<ol>
{{range .Findings}}<li><span{{if .Problem}} class="problem"{{end}}>{{.Text}}</span>{{if .Change}}<br/><span class="change">{{.Change}}</span>{{end}}</li>
{{end}}</ol>{{else}}<p>None: no rule's mechanism is at work here.</p>{{end}}
</section>
<section id="changes">
<h2>Changes, one at a time on the reference</h2>
<p>Paired differences (change − reference) over the seeds with 95 % intervals; * the interval excludes 0.</p>
<p>{{.Legend}}</p>
<table class="changes">
<tr>{{range .ChangeHead}}<th>{{.}}</th>{{end}}</tr>
{{range .Changes}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{range .Notes}}<p class="change">{{.}}</p>
{{end}}{{range .Robustness}}<p class="change">{{.}}</p>
{{end}}</section>
<section id="combination">
<h2>Combination and recommendation</h2>
<p>{{.Bar}}.</p>
<p>{{.Floor}}.</p>
{{if .PairsHead}}<p>{{.PairsHead}}</p>
<ol class="pairs">{{range .Pairs}}<li>{{.}}</li>{{end}}</ol>
{{end}}<ol>{{range .Steps}}<li>{{.}}</li>{{end}}</ol>
<p>Recommended: <strong>{{.Recommend}}</strong></p>
{{if .Across}}<p>{{.Across}}</p>
{{end}}{{if .Reproduce}}<p>Reproduce with: <code>{{.Reproduce}}</code></p>
{{end}}{{if .NoneWhy}}<p>{{.NoneWhy}}</p>
{{end}}<table class="card">
<tr><th>report card</th><th>reference</th><th>recommended</th><th>difference</th><th>%</th></tr>
{{range .Card}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
</section>
{{end}}{{define "legend"}}<p class="legend">{{if .BestColour}}<span class="band" style="background: {{.RefColour}}"></span>reference (the pale band)<span style="background: {{.BestColour}}"></span>recommended (the line on it){{else}}<span style="background: {{.RefColour}}"></span>reference{{end}}</p>
{{end}}`))

// upperFirst is s with its first letter upper-case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
