package tui

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/client"
	"jitterlab/metrics"
	"jitterlab/sim"
	"jitterlab/tui/widget"
)

// The layout is designed for the terminal default, 80×24, first: a header
// row, four charts on the left, the parameter editor above the side box on
// the right, then the status row and the key row. Below
// widget.MinWidth×widget.MinHeight the screen says so instead.

// views are the widgets the live lab and the replay viewer share: the
// header, the four charts, the parameter editor (or the change log in its
// place), the side box, the status row and the key row, in one layout.
type views struct {
	header, keys                  *widget.FitLine
	statusRow, side               *tview.TextView
	log                           *widget.ScrollText
	offset, interval, visErr, rtt *widget.Chart
	editor                        *widget.Editor
	upper                         widget.Layers // the editor or the change log
	pages                         widget.Layers // the layout, then overlays
	rows                          *tview.Flex
	statusText                    string
}

func newViews(cc client.Config, sideTitle string) *views {
	v := &views{
		header:    widget.NewFitLine(),
		keys:      widget.NewFitLine(),
		statusRow: tview.NewTextView().SetDynamicColors(true).SetWrap(true).SetWordWrap(true),
		side:      tview.NewTextView().SetDynamicColors(true).SetWrap(false),
		log:       widget.NewScrollText(),
		editor:    NewEditor(),
	}
	for _, t := range []*tview.TextView{v.statusRow, v.side} {
		t.SetBackgroundColor(tcell.ColorDefault)
	}
	v.side.SetBorder(true).SetTitle(" " + sideTitle + " ").SetTitleAlign(tview.AlignLeft)
	v.offset = widget.NewChart("tick offset")
	v.offset.Color, v.offset.Format, v.offset.Short = tcell.ColorAqua, "%+.0f", "offset"
	v.interval = widget.NewChart("send interval (s)")
	v.interval.Color, v.interval.Format, v.interval.Short = tcell.ColorYellow, "%.3f", "interval s"
	v.visErr = widget.NewChart("visible error (m)")
	v.visErr.Color, v.visErr.Format, v.visErr.Short = tcell.ColorFuchsia, "%.2g", "vis error m"
	v.rtt = widget.NewChart("rtt (ms)")
	v.rtt.Short = "rtt ms"
	v.setRefs(cc)
	v.upper = widget.Layers{Pages: tview.NewPages()}
	v.upper.AddPage("log", v.log, true, false).AddPage("editor", v.editor, true, true)
	v.pages = widget.Layers{Pages: tview.NewPages()}
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
		AddItem(v.side, widget.SideBoxHeight, 0, false)
	main := tview.NewFlex().
		AddItem(charts, 0, 1, false).
		AddItem(right, widget.SideWidth, 0, true)
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
	cut := widget.CutToWidth(text, w)
	if !strings.HasSuffix(cut, "…") || cut == text {
		return cut
	}
	if i := strings.LastIndex(cut, " "); i > 0 {
		return strings.TrimRight(cut[:i], " ,;:") + " …"
	}
	return cut
}

// root is what the application draws: the layout and its overlays, or the
// "terminal too small" message.
func (v *views) root() tview.Primitive {
	return &widget.SizeGuard{Primitive: v.pages, MinW: widget.MinWidth, MinH: widget.MinHeight, Fit: v.fitStatus}
}

// showLog swaps the editor for the change log (or back); the log opens
// at its top.
func (v *views) showLog(on bool) {
	if on {
		v.log.Home()
		v.upper.SwitchToPage("log")
	} else {
		v.upper.SwitchToPage("editor")
	}
}

func (v *views) logShown() bool { name, _ := v.upper.GetFrontPage(); return name == "log" }

// setRefs draws the reference lines of the client settings cc: the tick
// offset's dead band, the send interval's slow and fast levels and the
// snap distance.
func (v *views) setRefs(cc client.Config) {
	v.offset.Refs = []widget.RefLine{{Value: float64(cc.Band), Label: fmt.Sprintf("+%d", cc.Band)}, {Value: float64(-cc.Band), Label: fmt.Sprintf("-%d", cc.Band)}}
	v.interval.Refs = []widget.RefLine{{Value: cc.IntervalSlow.Seconds(), Label: trimZero(cc.IntervalSlow.Seconds())}, {Value: cc.IntervalFast.Seconds(), Label: trimZero(cc.IntervalFast.Seconds())}}
	v.visErr.Refs = []widget.RefLine{{Value: cc.Snap, Label: fmt.Sprintf("%g", cc.Snap)}}
}

// fillCharts shows samples (oldest first) across a window of span samples,
// with the latest values in the titles, the reference lines of the client
// settings cc (those in force) and a mark on the time axis at every change
// (changes holds their times).
func (v *views) fillCharts(shown []metrics.Sample, span int, every time.Duration, cc client.Config, changes []sim.Time) {
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
	fill := func(c *widget.Chart, f func(*metrics.Sample) float64) {
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
	v.rtt.Span = "−" + widget.FmtSpan(span, every)
	v.offset.SetNote(fmt.Sprintf("%+d", last.TickOffset))
	v.interval.SetNote(fmt.Sprintf("%.3f", last.SendIntervalS))
	v.setRefs(cc)
	v.visErr.SetNote(widget.Num("%.2f", last.VisibleErrorM))
	// A sample without a reply has no RTT: the last one measured.
	rtt := "–"
	for i := len(shown) - 1; i >= 0; i-- {
		if !math.IsNaN(shown[i].RTTMs) {
			rtt = fmt.Sprintf("%.0f", shown[i].RTTMs)
			break
		}
	}
	v.rtt.SetNotes(fmt.Sprintf("%s, jitter %s/%s", rtt, widget.Num("%.1f", last.UpJitterMs), widget.Num("%.1f", last.DownJitterMs)), rtt)
}

// tsOf is a sample's true time.
func tsOf(x *metrics.Sample) sim.Time { return sim.Time(x.TS*1e9 + 0.5) }
