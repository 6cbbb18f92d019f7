package proxyscreen

import (
	"fmt"
	"math"
	"slices"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/tui/widget"
)

// gameFigures are one chart column's figures of the game, as the lab's
// sample has its model's (metrics.Sample): the tick offset and the send
// interval of the latest frame, and the largest visible error of the
// column's frames. With no frame, each is NaN: not measured.
type gameFigures struct {
	frames                   int
	offset, interval, visErr float64
}

// noGame is a column without a frame.
var noGame = gameFigures{offset: math.NaN(), interval: math.NaN(), visErr: math.NaN()}

// add takes the next frame, the latest so far.
func (g *gameFigures) add(p GamePoint) {
	if g.frames == 0 || p.VisibleErrorM > g.visErr {
		g.visErr = p.VisibleErrorM
	}
	g.offset, g.interval = float64(p.TickOffset), p.SendIntervalS
	g.frames++
}

// figures is g, or noGame without a frame.
func (g gameFigures) figures() gameFigures {
	if g.frames == 0 {
		return noGame
	}
	return g
}

// gameCharts are the game's charts, titled, coloured and formatted as the
// lab's (tui's tick offset, send interval and visible error). They have no
// reference lines: the game's band, send intervals and snap distance are
// its own, which the lab does not know.
func gameCharts() (offset, interval, visErr *widget.Chart) {
	offset = widget.NewChart("tick offset")
	offset.Color, offset.Format, offset.Short = tcell.ColorAqua, "%+.0f", "offset"
	interval = widget.NewChart("send interval (s)")
	interval.Color, interval.Format, interval.Short = tcell.ColorYellow, "%.3f", "interval s"
	visErr = widget.NewChart("visible error (m)")
	visErr.Color, visErr.Format, visErr.Short = tcell.ColorFuchsia, "%.2g", "vis error m"
	return offset, interval, visErr
}

// gameRows is the least height of the charts' column that holds the
// game's three charts and the link's three, four rows each (two of plot);
// a lower column shows the game's alone, the box below keeping the link's
// figures, or the link's alone (g).
const gameRows = 6 * 4

// gameScreenRows is the least terminal height whose charts' column is
// gameRows high: the header, the box below, the status and key rows
// take the rest (one more with clients on links of their own).
const gameScreenRows = 1 + gameRows + proxyTableHeight + 2

// chartColumn is the charts' column: the link's three charts, and once
// the game sends telemetry the game's three above them (or alone, in a
// column under gameRows). The lowest chart labels the time axis.
type chartColumn struct {
	*tview.Flex
	v     *View
	shown []*widget.Chart
}

// charts are the charts a column h rows high shows, top to bottom.
func (v *View) charts(h int) []*widget.Chart {
	link := []*widget.Chart{v.delay, v.rate, v.jitter}
	switch {
	case !v.game:
		return link
	case h < gameRows && v.linkCharts:
		return link
	case h < gameRows:
		return []*widget.Chart{v.offset, v.interval, v.visErr}
	}
	return []*widget.Chart{v.offset, v.interval, v.visErr, v.delay, v.rate, v.jitter}
}

func (c *chartColumn) Draw(screen tcell.Screen) {
	_, _, _, h := c.GetRect()
	if want := c.v.charts(h); !slices.Equal(want, c.shown) {
		c.Clear()
		for _, ch := range want {
			c.AddItem(ch, 0, 1, false)
		}
		c.shown = want
	}
	for i, ch := range c.shown {
		ch.Span = ""
		if i == len(c.shown)-1 {
			ch.Span = c.v.spanText
		}
	}
	c.Flex.Draw(screen)
}

// fillGame shows the game's figures of the samples shown, across a window
// of span samples, the latest in the titles.
func (v *View) fillGame(shown []proxySample, span int) {
	fill := func(c *widget.Chart, f func(g *gameFigures) float64) {
		c.Values, c.Values2 = c.Values[:0], c.Values2[:0]
		for i := range shown {
			x := f(&shown[i].game)
			c.Values = append(c.Values, x, x) // two values per sample, as the link's charts
		}
		c.Window = span * 2
	}
	fill(v.offset, func(g *gameFigures) float64 { return g.offset })
	fill(v.interval, func(g *gameFigures) float64 { return g.interval })
	fill(v.visErr, func(g *gameFigures) float64 { return g.visErr })
	last := noGame
	if len(shown) > 0 {
		last = shown[len(shown)-1].game
	}
	v.offset.SetNote(widget.Num("%+.0f", last.offset))
	v.interval.SetNote(widget.Num("%.3f", last.interval))
	v.visErr.SetNote(widget.Num("%.2f", last.visErr))
}

// swapCharts is g: in a column too low for six charts, the link's in
// place of the game's, or back.
func (v *View) swapCharts() {
	v.linkCharts = !v.linkCharts
	which, other := "game's", "link's"
	if v.linkCharts {
		which, other = other, which
	}
	v.status = fmt.Sprintf("a terminal under %d rows shows the %s charts (g: the %s)", gameScreenRows, which, other)
}

// showCard gives the game's report card its rows under the editor, or
// (hidden by p) none.
func (v *View) showCard() {
	rows := widget.SideBoxHeight
	if v.cardHidden {
		rows = 0
	}
	v.right.ResizeItem(v.card, rows, 0)
}

// toggleCard is p: the game's report card hidden, the editor taking its
// rows, or shown again.
func (v *View) toggleCard() {
	v.cardHidden = !v.cardHidden
	v.showCard()
	v.status = "the game's report card shown under the editor (p hides it)"
	if v.cardHidden {
		v.status = "the game's report card hidden (p shows it)"
	}
}

// fillCard shows the game's report card as the lab's screen shows the
// player's (lab.ReportCard.SideText), computed from the game's frames by
// the lab's rules; its title says how many frames it counts (none before
// lab.WarmUp after the game's login).
func (v *View) fillCard(g *Game) {
	if g.CardFrames == 0 {
		v.card.SetTitle(" game's report card: no frame yet ") // before the warm-up after login
	} else {
		v.card.SetTitle(fmt.Sprintf(" game's report card, %d frames ", g.CardFrames))
	}
	v.card.SetText(g.Card.SideText())
}
