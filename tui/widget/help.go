package widget

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// KeyColumns is the key table's width in 'lab -h' and in a help box that
// has the room.
const KeyColumns = 76

// KeyLines lays keys out as a table: the key, then what it does, wrapped
// at columns under itself.
func KeyLines(keys [][2]string, indent string, columns int) string {
	var b strings.Builder
	pad := indent + strings.Repeat(" ", 10)
	for _, k := range keys {
		line := fmt.Sprintf("%s%-9s", indent, k[0])
		width := len([]rune(line))
		for _, word := range strings.Fields(k[1]) {
			if n := len([]rune(word)); width+1+n > columns {
				b.WriteString(line + "\n")
				line, width = pad+word, len([]rune(pad))+n
				continue
			}
			line += " " + word
			width += 1 + len([]rune(word))
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// helpBoxWidth is a help box's width on a screen that has the room.
const helpBoxWidth = 100

// HelpLastLine ends every help box: on a short terminal it is reached by
// scrolling.
const HelpLastLine = "Esc, q, ? or Enter closes this help."

// helpBox is a help's text view laid out again whenever its width
// changes, so the key table wraps under itself in a narrow box instead of
// being wrapped a second time at the box's edge.
type helpBox struct {
	*tview.TextView
	text  func(columns int) string
	width int
}

func (h *helpBox) Draw(screen tcell.Screen) {
	if _, _, w, _ := h.GetInnerRect(); w != h.width {
		h.width = w
		h.SetText(h.text(helpColumns(w)))
	}
	h.TextView.Draw(screen)
}

// helpColumns is the key table's width in a box w columns wide inside
// (tview keeps its last column free).
func helpColumns(w int) int { return max(min(KeyColumns, w-1), 20) }

// ShowHelp opens a scrolling help box over pages; text lays the help out
// for a key table so many columns wide; closed calls back.
func ShowHelp(app *tview.Application, pages *tview.Pages, text func(columns int) string, closed func()) {
	_, _, w, _ := pages.GetRect()
	first := text(helpColumns(min(w, helpBoxWidth) - 2))
	view := &helpBox{TextView: tview.NewTextView().SetText(first).SetWrap(true).SetWordWrap(true), text: text}
	view.SetBorder(true).SetTitle(" help ─ ↑↓ PgUp PgDn scroll, Esc closes ")
	view.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		switch {
		case ev.Key() == tcell.KeyEscape, ev.Key() == tcell.KeyEnter,
			ev.Key() == tcell.KeyRune && (ev.Rune() == 'q' || ev.Rune() == '?'):
			pages.RemovePage("help")
			closed()
			return nil
		}
		return ev
	})
	pages.AddPage("help", &Overlay{Primitive: view, W: helpBoxWidth, H: strings.Count(first, "\n") + 8}, true, true)
	app.SetFocus(view)
}
