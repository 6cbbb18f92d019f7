package widget

import (
	"fmt"
	"math"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// RefLine is a horizontal reference drawn as a dotted line with a label:
// the ±2 band of the tick offset, the 0.048/0.052 levels, the snap line.
type RefLine struct {
	Value float64
	Label string
}

// Chart is a line chart drawn with braille dots (2×4 per cell) over a
// window of Window values that spans the whole plot: dot column c of C
// holds the values at window positions [c·Window/C, (c+1)·Window/C) (at
// least one), drawn as a vertical span from their minimum to their
// maximum, so spikes survive downsampling. Values come newest last and end
// at the right edge; fewer than Window values leave the left part empty.
type Chart struct {
	*tview.Box
	Refs   []RefLine
	Min    float64 // fixed range; when Min == Max the range follows the data
	Max    float64
	Color  tcell.Color
	Format string // label format for the range, e.g. "%.3f"
	Values []float64
	// Values2, when set, is a second series (the A/B run) drawn in Color2;
	// a cell where both have dots shows both, in the first's colour.
	Values2 []float64
	Color2  tcell.Color
	Per     int // values per dot column (≥ 1) when Window is 0
	// Window, when > 0, is how many values the full width spans.
	Window int
	// Marks are indexes into Values where a parameter changed: drawn as
	// ticks on the bottom border, the chart's time axis.
	Marks []int
	// Span, when set, labels the time axis: at the left end of the plot
	// on the bottom border (e.g. "−30s"), with "now" at the right end.
	Span string
	// Short is the title where the whole does not fit ("rtt ms").
	Short string

	title, note, shortNote string
}

// NewChart returns an empty chart titled title.
func NewChart(title string) *Chart {
	c := &Chart{Box: tview.NewBox(), Color: tcell.ColorGreen, Format: "%.0f", Per: 1, title: title, Short: title}
	c.SetBorder(true).SetTitle(" " + title + " ").SetTitleAlign(tview.AlignLeft)
	return c
}

// SetNote shows the current value after the title.
func (c *Chart) SetNote(note string) { c.SetNotes(note, note) }

// SetNotes shows note after the title, or short where note does not fit.
func (c *Chart) SetNotes(note, short string) {
	c.note, c.shortNote = note, short
	c.SetTitle(c.titleFor(math.MaxInt))
}

// titleFor is the title for a box w wide: the first that fits of the
// title and the note, the short title and the note, the short title and
// the short note, the short note alone (cut with … if even that is too
// wide): the value is the last thing a narrow chart gives up.
func (c *Chart) titleFor(w int) string {
	if c.note == "" {
		return " " + c.title + " "
	}
	forms := []string{
		" " + c.title + " ─ " + c.note + " ",
		" " + c.Short + " ─ " + c.note + " ",
		" " + c.Short + " ─ " + c.shortNote + " ",
	}
	for _, f := range forms {
		if len([]rune(f)) <= w-2 {
			return f
		}
	}
	return " " + c.shortNote + " "
}

const labelWidth = 7

// Render lays the chart out on a w×h grid of runes (w including the label
// margin). Empty cells are spaces.
func (c *Chart) Render(w, h int) [][]rune {
	grid := make([][]rune, h)
	for i := range grid {
		grid[i] = make([]rune, w)
		for j := range grid[i] {
			grid[i][j] = ' '
		}
	}
	plotW := w - labelWidth
	if plotW < 1 || h < 1 {
		return grid
	}
	lo, hi := c.yRange()
	dotsH := h * 4
	row := func(v float64) int { // dot row, 0 at the top
		r := int(math.Round((hi - v) / (hi - lo) * float64(dotsH-1)))
		return min(max(r, 0), dotsH-1)
	}
	// Reference lines and their labels.
	for _, ref := range c.Refs {
		if ref.Value < lo || ref.Value > hi {
			continue
		}
		cy := row(ref.Value) / 4
		for x := labelWidth; x < w; x++ {
			grid[cy][x] = '┈'
		}
		putLabel(grid[cy], ref.Label)
	}
	// Buckets, newest at the right edge.
	dots := c.dots(c.Values, plotW, h, row)
	for y := range h {
		for x := range plotW {
			if dots[y][x] != 0 {
				grid[y][labelWidth+x] = rune(0x2800 + int(dots[y][x]))
			}
		}
	}
	if len(c.Refs) == 0 && h >= 2 {
		putLabel(grid[0], fmt.Sprintf(c.Format, hi))
		putLabel(grid[h-1], fmt.Sprintf(c.Format, lo))
	}
	if len(c.Refs) > 0 {
		c.labelBeyond(grid, plotW, row)
	}
	return grid
}

// labelBeyond labels the highest value above the highest reference line,
// and the lowest below the lowest, on their rows when no reference's label
// is there: the top of the tick offset past its band is on the axis.
func (c *Chart) labelBeyond(grid [][]rune, plotW int, row func(float64) int) {
	refLo, refHi := math.Inf(1), math.Inf(-1)
	labelled := map[int]bool{}
	for _, ref := range c.Refs {
		refLo, refHi = min(refLo, ref.Value), max(refHi, ref.Value)
		labelled[row(ref.Value)/4] = true
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	win := c.window(plotW * 2)
	for _, vs := range [][]float64{c.Values, c.Values2} {
		for _, v := range vs[max(len(vs)-win, 0):] {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	for _, v := range []float64{hi, lo} {
		if (v == hi && v > refHi) || (v == lo && v < refLo) {
			if cy := row(v) / 4; !labelled[cy] {
				putLabel(grid[cy], fmt.Sprintf(c.Format, v))
				labelled[cy] = true
			}
		}
	}
}

func putLabel(line []rune, s string) {
	r := []rune(s)
	if len(r) > labelWidth-1 {
		r = r[:labelWidth-1]
	}
	pad := labelWidth - 1 - len(r)
	for i := range labelWidth {
		line[i] = ' '
	}
	copy(line[pad:], r)
}

// window is how many values the plot's cols dot columns span.
func (c *Chart) window(cols int) int {
	if c.Window > 0 {
		return c.Window
	}
	return cols * max(c.Per, 1)
}

// dots lays one series out as braille bits per cell (plotW×h cells).
func (c *Chart) dots(values []float64, plotW, h int, row func(float64) int) [][]uint8 {
	cols := plotW * 2
	win := c.window(cols)
	if len(values) > win {
		values = values[len(values)-win:]
	}
	off := win - len(values) // window position of values[0]
	dots := make([][]uint8, h)
	for i := range dots {
		dots[i] = make([]uint8, plotW)
	}
	for col := range cols {
		lo := col * win / cols
		hi := max((col+1)*win/cols, lo+1)
		start, end := max(lo-off, 0), min(hi-off, len(values))
		if start >= end {
			continue
		}
		bl, bh := math.Inf(1), math.Inf(-1)
		for _, v := range values[start:end] {
			if !math.IsNaN(v) {
				bl, bh = min(bl, v), max(bh, v)
			}
		}
		if math.IsInf(bl, 1) {
			continue
		}
		for r := row(bh); r <= row(bl); r++ {
			dots[r/4][col/2] |= brailleBit(col%2, r%4)
		}
	}
	return dots
}

// markColumns are the plot cells (0 at the left of plotW) of the Marks.
func (c *Chart) markColumns(plotW int) []int {
	if plotW <= 0 {
		return nil
	}
	cols := plotW * 2
	win := c.window(cols)
	off := win - min(len(c.Values), win)
	skip := max(len(c.Values)-win, 0)
	var out []int
	for _, m := range c.Marks {
		p := m - skip + off
		if p < 0 || p >= win {
			continue
		}
		out = append(out, p*cols/win/2)
	}
	return out
}

// brailleBit is the bit of dot (x, y) in a braille cell (x 0..1, y 0..3).
func brailleBit(x, y int) uint8 {
	if y == 3 {
		return 1 << (6 + x)
	}
	return 1 << (y + 3*x)
}

// yRange is the fixed range, or the data's (and the references') range
// with a little headroom.
func (c *Chart) yRange() (lo, hi float64) {
	if c.Min < c.Max {
		return c.Min, c.Max
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, vs := range [][]float64{c.Values, c.Values2} {
		for _, v := range vs {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	for _, r := range c.Refs {
		lo, hi = min(lo, r.Value), max(hi, r.Value)
	}
	if math.IsInf(lo, 1) {
		return 0, 1
	}
	nonNegative := lo >= 0
	if hi-lo < 1e-9 {
		if nonNegative { // a flat line of counts: no axis below zero
			return max(lo-1, 0), hi + 1
		}
		return lo - 1, hi + 1
	}
	pad := (hi - lo) * 0.1
	if nonNegative {
		return max(lo-pad, 0), hi + pad
	}
	return lo - pad, hi + pad
}

// Draw draws the chart into its box. Only its border and its non-blank
// cells are set: tview clears the screen before each frame.
func (c *Chart) Draw(screen tcell.Screen) {
	_, _, bw, _ := c.GetRect()
	c.SetTitle(c.titleFor(bw))
	DrawFrame(screen, c.Box, false)
	x, y, w, h := c.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	grid := c.Render(w, h)
	dim := tcell.StyleDefault.Foreground(tcell.ColorGray)
	line := tcell.StyleDefault.Foreground(c.Color)
	var second [][]uint8
	if len(c.Values2) > 0 && w > labelWidth {
		lo, hi := c.yRange()
		dotsH := h * 4
		row := func(v float64) int {
			r := int(math.Round((hi - v) / (hi - lo) * float64(dotsH-1)))
			return min(max(r, 0), dotsH-1)
		}
		second = c.dots(c.Values2, w-labelWidth, h, row)
	}
	other := tcell.StyleDefault.Foreground(c.Color2)
	for j, rowRunes := range grid {
		for i, r := range rowRunes {
			st := line
			if i < labelWidth || r == '┈' {
				st = dim
			}
			if second != nil && i >= labelWidth && second[j][i-labelWidth] != 0 {
				b := rune(second[j][i-labelWidth])
				if r > 0x2800 && r <= 0x28FF {
					r |= b // both series here: merge the dots, keep the first's colour
				} else {
					r, st = 0x2800+b, other
				}
			}
			if r != ' ' {
				screen.SetContent(x+i, y+j, r, nil, st)
			}
		}
	}
	plotW := w - labelWidth
	marks := c.markColumns(plotW)
	// The span labels give way to a mark in their place.
	free := func(from, to int) bool {
		for _, m := range marks {
			if m >= from && m < to {
				return false
			}
		}
		return true
	}
	if span := " " + c.Span + " "; c.Span != "" && plotW >= len(span)+8 {
		if n := len([]rune(span)); free(0, n) {
			tview.Print(screen, span, x+labelWidth, y+h, n, tview.AlignLeft, tcell.ColorGray)
		}
		if free(plotW-5, plotW) {
			tview.Print(screen, " now ", x+w-5, y+h, 5, tview.AlignLeft, tcell.ColorGray)
		}
	}
	mark := tcell.StyleDefault.Foreground(tcell.ColorYellow).Bold(true)
	for _, col := range marks {
		screen.SetContent(x+labelWidth+col, y+h, '┴', nil, mark)
	}
}
