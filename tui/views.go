package tui

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/client"
	"jitterlab/metrics"
)

// views are the widgets the live lab and the replay viewer share: the
// header, the four charts, the parameter editor, the side box and the
// footer, in one layout.
type views struct {
	header, side, footer          *tview.TextView
	offset, interval, visErr, rtt *Chart
	editor                        *Editor
}

func newViews(cc client.Config, sideTitle string) *views {
	v := &views{
		header: tview.NewTextView().SetDynamicColors(true),
		footer: tview.NewTextView().SetDynamicColors(true),
		side:   tview.NewTextView().SetDynamicColors(true),
		editor: NewEditor(),
	}
	v.side.SetBorder(true).SetTitle(" " + sideTitle + " ").SetTitleAlign(tview.AlignLeft)
	v.offset = NewChart("tick offset (ticks)")
	v.offset.Refs = []RefLine{{float64(cc.Band), fmt.Sprintf("+%d", cc.Band)}, {float64(-cc.Band), fmt.Sprintf("-%d", cc.Band)}}
	v.offset.Color = tcell.ColorAqua
	v.interval = NewChart("send interval (s)")
	v.interval.Refs = []RefLine{{cc.IntervalSlow.Seconds(), trimZero(cc.IntervalSlow.Seconds())}, {cc.IntervalFast.Seconds(), trimZero(cc.IntervalFast.Seconds())}}
	v.interval.Color = tcell.ColorYellow
	v.visErr = NewChart("visible − predicted error (m)")
	v.visErr.Refs = []RefLine{{cc.Snap, fmt.Sprintf("%g", cc.Snap)}}
	v.visErr.Color = tcell.ColorFuchsia
	v.rtt = NewChart("rtt / jitter (ms)")
	return v
}

// root lays the widgets out: charts left, editor and side box right.
func (v *views) root() *tview.Flex {
	charts := tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.offset, 0, 1, false).
		AddItem(v.interval, 0, 1, false).
		AddItem(v.visErr, 0, 1, false).
		AddItem(v.rtt, 0, 1, false)
	// The editor takes what it needs on a tall terminal and scrolls on a
	// short one; the side box gets the rest (at least a quarter).
	right := tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.editor, 0, 3, true).
		AddItem(v.side, 0, 1, false)
	main := tview.NewFlex().
		AddItem(charts, 0, 3, false).
		AddItem(right, 44, 0, true)
	return tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.header, 1, 0, false).
		AddItem(main, 0, 1, true).
		AddItem(v.footer, 2, 0, false)
}

// fillCharts shows samples (oldest first) across a window of span samples,
// with the latest values in the titles.
func (v *views) fillCharts(shown []metrics.Sample, span int, snap float64) {
	fill := func(c *Chart, f func(*metrics.Sample) float64) {
		c.Values = c.Values[:0]
		for i := range shown {
			c.Values = append(c.Values, f(&shown[i]))
		}
		c.Window = span
	}
	fill(v.offset, func(s *metrics.Sample) float64 { return float64(s.TickOffset) })
	fill(v.interval, func(s *metrics.Sample) float64 { return s.SendIntervalS })
	fill(v.visErr, func(s *metrics.Sample) float64 { return s.VisibleErrorM })
	fill(v.rtt, func(s *metrics.Sample) float64 { return s.RTTMs })
	var last metrics.Sample
	if len(shown) > 0 {
		last = shown[len(shown)-1]
	}
	v.offset.SetNote(fmt.Sprintf("%+d", last.TickOffset))
	v.interval.SetNote(fmt.Sprintf("%.3f", last.SendIntervalS))
	v.visErr.SetNote(fmt.Sprintf("%.2f m, snap line %g", last.VisibleErrorM, snap))
	v.rtt.SetNote(fmt.Sprintf("rtt %.0f, jitter up %.1f down %.1f", last.RTTMs, last.UpJitterMs, last.DownJitterMs))
}
