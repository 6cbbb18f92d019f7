package widget

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// ScrollText is a bordered box of tagged text that scrolls like the help
// (↑ ↓ PgUp PgDn Home End) and says on its bottom border which lines it
// shows when they do not all fit: "lines 1–10 of 23". It opens at the top; End makes
// it follow the end as text is added, until it is scrolled up again.
type ScrollText struct {
	*tview.Box
	title  string // the title before the line range
	text   string
	top    int  // first line shown
	follow bool // keep the last line in view
	height int  // inner height at the last draw, for paging
}

func NewScrollText() *ScrollText {
	s := &ScrollText{Box: tview.NewBox()}
	s.SetBorder(true).SetTitleAlign(tview.AlignLeft)
	return s
}

// Set replaces the text and the title (without the line range); the
// position is kept.
func (s *ScrollText) Set(title, text string) { s.title, s.text = title, text }

// Text is the text shown (without the title).
func (s *ScrollText) Text() string { return s.text }

// Home shows the first line (and stops following the end).
func (s *ScrollText) Home() { s.top, s.follow = 0, false }

// Scroll moves by n lines (negative: up) from the lines last drawn; the
// end is clamped at draw time.
func (s *ScrollText) Scroll(n int) {
	s.top, s.follow = max(s.top+n, 0), false
}

// Page moves by n pages.
func (s *ScrollText) Page(n int) { s.Scroll(n * max(s.height-1, 1)) }

// End shows the last line and follows the end.
func (s *ScrollText) End() { s.follow = true }

// Key scrolls for a scrolling key and reports whether it was one.
func (s *ScrollText) Key(k tcell.Key) bool {
	switch k {
	case tcell.KeyUp:
		s.Scroll(-1)
	case tcell.KeyDown:
		s.Scroll(1)
	case tcell.KeyPgUp:
		s.Page(-1)
	case tcell.KeyPgDn:
		s.Page(1)
	case tcell.KeyHome:
		s.Home()
	case tcell.KeyEnd:
		s.End()
	default:
		return false
	}
	return true
}

func (s *ScrollText) Draw(screen tcell.Screen) {
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
	DrawFrame(screen, s.Box, s.HasFocus())
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
