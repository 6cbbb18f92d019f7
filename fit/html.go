package fit

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"jitterlab/internal/axis"
)

// Colours of the observed data and of the fitted model in every chart.
const (
	obsColour = "#1f5fa8"
	fitColour = "#d9730d"
)

var page = template.Must(template.New("fit").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>lab fit {{.File}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:12px}
.charts{display:flex;flex-wrap:wrap;gap:1em}
figure{margin:0}figcaption{font-size:13px;color:#555;max-width:520px}
.misfit{color:#b00020;font-weight:bold}.fits{color:#2e7d32}
.key span{display:inline-block;margin-right:1.5em}
</style></head><body>
<h1>lab fit {{.File}}</h1>
<p class="key"><span style="color:{{.Obs}}">■ observed</span><span style="color:{{.Fit}}">■ fitted model</span></p>
{{range .Dirs}}<section id="{{.Name}}"><h2>{{.Name}}: {{.Title}}</h2>
<ul>{{range .Verdicts}}<li class="{{if .Misfit}}misfit{{else}}fits{{end}}">{{if .Misfit}}MISFIT{{else}}fits{{end}}: {{.Text}}</li>{{end}}</ul>
<p>{{.Loss}}</p>
{{if .Suggest}}<p class="misfit">Suggestion: {{.Suggest}}</p>{{end}}
{{if .Periods}}<p>Periods, cut where the loss or the delay's level changes, each fitted on its own:</p><ul>{{range .Periods}}<li>{{.}}</li>{{end}}</ul>{{end}}
<div class="charts">{{range .Charts}}<figure>{{.SVG}}<figcaption>{{.Caption}}</figcaption></figure>{{end}}</div>
</section>{{end}}
<h2>Report</h2><pre>{{.Text}}</pre>
</body></html>
`))

type htmlChart struct {
	SVG     template.HTML
	Caption string
}

type htmlDir struct {
	Name, Title, Suggest string
	Loss                 string // the loss models compared and the one chosen
	Verdicts             []Verdict
	Charts               []htmlChart
	Periods              []string
}

// WriteHTML writes the report as one self-contained HTML page: per
// direction the delay CDF and QQ plot, the burst-length histogram and the
// autocorrelation, observed against fitted, inline SVG without scripts.
func (r *Result) WriteHTML(w io.Writer) error {
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		return err
	}
	data := struct {
		File, Text, Obs, Fit string
		Dirs                 []htmlDir
	}{File: r.File, Text: text.String(), Obs: obsColour, Fit: fitColour}
	for _, d := range r.Dirs {
		c := d.Candidates[d.Best]
		h := htmlDir{Name: d.Name, Verdicts: d.Verdicts,
			Title: fmt.Sprintf("%s, latency %s ms, jitter %s ms, ρ %.2f, loss %.2f%%", c.Dist, ms(c.Latency), ms(c.Jitter), d.Rho, 100*d.LossRate)}
		h.Loss = lossSummary(d)
		for _, v := range d.Verdicts {
			if v.Misfit {
				h.Suggest = TraceSuggestion
			}
		}
		for _, pr := range d.Periods {
			h.Periods = append(h.Periods, fmt.Sprintf("from %v: %s", pr.From.Round(time.Millisecond), strings.Join(strings.Fields(periodText(pr)), " ")))
		}
		h.Charts = append(h.Charts,
			htmlChart{cdfChart(d), "Delay CDF: the observed delays (drift removed) and the fitted " + c.Dist.String() + " model."},
			htmlChart{qqChart(d), "QQ plot: observed delay quantiles against the fitted model's; on the diagonal where the model fits."},
			htmlChart{burstChart(d), "Loss bursts: how many bursts of each length were observed and how many the fitted loss model expects."},
			htmlChart{acfChart(d), "Autocorrelation of the delays' normal scores by lag (bars) and AR(1) with the fitted ρ (line)."})
		data.Dirs = append(data.Dirs, h)
	}
	return page.Execute(w, data)
}

// lossSummary is one sentence on the loss models: the one chosen, its
// parameters, and every model's BIC.
func lossSummary(d *Dir) string {
	if d.Lost == 0 {
		return "Loss: none."
	}
	s := fmt.Sprintf("Loss: %s by BIC, long-run rate %.3f%%, mean burst %.2f packets", d.Model, 100*d.LossRate, d.MeanBurst)
	if d.Model == FourStateLoss {
		s += fmt.Sprintf(" (netem loss %s)", lossModelText(d))
	}
	s += fmt.Sprintf(". BIC: Bernoulli %.1f, Gilbert–Elliott %.1f", d.Bernoulli.BIC, d.GE.BIC)
	if d.Four.Params > 0 {
		s += fmt.Sprintf(", 4-state %.1f", d.Four.BIC)
	}
	return s + "."
}

// plot maps data coordinates to a 500×300 SVG with margins for the axes.
type plot struct {
	b               strings.Builder
	x0, x1, y0, y1  float64 // data ranges
	left, top, w, h float64
}

// newPlot starts a chart. Each axis with ticks is widened to round values
// and labelled at them (niceTicks); xTicks false leaves the x axis to the
// caller (categories). The labels name the units.
func newPlot(x0, x1, y0, y1 float64, xLabel, yLabel string, xTicks bool) *plot {
	var xt, yt ticks
	if xTicks {
		xt = niceTicks(x0, x1)
		x0, x1 = xt.lo, xt.hi
	} else if x1 <= x0 {
		x1 = x0 + 1
	}
	yt = niceTicks(y0, y1)
	y0, y1 = yt.lo, yt.hi
	p := &plot{x0: x0, x1: x1, y0: y0, y1: y1, left: 55, top: 10, w: 430, h: 240}
	fmt.Fprintf(&p.b, `<svg xmlns="http://www.w3.org/2000/svg" width="500" height="300" viewBox="0 0 500 300" font-size="11" font-family="sans-serif">`)
	for i := range yt.n {
		y := yt.at(i)
		fmt.Fprintf(&p.b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#e4e4e4"/>`, f1(p.left), f1(p.left+p.w), f1(p.py(y)), f1(p.py(y)))
		fmt.Fprintf(&p.b, `<text class="ytick" x="%s" y="%s" text-anchor="end">%s</text>`, f1(p.left-4), f1(p.py(y)+4), yt.label(i))
	}
	if xTicks {
		for i := range xt.n {
			x := xt.at(i)
			fmt.Fprintf(&p.b, `<line x1="%s" x2="%s" y1="%s" y2="%s" stroke="#e4e4e4"/>`, f1(p.px(x)), f1(p.px(x)), f1(p.top), f1(p.top+p.h))
			fmt.Fprintf(&p.b, `<text class="xtick" x="%s" y="%s" text-anchor="middle">%s</text>`, f1(p.px(x)), f1(p.top+p.h+14), xt.label(i))
		}
	}
	fmt.Fprintf(&p.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="#999"/>`, f1(p.left), f1(p.top), f1(p.w), f1(p.h))
	fmt.Fprintf(&p.b, `<text class="xlabel" x="%s" y="295" text-anchor="middle">%s</text>`, f1(p.left+float64(p.w/2)), template.HTMLEscapeString(xLabel))
	fmt.Fprintf(&p.b, `<text class="ylabel" x="12" y="%s" text-anchor="middle" transform="rotate(-90 12 %s)">%s</text>`, f1(p.top+float64(p.h/2)), f1(p.top+float64(p.h/2)), template.HTMLEscapeString(yLabel))
	return p
}

// ticks are n round values from lo to hi, step apart: step is 1, 2 or 5
// times a power of ten (10^-exp10 when below 1, which fixes the decimals).
type ticks struct {
	lo, hi, step float64
	n, decimals  int
	k0           int64 // lo = k0·step
}

func (t ticks) at(i int) float64 { return float64(float64(t.k0+int64(i)) * t.step) }

func (t ticks) label(i int) string { return strconv.FormatFloat(t.at(i), 'f', t.decimals, 64) }

// niceTicks covers [lo, hi] with 4 to 8 round ticks: the step is the
// smallest of 1, 2, 5 × 10^k that makes at most 7 intervals, and the range
// is widened to the multiples of it around lo and hi (axis.Step).
func niceTicks(lo, hi float64) ticks {
	if !(hi > lo) {
		hi = lo + 1
	}
	step := axis.Step((hi - lo) / 7)
	k0, k1 := int64(math.Floor(lo/step)), int64(math.Ceil(hi/step))
	return ticks{lo: float64(float64(k0) * step), hi: float64(float64(k1) * step), step: step, n: int(k1-k0) + 1, decimals: axis.Decimals(step), k0: k0}
}

func (p *plot) px(x float64) float64 { return p.left + float64((x-p.x0)/(p.x1-p.x0)*p.w) }
func (p *plot) py(y float64) float64 { return p.top + p.h - float64((y-p.y0)/(p.y1-p.y0)*p.h) }

func (p *plot) line(xs, ys []float64, colour string, dashed bool) {
	var pts strings.Builder
	for i := range xs {
		fmt.Fprintf(&pts, "%s,%s ", f1(p.px(xs[i])), f1(p.py(ys[i])))
	}
	dash := ""
	if dashed {
		dash = ` stroke-dasharray="5 3"`
	}
	fmt.Fprintf(&p.b, `<polyline fill="none" stroke="%s" stroke-width="1.5"%s points="%s"/>`, colour, dash, strings.TrimSpace(pts.String()))
}

// bar draws a bar from 0 (or the nearer edge of the range) to y: up for a
// positive y, down for a negative one.
func (p *plot) bar(x, width, y float64, colour string) {
	base := min(max(0, p.y0), p.y1)
	y = min(max(y, p.y0), p.y1)
	top, bottom := p.py(max(y, base)), p.py(min(y, base))
	fmt.Fprintf(&p.b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`, f1(p.px(x)), f1(top), f1(float64(width/(p.x1-p.x0)*p.w)), f1(bottom-top), colour)
}

func (p *plot) svg() template.HTML {
	p.b.WriteString("</svg>")
	return template.HTML(p.b.String())
}

func f1(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// probes are the probabilities at which the curves are drawn.
func probes() []float64 {
	var ps []float64
	for i := range 199 {
		ps = append(ps, float64(i+1)/200)
	}
	return ps
}

func cdfChart(d *Dir) template.HTML {
	c := d.Candidates[d.Best]
	ps := probes()
	var obs, fit []float64
	for _, p := range ps {
		obs = append(obs, quantileOf(d.delays, p)/1e6)
		fit = append(fit, modelQuantile(c, p)/1e6)
	}
	lo, hi := min(obs[0], fit[0]), max(obs[len(obs)-1], fit[len(fit)-1])
	pct := make([]float64, len(ps))
	for i, p := range ps {
		pct[i] = 100 * p
	}
	pl := newPlot(lo, hi, 0, 100, "one-way delay (ms)", "packets with at most that delay (%)", true)
	pl.line(obs, pct, obsColour, false)
	pl.line(fit, pct, fitColour, true)
	return pl.svg()
}

func qqChart(d *Dir) template.HTML {
	c := d.Candidates[d.Best]
	var obs, fit []float64
	for _, p := range probes() {
		obs = append(obs, quantileOf(d.delays, p)/1e6)
		fit = append(fit, modelQuantile(c, p)/1e6)
	}
	lo, hi := min(obs[0], fit[0]), max(obs[len(obs)-1], fit[len(fit)-1])
	pl := newPlot(lo, hi, lo, hi, "fitted quantile (ms)", "observed quantile (ms)", true)
	pl.line([]float64{lo, hi}, []float64{lo, hi}, fitColour, true)
	pl.line(fit, obs, obsColour, false)
	return pl.svg()
}

func burstChart(d *Dir) template.HTML {
	bins := d.BurstTest.Bins
	top := 1.0
	for _, b := range bins {
		top = max(top, float64(b.Observed), b.Expected)
	}
	pl := newPlot(0, float64(max(len(bins), 1)), 0, top, "burst length (packets; the last bin and longer)", "bursts (count)", false)
	if len(bins) == 0 {
		fmt.Fprintf(&pl.b, `<text x="%s" y="%s" text-anchor="middle">no packet lost</text>`, f1(pl.left+float64(pl.w/2)), f1(pl.top+float64(pl.h/2)))
	}
	for i, b := range bins {
		x := float64(i)
		pl.bar(x+0.1, 0.4, float64(b.Observed), obsColour)
		pl.bar(x+0.5, 0.4, b.Expected, fitColour)
		fmt.Fprintf(&pl.b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`, f1(pl.px(x+0.5)), f1(pl.top+pl.h+14), binName(b))
	}
	return pl.svg()
}

func acfChart(d *Dir) template.HTML {
	n := float64(len(d.ACF))
	lo := 0.0
	for _, a := range d.ACF {
		lo = min(lo, a)
	}
	pl := newPlot(0.5, n+0.5, lo, 1, "lag (delivered packets)", "autocorrelation (coefficient, −1 to 1)", false)
	var xs, ys []float64
	for k, a := range d.ACF {
		x := float64(k + 1)
		pl.bar(x-0.3, 0.6, a, obsColour) // a negative one hangs below 0
		fmt.Fprintf(&pl.b, `<text x="%s" y="%s" text-anchor="middle">%d</text>`, f1(pl.px(x)), f1(pl.top+pl.h+14), k+1)
		xs, ys = append(xs, x), append(ys, powInt(d.Rho, k+1))
	}
	pl.line(xs, ys, fitColour, false)
	return pl.svg()
}
