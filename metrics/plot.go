package metrics

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
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
	plotScale  = 2 // font pixels per glyph pixel
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
		text(img, marginL, top+4, p.Title, color.RGBA{0, 0, 0, 255})
		legend(img, marginL+(len(p.Title)+2)*4*plotScale, top+4, width-marginR, p.Series)
	}
	// Time axis.
	gray := color.RGBA{labelColor, labelColor, labelColor, 255}
	y := marginTop + len(panels)*panelH + 4
	t0, t1 := samples[0].TS, samples[len(samples)-1].TS
	for k := 0; k <= 4; k++ {
		x := marginL + k*(plotW-1)/4
		label := fmt.Sprintf("%.1fs", t0+float64((t1-t0)*float64(k)/4))
		text(img, min(max(x-len(label)*4*plotScale/2, 0), width-len(label)*4*plotScale), y, label, gray)
	}
	return png.Encode(w, img)
}

// legend names each labelled series in its colour, from x to at most
// xMax.
func legend(img *image.RGBA, x, y, xMax int, series []Series) {
	for _, s := range series {
		if s.Label == "" {
			continue
		}
		w := (len(s.Label) + 2) * 4 * plotScale
		if x+w > xMax {
			return
		}
		fill(img, image.Rect(x, y+2, x+6, y+8), s.Color)
		text(img, x+4*plotScale, y, s.Label, s.Color)
		x += w
	}
}

func drawPanel(img *image.RGBA, samples []Sample, p Panel, r image.Rectangle) {
	gray := color.RGBA{labelColor, labelColor, labelColor, 255}
	lines := p.lines(samples)
	fill(img, r, color.RGBA{246, 246, 246, 255})
	lo, hi := p.Min, p.Max
	dataLo, dataHi := lo, hi // the labelled range: measured, not padded
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
		dataLo, dataHi = lo, hi
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
	for _, ref := range p.Refs {
		y := yOf(ref)
		for x := r.Min.X; x < r.Max.X; x += 6 {
			for d := range 3 {
				img.Set(x+d, y, color.RGBA{150, 150, 150, 255})
			}
		}
		label := trimFloat(ref)
		text(img, r.Min.X-len(label)*4*plotScale-4, y-5, label, gray)
	}
	// The measured range at its own height, unless a reference label
	// already stands there.
	for _, edge := range []struct {
		v float64
		y int
	}{{dataHi, max(yOf(dataHi)-5, r.Min.Y)}, {dataLo, min(yOf(dataLo)-5, r.Max.Y-10)}} {
		clear := true
		for _, ref := range p.Refs {
			if d := yOf(ref) - 5 - edge.y; d > -14 && d < 14 {
				clear = false
			}
		}
		if clear {
			text(img, r.Min.X-len(trimFloat(edge.v))*4*plotScale-4, edge.y, trimFloat(edge.v), gray)
		}
	}
	for _, l := range lines {
		drawLine(img, len(samples), l, r, yOf)
	}
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

// text draws s with the built-in font; unknown characters are blanks.
func text(img *image.RGBA, x, y int, s string, c color.RGBA) {
	for _, ch := range strings.ToLower(s) {
		g := glyphs[ch]
		for row := range 5 {
			for col := range 3 {
				if g[row]&(4>>col) != 0 {
					for dy := range plotScale {
						for dx := range plotScale {
							img.SetRGBA(x+col*plotScale+dx, y+row*plotScale+dy, c)
						}
					}
				}
			}
		}
		x += 4 * plotScale
	}
}
