package widget

import (
	"strings"

	"github.com/gdamore/tcell/v2"
)

// ScreenText is what a simulation screen shows, a line per row, the first
// rune of each cell (a space for an empty one): what a screen's tests read.
func ScreenText(s tcell.SimulationScreen) string {
	cells, w, h := s.GetContents()
	var b strings.Builder
	for y := range h {
		for x := range w {
			if r := cells[y*w+x].Runes; len(r) > 0 {
				b.WriteRune(r[0])
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// ScreenRows is ScreenText as its rows.
func ScreenRows(s tcell.SimulationScreen) []string {
	return strings.Split(strings.TrimSuffix(ScreenText(s), "\n"), "\n")
}
