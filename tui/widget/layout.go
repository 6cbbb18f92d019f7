package widget

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"
)

// The screens are designed for the terminal default, 80×24, first. Below
// MinWidth×MinHeight a screen says so instead ([SizeGuard]).
const (
	MinWidth  = 64
	MinHeight = 20
	// SideWidth is a screen's right column: a space, the editor's label
	// and two value columns of 13 (paretonormal, proportional, 33.333333ms
	// fit), plus the border.
	SideWidth = 42
	// SideBoxHeight is a box in the right column under the editor (the
	// lab's now box and report card, the proxy's game's report card): six
	// lines and the border.
	SideBoxHeight = 8
)

// Windows are the selectable chart spans.
var Windows = []time.Duration{10 * time.Second, 30 * time.Second, 2 * time.Minute}

// CutToWidth is text (with colour tags) cut to w columns with "…" at its
// end when it is wider; tags are never cut in half. It reads the text once,
// and no further than the cut (a status may come from a request of a
// megabyte): tags cost no width, an escaped tag ("[x[]", drawn "[x]") one
// column less than its bytes, every other grapheme cluster its own width.
func CutToWidth(text string, w int) string {
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

// FmtSpan is span samples of every as a short duration: 30s, 2m.
func FmtSpan(span int, every time.Duration) string {
	d := time.Duration(span) * every
	if d%time.Minute == 0 {
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// DrawFrame draws b's border and title as tview's Box does, but without
// first clearing the area: tview clears the screen before each frame and a
// chart or the editor sets the cells it needs, so a clear would set every
// cell twice (a third of the lab's CPU at 30 fps).
func DrawFrame(screen tcell.Screen, b *tview.Box, focused bool) {
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

// Layers are tview's Pages drawn without first clearing their area (see
// DrawFrame): every page fills its whole area, back to front.
type Layers struct{ *tview.Pages }

func (l Layers) Draw(screen tcell.Screen) {
	x, y, w, h := l.GetRect()
	names := l.GetPageNames(true) // front to back
	for i := len(names) - 1; i >= 0; i-- {
		p := l.GetPage(names[i])
		p.SetRect(x, y, w, h)
		p.Draw(screen)
	}
}

// SizeGuard draws its primitive, or a centred "terminal too small" message
// when the area is smaller than minW×minH.
type SizeGuard struct {
	tview.Primitive
	MinW, MinH int
	Fit        func(w int) // lays out for the width before drawing
}

func (g *SizeGuard) Draw(screen tcell.Screen) {
	x, y, w, h := g.GetRect()
	if w >= g.MinW && h >= g.MinH {
		g.Fit(w)
		g.Primitive.Draw(screen)
		return
	}
	lines := tooSmall(g.MinW, g.MinH, w, h)
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

// Overlay draws its primitive centred in the area it is given, at most
// w×h and never larger than the area: a help box or a prompt.
type Overlay struct {
	tview.Primitive
	W, H   int
	x0, y0 int
	aw, ah int
}

func (o *Overlay) SetRect(x, y, w, h int) { o.x0, o.y0, o.aw, o.ah = x, y, w, h }

func (o *Overlay) Draw(screen tcell.Screen) {
	w, h := min(o.W, o.aw), min(o.H, o.ah)
	o.Primitive.SetRect(o.x0+(o.aw-w)/2, o.y0+(o.ah-h)/2, w, h)
	o.Primitive.Draw(screen)
}

// Segment is one part of a FitLine; the lowest priority goes first when
// the line is too narrow.
type Segment struct {
	Text string // may hold tview colour tags
	Prio int
}

// MustKeep is the priority of segments a FitLine never drops.
const MustKeep = 100

// FitLine is a one-row line of segments that drops its least important
// ones to fit its width, so the header and the key row never wrap.
type FitLine struct {
	*tview.Box
	segs []Segment
	sep  string
}

func NewFitLine() *FitLine { return &FitLine{Box: tview.NewBox(), sep: "  "} }

func (f *FitLine) Set(sep string, segs ...Segment) { f.sep, f.segs = sep, segs }

func (f *FitLine) Draw(screen tcell.Screen) {
	x, y, w, _ := f.GetRect()
	tview.Print(screen, fit(f.segs, f.sep, w-1), x+1, y, w-1, tview.AlignLeft, tcell.ColorWhite)
}

// fit joins the segments with sep, leaving out the lowest-priority ones
// (the rightmost first among equals) until the line is at most w wide.
func fit(segs []Segment, sep string, w int) string {
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
				s += sg.Text
			}
		}
		return s
	}
	for tview.TaggedStringWidth(join()) > w {
		drop := -1
		for i, sg := range segs {
			if keep[i] && sg.Prio < MustKeep && (drop < 0 || sg.Prio <= segs[drop].Prio) {
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
