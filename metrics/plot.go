package metrics

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"jitterlab/internal/axis"
)

// Panel is one strip of a plot: a series read from each sample, reference
// lines, and a fixed range (Min == Max: from the data).
type Panel struct {
	Title    string
	Value    func(*Sample) float64
	Refs     []float64
	Min, Max float64
	Color    color.RGBA
	// Series, when set, are the panel's lines instead of Value and Color:
	// one a source (a proxy's clients), each named after the title in its
	// colour.
	Series []Series
}

// Series is one line of a panel: its name, colour, and value at sample
// i (NaN: no data).
type Series struct {
	Label string
	Color color.RGBA
	Value func(i int) float64
}

// lines is the panel's series: Series, or the one of Value.
func (p *Panel) lines(samples []Sample) []Series {
	if len(p.Series) > 0 {
		return p.Series
	}
	return []Series{{Color: p.Color, Value: func(i int) float64 { return p.Value(&samples[i]) }}}
}

// StandardPanels are the lab's four views: tick offset with the ±band,
// send interval with its two levels, visible error with the snap line, RTT.
func StandardPanels(band int, fast, slow, snap float64) []Panel {
	return []Panel{
		{Title: "tick offset (ticks)", Value: func(s *Sample) float64 { return float64(s.TickOffset) }, Refs: []float64{float64(band), float64(-band)}, Color: color.RGBA{0, 150, 200, 255}},
		{Title: "send interval (s)", Value: func(s *Sample) float64 { return s.SendIntervalS }, Refs: []float64{fast, slow}, Color: color.RGBA{200, 140, 0, 255}},
		{Title: "visible - predicted error (m)", Value: func(s *Sample) float64 { return s.VisibleErrorM }, Refs: []float64{snap}, Color: color.RGBA{190, 0, 160, 255}},
		{Title: "rtt (ms)", Value: func(s *Sample) float64 { return s.RTTMs }, Color: color.RGBA{0, 140, 60, 255}},
	}
}

const (
	panelH     = 170
	marginL    = 70
	marginR    = 20
	marginTop  = 22
	marginBot  = 8
	footerH    = 30
	labelColor = 60
)

// WritePNG draws the panels for samples (oldest first) as a PNG of the
// given width, with the time axis under the last panel and title at the
// top. Each pixel column is the min–max span of its samples, so spikes
// survive downsampling. Same samples, same bytes.
// PlotColumns is the number of pixel columns a chart of [WritePNG] width
// pixels wide draws its data in.
func PlotColumns(width int) int { return width - marginL - marginR }

func WritePNG(w io.Writer, samples []Sample, panels []Panel, width int, title string) error {
	if len(samples) == 0 {
		return fmt.Errorf("plot: no samples")
	}
	if width < 200 || width > 10000 {
		return fmt.Errorf("plot: width %d, allowed 200..10000", width)
	}
	height := marginTop + len(panels)*panelH + footerH
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	fill(img, img.Bounds(), color.RGBA{255, 255, 255, 255})
	text(img, 8, 6, title, color.RGBA{0, 0, 0, 255})
	plotW := width - marginL - marginR
	for i, p := range panels {
		top := marginTop + i*panelH
		drawPanel(img, samples, p, image.Rect(marginL, top+18, marginL+plotW, top+panelH-marginBot))
		text(img, marginL, top+2, p.Title, color.RGBA{0, 0, 0, 255})
		legend(img, marginL+textWidth(p.Title)+2*charW, top+2, width-marginR, p.Series)
	}
	// Time axis: ticks on a 1-2-5 step, at least timeGap pixels apart.
	gray := color.RGBA{labelColor, labelColor, labelColor, 255}
	y := marginTop + len(panels)*panelH + 4
	t0, t1 := samples[0].TS, samples[len(samples)-1].TS
	if t1 <= t0 {
		t1 = t0 + 1
	}
	step, ticks := Ticks(t0, t1, plotW, timeGap)
	for _, v := range ticks {
		x := marginL + int(math.Round(float64((v-t0)/(t1-t0))*float64(plotW-1)))
		label := axis.Label(v, step) + " s"
		img.SetRGBA(x, y-4, gray)
		img.SetRGBA(x, y-3, gray)
		text(img, min(max(x-textWidth(label)/2, 0), width-textWidth(label)), y, label, gray)
	}
	return png.Encode(w, img)
}

// Ticks are the multiples of a 1, 2 or 5 × 10^k step within [lo, hi],
// the step chosen so that ticks drawn over px pixels are at least gap
// pixels apart.
func Ticks(lo, hi float64, px, gap int) (step float64, ticks []float64) {
	if !(hi > lo) || px <= 0 {
		return 1, nil
	}
	step = axis.Step(float64((hi - lo) * float64(gap) / float64(px)))
	for k := math.Ceil(lo / step); k*step <= hi+float64(step*1e-9); k++ {
		ticks = append(ticks, k*step)
	}
	return step, ticks
}

// The gaps between ticks, in pixels: a label's height and more on the
// value axis, a long time label's width on the time axis.
const (
	valueGap = 28
	timeGap  = 110
)

// legend names each labelled series in its colour, from x to at most
// xMax.
func legend(img *image.RGBA, x, y, xMax int, series []Series) {
	for _, s := range series {
		if s.Label == "" {
			continue
		}
		w := textWidth(s.Label) + 3*charW
		if x+w > xMax {
			return
		}
		fill(img, image.Rect(x, y+4, x+6, y+10), s.Color)
		text(img, x+charW+2, y, s.Label, s.Color)
		x += w
	}
}

func drawPanel(img *image.RGBA, samples []Sample, p Panel, r image.Rectangle) {
	gray := color.RGBA{labelColor, labelColor, labelColor, 255}
	lines := p.lines(samples)
	fill(img, r, color.RGBA{246, 246, 246, 255})
	lo, hi := p.Min, p.Max
	if !(lo < hi) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, l := range lines {
			for i := range samples {
				if v := l.Value(i); !math.IsNaN(v) { // NaN: no data
					lo, hi = min(lo, v), max(hi, v)
				}
			}
		}
		for _, ref := range p.Refs {
			lo, hi = min(lo, ref), max(hi, ref)
		}
		if math.IsInf(lo, 1) {
			lo, hi = 0, 1
		}
		if hi-lo < 1e-12 {
			lo, hi = lo-1, hi+1
		}
		pad := float64((hi - lo) * 0.08)
		if lo >= 0 {
			lo = max(lo-pad, 0)
		} else {
			lo -= pad
		}
		hi += pad
	}
	yOf := func(v float64) int {
		f := (hi - v) / (hi - lo)
		return r.Min.Y + int(math.Round(f*float64(r.Dy()-1)))
	}
	labels := panelLabels(p, lo, hi, r, yOf)
	for _, l := range labels { // the ticks' grid under the reference lines
		if l.tick {
			for x := r.Min.X; x < r.Max.X; x++ {
				img.SetRGBA(x, l.y, color.RGBA{228, 228, 228, 255})
			}
		}
	}
	for _, ref := range p.Refs {
		y := yOf(ref)
		for x := r.Min.X; x < r.Max.X; x += 6 {
			for d := range 3 {
				img.Set(x+d, y, color.RGBA{150, 150, 150, 255})
			}
		}
	}
	for _, l := range labels {
		text(img, l.box.Min.X, l.box.Min.Y, l.text, gray)
	}
	for _, l := range lines {
		drawLine(img, len(samples), l, r, yOf)
	}
}

// label is one value on a panel's axis: its text, its box, and the
// height of the value it names.
type label struct {
	text string
	box  image.Rectangle
	y    int
	tick bool // a 1-2-5 tick, not a reference line
}

// panelLabels are the labels of a panel's value axis over lo..hi drawn in
// r: the reference lines' first, then the ticks on a 1-2-5 step, each left
// out where it would overlap one already placed or leave the panel.
func panelLabels(p Panel, lo, hi float64, r image.Rectangle, yOf func(float64) int) []label {
	var out []label
	place := func(text string, y int, tick bool) {
		w := textWidth(text)
		box := image.Rect(r.Min.X-w-4, y-textH/2, r.Min.X-4, y-textH/2+textH)
		if box.Min.Y < r.Min.Y-textH/2 || box.Max.Y > r.Max.Y+textH/2 {
			return
		}
		for _, o := range out {
			if o.box.Inset(-1).Overlaps(box) {
				return
			}
		}
		out = append(out, label{text: text, box: box, y: y, tick: tick})
	}
	for _, ref := range p.Refs {
		place(trimFloat(ref), yOf(ref), false)
	}
	step, ticks := Ticks(lo, hi, r.Dy(), valueGap)
	for _, v := range ticks {
		place(axis.Label(v, step), yOf(v), true)
	}
	return out
}

// drawLine draws a series of n samples: each pixel column the span of its
// samples, joined to the previous column.
func drawLine(img *image.RGBA, n int, l Series, r image.Rectangle, yOf func(float64) int) {
	cols := r.Dx()
	prev := math.NaN()
	for c := range cols {
		a, b := c*n/cols, (c+1)*n/cols
		if b <= a {
			b = a + 1
		}
		if a >= n {
			break
		}
		vlo, vhi := math.Inf(1), math.Inf(-1)
		last := math.NaN()
		for i := a; i < min(b, n); i++ {
			if v := l.Value(i); !math.IsNaN(v) { // NaN: no data
				vlo, vhi, last = min(vlo, v), max(vhi, v), v
			}
		}
		if math.IsNaN(last) {
			continue // no data in this column; the line joins across it
		}
		if !math.IsNaN(prev) { // join to the previous column: a line, not dots
			vlo, vhi = min(vlo, prev), max(vhi, prev)
		}
		prev = last
		for y := yOf(vhi); y <= yOf(vlo); y++ {
			img.Set(r.Min.X+c, y, l.Color)
		}
	}
}

func trimFloat(f float64) string {
	s := fmt.Sprintf("%.3f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

// face is the plots' font: X11's 7×13 fixed font, mixed case. It is a
// bitmap, so the same text gives the same pixels on every CPU.
var face = basicfont.Face7x13

// charW and textH are a character's advance and a line's height, pixels.
const (
	charW = 7
	textH = 13
)

// text draws s with its top left corner at x, y.
func text(img *image.RGBA, x, y int, s string, c color.RGBA) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y+face.Ascent)}
	d.DrawString(s)
}

// textWidth is how many pixels s takes.
func textWidth(s string) int { return utf8.RuneCountInString(s) * charW }
