package tui

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"

	"jitterlab/client"
	"jitterlab/metrics"
	"jitterlab/sim"
)

// The layout is designed for the terminal default, 80×24, first: a header
// row, four charts on the left, the parameter editor above the side box on
// the right, then the status row and the key row. Below minWidth×minHeight
// the screen says so instead.
const (
	minWidth  = 64
	minHeight = 20
	// sideWidth is the right column: a space, the editor's label and two
	// value columns of 13 (paretonormal, proportional, 33.333333ms fit),
	// plus the border.
	sideWidth = 42
	// sideHeight is the now box: six lines and the border.
	sideHeight = 8
)

// views are the widgets the live lab and the replay viewer share: the
// header, the four charts, the parameter editor (or the change log in its
// place), the side box, the status row and the key row, in one layout.
type views struct {
	header, keys                  *fitLine
	statusRow, side               *tview.TextView
	log                           *scrollText
	offset, interval, visErr, rtt *Chart
	editor                        *Editor
	upper                         layers // the editor or the change log
	pages                         layers // the layout, then overlays
	rows                          *tview.Flex
	statusText                    string
}

func newViews(cc client.Config, sideTitle string) *views {
	v := &views{
		header:    newFitLine(),
		keys:      newFitLine(),
		statusRow: tview.NewTextView().SetDynamicColors(true).SetWrap(true).SetWordWrap(true),
		side:      tview.NewTextView().SetDynamicColors(true).SetWrap(false),
		log:       newScrollText(),
		editor:    NewEditor(),
	}
	for _, t := range []*tview.TextView{v.statusRow, v.side} {
		t.SetBackgroundColor(tcell.ColorDefault)
	}
	v.side.SetBorder(true).SetTitle(" " + sideTitle + " ").SetTitleAlign(tview.AlignLeft)
	v.offset = NewChart("tick offset")
	v.offset.Refs = []RefLine{{float64(cc.Band), fmt.Sprintf("+%d", cc.Band)}, {float64(-cc.Band), fmt.Sprintf("-%d", cc.Band)}}
	v.offset.Color, v.offset.Format, v.offset.Short = tcell.ColorAqua, "%+.0f", "offset"
	v.interval = NewChart("send interval (s)")
	v.interval.Refs = []RefLine{{cc.IntervalSlow.Seconds(), trimZero(cc.IntervalSlow.Seconds())}, {cc.IntervalFast.Seconds(), trimZero(cc.IntervalFast.Seconds())}}
	v.interval.Color, v.interval.Format, v.interval.Short = tcell.ColorYellow, "%.3f", "interval s"
	v.visErr = NewChart("visible error (m)")
	v.visErr.Refs = []RefLine{{cc.Snap, fmt.Sprintf("%g", cc.Snap)}}
	v.visErr.Color, v.visErr.Format, v.visErr.Short = tcell.ColorFuchsia, "%.2g", "vis error m"
	v.rtt = NewChart("rtt (ms)")
	v.rtt.Short = "rtt ms"
	v.upper = layers{tview.NewPages()}
	v.upper.AddPage("log", v.log, true, false).AddPage("editor", v.editor, true, true)
	v.pages = layers{tview.NewPages()}
	v.pages.AddPage("main", v.layout(), true, true)
	return v
}

// layout puts the widgets in place: charts left, editor and side box right.
func (v *views) layout() tview.Primitive {
	charts := tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.offset, 0, 1, false).
		AddItem(v.interval, 0, 1, false).
		AddItem(v.visErr, 0, 1, false).
		AddItem(v.rtt, 0, 1, false)
	right := tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.upper, 0, 1, true).
		AddItem(v.side, sideHeight, 0, false)
	main := tview.NewFlex().
		AddItem(charts, 0, 1, false).
		AddItem(right, sideWidth, 0, true)
	v.rows = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.header, 1, 0, false).
		AddItem(main, 0, 1, true).
		AddItem(v.statusRow, 1, 0, false).
		AddItem(v.keys, 1, 0, false)
	return v.rows
}

// numberUnit is the space between a number and its unit ("2 s",
// "10 %"): the status row's word wrap must not break there.
var numberUnit = regexp.MustCompile(`([0-9]) ((?:ms|s|m|m/s|min|h|%|/min|/s|Hz|fps|bit/s|kbit/s|Mbit/s|Gbit/s|B|kB|KB|MB|x)(?:[\s,.;:)\]]|$))`)

// setStatus shows text on the status row, wrapped at word boundaries but
// never between a number and its unit (a no-break space binds them).
func (v *views) setStatus(text string) {
	v.statusText = " " + numberUnit.ReplaceAllString(text, "$1\u00a0$2")
	v.statusRow.SetText(v.statusText)
}

// fitStatus gives the status row a second row (from the charts) while its
// text is wider than the screen, w; a text longer than two rows ends its
// second with "…".
func (v *views) fitStatus(w int) { fitStatusRow(v.rows, v.statusRow, v.statusText, w) }

// statusRows is how many rows the status may take.
const statusRows = 2

// fitStatusRow wraps text at its spaces to w columns on up to statusRows
// rows of row (in rows), the last cut with "…" when the text goes on.
func fitStatusRow(rows *tview.Flex, row *tview.TextView, text string, w int) {
	lines := wrapTagged(text, w)
	if len(lines) > statusRows {
		rest := strings.Join(lines[statusRows-1:], " ")
		lines = append(lines[:statusRows-1], cutAtWord(rest, w))
	}
	row.SetWrap(false).SetText(strings.Join(lines, "\n"))
	rows.ResizeItem(row, len(lines), 0)
}

// wrapTagged breaks text (with colour tags, which take no columns) at its
// spaces into lines of at most w columns; a word wider than a line fills
// the line and goes on to the next, as tview breaks it.
func wrapTagged(text string, w int) []string {
	var lines []string
	line := ""
	for i, word := range strings.Split(text, " ") {
		next := word
		if i > 0 {
			next = line + " " + word
		}
		switch {
		case tview.TaggedStringWidth(next) <= w:
		case line != "" && tview.TaggedStringWidth(word) <= w:
			lines, next = append(lines, line), word
		default:
			for tview.TaggedStringWidth(next) > w {
				cut := 0
				for j := range next {
					if j > 0 && tview.TaggedStringWidth(next[:j]) <= w {
						cut = j
					}
				}
				if cut == 0 {
					break
				}
				lines, next = append(lines, next[:cut]), next[cut:]
			}
		}
		line = next
	}
	return append(lines, line)
}

// cutAtWord is text cut to w columns with "…", at its last space that
// leaves room for the mark (cutToWidth where a word is longer).
func cutAtWord(text string, w int) string {
	cut := cutToWidth(text, w)
	if !strings.HasSuffix(cut, "…") || cut == text {
		return cut
	}
	if i := strings.LastIndex(cut, " "); i > 0 {
		return strings.TrimRight(cut[:i], " ,;:") + " …"
	}
	return cut
}

// cutToWidth is text (with colour tags) cut to w columns with "…" at its
// end when it is wider; tags are never cut in half. It reads the text once,
// and no further than the cut (a status may come from a request of a
// megabyte): tags cost no width, an escaped tag ("[x[]", drawn "[x]") one
// column less than its bytes, every other grapheme cluster its own width.
func cutToWidth(text string, w int) string {
	width, cut := 0, -1 // cut: the end of the longest prefix within w-1 columns
	for i := 0; i < len(text); {
		if n := tagLen(text[i:]); n > 0 {
			i += n
			continue
		}
		var n, cw int
		if m := escapedTag.FindStringIndex(text[i:]); m != nil {
			n = m[1]
			cw = uniseg.StringWidth(text[i:i+n]) - 1
		} else {
			cluster, _, boundaries, _ := uniseg.StepString(text[i:], -1)
			n, cw = len(cluster), boundaries>>uniseg.ShiftWidth
		}
		if cut < 0 && width+cw > w-1 {
			cut = i
		}
		if width += cw; width > w {
			return text[:cut] + "…"
		}
		i += n
	}
	return text
}

// escapedTag is tview's escaped tag: drawn with one '[' fewer.
var escapedTag = regexp.MustCompile(`^\[[^\[\]]+\[+\]`)

// tagLen is the length of the style or region tag text starts with (0:
// none).
func tagLen(text string) int {
	if text == "" || text[0] != '[' {
		return 0
	}
	end := strings.IndexAny(text[1:], "[]")
	if end < 0 || text[1+end] != ']' {
		return 0
	}
	if tview.TaggedStringWidth(text[:end+2]) != 0 {
		return 0
	}
	return end + 2
}

// root is what the application draws: the layout and its overlays, or the
// "terminal too small" message.
func (v *views) root() tview.Primitive {
	return &sizeGuard{Primitive: v.pages, minW: minWidth, minH: minHeight, fit: v.fitStatus}
}

// showLog swaps the editor for the change log (or back); the log opens
// at its top.
func (v *views) showLog(on bool) {
	if on {
		v.log.home()
		v.upper.SwitchToPage("log")
	} else {
		v.upper.SwitchToPage("editor")
	}
}

func (v *views) logShown() bool { name, _ := v.upper.GetFrontPage(); return name == "log" }

// fillCharts shows samples (oldest first) across a window of span samples,
// with the latest values in the titles and a mark on the time axis at
// every change (changes holds their times).
func (v *views) fillCharts(shown []metrics.Sample, span int, every time.Duration, snap float64, changes []sim.Time) {
	var marks []int
	if len(shown) > 0 {
		first, last := tsOf(&shown[0]), tsOf(&shown[len(shown)-1])
		i := 0
		for _, at := range changes {
			if at <= first || at > last {
				continue
			}
			for i < len(shown) && tsOf(&shown[i]) < at {
				i++
			}
			marks = append(marks, i)
		}
	}
	fill := func(c *Chart, f func(*metrics.Sample) float64) {
		c.Values = c.Values[:0]
		for i := range shown {
			c.Values = append(c.Values, f(&shown[i]))
		}
		c.Window = span
		c.Marks = marks
	}
	fill(v.offset, func(s *metrics.Sample) float64 { return float64(s.TickOffset) })
	fill(v.interval, func(s *metrics.Sample) float64 { return s.SendIntervalS })
	fill(v.visErr, func(s *metrics.Sample) float64 { return s.VisibleErrorM })
	fill(v.rtt, func(s *metrics.Sample) float64 { return s.RTTMs })
	var last metrics.Sample
	if len(shown) > 0 {
		last = shown[len(shown)-1]
	}
	v.rtt.Span = "−" + fmtSpan(span, every)
	v.offset.SetNote(fmt.Sprintf("%+d", last.TickOffset))
	v.interval.SetNote(fmt.Sprintf("%.3f", last.SendIntervalS))
	v.visErr.Refs = []RefLine{{snap, fmt.Sprintf("%g", snap)}}
	v.visErr.SetNote(fmt.Sprintf("%.2f", last.VisibleErrorM))
	// A sample without a reply has no RTT: the last one measured.
	rtt := "–"
	for i := len(shown) - 1; i >= 0; i-- {
		if !math.IsNaN(shown[i].RTTMs) {
			rtt = fmt.Sprintf("%.0f", shown[i].RTTMs)
			break
		}
	}
	v.rtt.SetNotes(fmt.Sprintf("%s, jitter %.1f/%.1f", rtt, last.UpJitterMs, last.DownJitterMs), rtt)
}

// fmtSpan is span samples of every as a short duration: 30s, 2m.
func fmtSpan(span int, every time.Duration) string {
	d := time.Duration(span) * every
	if d%time.Minute == 0 {
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// tsOf is a sample's true time.
func tsOf(x *metrics.Sample) sim.Time { return sim.Time(x.TS*1e9 + 0.5) }

// drawFrame draws b's border and title as tview's Box does, but without
// first clearing the area: tview clears the screen before each frame and a
// chart or the editor sets the cells it needs, so a clear would set every
// cell twice (a third of the lab's CPU at 30 fps).
func drawFrame(screen tcell.Screen, b *tview.Box, focused bool) {
	x, y, w, h := b.GetRect()
	if w < 2 || h < 2 {
		return
	}
	bs := tview.Borders
	hz, vt, tl, tr, bl, br := bs.Horizontal, bs.Vertical, bs.TopLeft, bs.TopRight, bs.BottomLeft, bs.BottomRight
	if focused {
		hz, vt, tl, tr, bl, br = bs.HorizontalFocus, bs.VerticalFocus, bs.TopLeftFocus, bs.TopRightFocus, bs.BottomLeftFocus, bs.BottomRightFocus
	}
	st := tcell.StyleDefault.Foreground(b.GetBorderColor())
	for i := x + 1; i < x+w-1; i++ {
		screen.SetContent(i, y, hz, nil, st)
		screen.SetContent(i, y+h-1, hz, nil, st)
	}
	for j := y + 1; j < y+h-1; j++ {
		screen.SetContent(x, j, vt, nil, st)
		screen.SetContent(x+w-1, j, vt, nil, st)
	}
	screen.SetContent(x, y, tl, nil, st)
	screen.SetContent(x+w-1, y, tr, nil, st)
	screen.SetContent(x, y+h-1, bl, nil, st)
	screen.SetContent(x+w-1, y+h-1, br, nil, st)
	if title := b.GetTitle(); title != "" && w >= 4 {
		if printed, _ := tview.Print(screen, title, x+1, y, w-2, tview.AlignLeft, tview.Styles.TitleColor); printed < len(title) && printed > 0 {
			tview.Print(screen, string(tview.SemigraphicsHorizontalEllipsis), x+w-2, y, 1, tview.AlignLeft, tview.Styles.TitleColor)
		}
	}
}

// layers are tview's Pages drawn without first clearing their area (see
// drawFrame): every page fills its whole area, back to front.
type layers struct{ *tview.Pages }

func (l layers) Draw(screen tcell.Screen) {
	x, y, w, h := l.GetRect()
	names := l.GetPageNames(true) // front to back
	for i := len(names) - 1; i >= 0; i-- {
		p := l.GetPage(names[i])
		p.SetRect(x, y, w, h)
		p.Draw(screen)
	}
}

// sizeGuard draws its primitive, or a centred "terminal too small" message
// when the area is smaller than minW×minH.
type sizeGuard struct {
	tview.Primitive
	minW, minH int
	fit        func(w int) // lays out for the width before drawing
}

func (g *sizeGuard) Draw(screen tcell.Screen) {
	x, y, w, h := g.GetRect()
	if w >= g.minW && h >= g.minH {
		g.fit(w)
		g.Primitive.Draw(screen)
		return
	}
	lines := tooSmall(g.minW, g.minH, w, h)
	top := y + max(0, (h-len(lines))/2)
	for i, l := range lines {
		tview.Print(screen, l, x, top+i, w, tview.AlignCenter, tcell.ColorYellow)
	}
}

// tooSmall is the "terminal too small" message for a w×h terminal that
// needs minW×minH: the widest wording whose every line fits in w columns,
// on more and shorter lines as the terminal narrows; the first lines say
// the most.
func tooSmall(minW, minH, w, h int) []string {
	need, now := fmt.Sprintf("%d×%d", minW, minH), fmt.Sprintf("%d×%d", w, h)
	wordings := [][]string{
		{"terminal too small: need " + need, "(now " + now + "; q quits)"},
		{"too small: need " + need, "now " + now + "; q quits"},
		{"too small", "need " + need, "now " + now, "q quits"},
	}
	for _, lines := range wordings {
		if slices.IndexFunc(lines, func(l string) bool { return tview.TaggedStringWidth(l) > w }) < 0 {
			return lines
		}
	}
	return wordings[len(wordings)-1]
}

// overlay draws its primitive centred in the area it is given, at most
// w×h and never larger than the area: a help box or a prompt.
type overlay struct {
	tview.Primitive
	w, h   int
	x0, y0 int
	aw, ah int
}

func (o *overlay) SetRect(x, y, w, h int) { o.x0, o.y0, o.aw, o.ah = x, y, w, h }

func (o *overlay) Draw(screen tcell.Screen) {
	w, h := min(o.w, o.aw), min(o.h, o.ah)
	o.Primitive.SetRect(o.x0+(o.aw-w)/2, o.y0+(o.ah-h)/2, w, h)
	o.Primitive.Draw(screen)
}

// segment is one part of a fitLine; the lowest priority goes first when
// the line is too narrow.
type segment struct {
	text string // may hold tview colour tags
	prio int
}

// mustKeep is the priority of segments a fitLine never drops.
const mustKeep = 100

// fitLine is a one-row line of segments that drops its least important
// ones to fit its width, so the header and the key row never wrap.
type fitLine struct {
	*tview.Box
	segs []segment
	sep  string
}

func newFitLine() *fitLine { return &fitLine{Box: tview.NewBox(), sep: "  "} }

func (f *fitLine) set(sep string, segs ...segment) { f.sep, f.segs = sep, segs }

func (f *fitLine) Draw(screen tcell.Screen) {
	x, y, w, _ := f.GetRect()
	tview.Print(screen, fit(f.segs, f.sep, w-1), x+1, y, w-1, tview.AlignLeft, tcell.ColorWhite)
}

// fit joins the segments with sep, leaving out the lowest-priority ones
// (the rightmost first among equals) until the line is at most w wide.
func fit(segs []segment, sep string, w int) string {
	keep := make([]bool, len(segs))
	for i := range keep {
		keep[i] = true
	}
	join := func() string {
		s := ""
		for i, sg := range segs {
			if keep[i] {
				if s != "" {
					s += sep
				}
				s += sg.text
			}
		}
		return s
	}
	for tview.TaggedStringWidth(join()) > w {
		drop := -1
		for i, sg := range segs {
			if keep[i] && sg.prio < mustKeep && (drop < 0 || sg.prio <= segs[drop].prio) {
				drop = i
			}
		}
		if drop < 0 {
			break
		}
		keep[drop] = false
	}
	return join()
}
