package tui

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// scrollText is a bordered box of tagged text that scrolls like the help
// (↑ ↓ PgUp PgDn Home End) and says on its bottom border which lines it
// shows when they do not all fit: "lines 1–10 of 23". It opens at the top; End makes
// it follow the end as text is added, until it is scrolled up again.
type scrollText struct {
	*tview.Box
	title  string // the title before the line range
	text   string
	top    int  // first line shown
	follow bool // keep the last line in view
	height int  // inner height at the last draw, for paging
}

func newScrollText() *scrollText {
	s := &scrollText{Box: tview.NewBox()}
	s.SetBorder(true).SetTitleAlign(tview.AlignLeft)
	return s
}

// set replaces the text and the title (without the line range); the
// position is kept.
func (s *scrollText) set(title, text string) { s.title, s.text = title, text }

// home shows the first line (and stops following the end).
func (s *scrollText) home() { s.top, s.follow = 0, false }

// scroll moves by n lines (negative: up) from the lines last drawn; the
// end is clamped at draw time.
func (s *scrollText) scroll(n int) {
	s.top, s.follow = max(s.top+n, 0), false
}

// page moves by n pages.
func (s *scrollText) page(n int) { s.scroll(n * max(s.height-1, 1)) }

// end shows the last line and follows the end.
func (s *scrollText) end() { s.follow = true }

// key scrolls for a scrolling key and reports whether it was one.
func (s *scrollText) key(k tcell.Key) bool {
	switch k {
	case tcell.KeyUp:
		s.scroll(-1)
	case tcell.KeyDown:
		s.scroll(1)
	case tcell.KeyPgUp:
		s.page(-1)
	case tcell.KeyPgDn:
		s.page(1)
	case tcell.KeyHome:
		s.home()
	case tcell.KeyEnd:
		s.end()
	default:
		return false
	}
	return true
}

func (s *scrollText) Draw(screen tcell.Screen) {
	x, y, w, h := s.GetInnerRect()
	s.height = h
	lines := tview.WordWrap(s.text, w)
	last := max(len(lines)-h, 0)
	if s.follow || s.top > last {
		s.top = last
	}
	if s.top == last && s.top > 0 {
		s.follow = true // scrolled to the end: keep following it
	}
	s.SetTitle(s.title)
	drawFrame(screen, s.Box, s.HasFocus())
	if len(lines) > h && h > 0 {
		// On the bottom border, where the title leaves room for it.
		where := fmt.Sprintf(" lines %d–%d of %d ", s.top+1, min(s.top+h, len(lines)), len(lines))
		for _, keys := range []string{"─ ↑↓ PgUp PgDn Home End ", "─ ↑↓ Home End "} {
			if tview.TaggedStringWidth(where+keys) <= w {
				where += keys
				break
			}
		}
		tview.Print(screen, where, x, y+h, w, tview.AlignLeft, tview.Styles.TitleColor)
	}
	for i := 0; i < h && s.top+i < len(lines); i++ {
		tview.Print(screen, lines[s.top+i], x, y+i, w, tview.AlignLeft, tcell.ColorWhite)
	}
}
