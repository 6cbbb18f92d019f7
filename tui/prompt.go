package tui

import (
	"jitterlab/tui/widget"
)

// prompt opens a one-line input field over the lab, pre-filled with
// initial and selected as a whole, as GUI fields are: typing replaces it,
// Backspace clears it, an arrow or Home/End keeps it to edit. Enter calls
// done with the text: the field closes if done accepts it (true), and
// stays open with the text, to correct, if done refuses it (the status
// line says why). Esc cancels.
func (a *App) prompt(title, label, initial string, width int, done func(text string) bool) {
	a.editing = true
	widget.OpenPromptUntil(a.app, a.pages.Pages, title, label, initial, width, func(text string) bool {
		ok := done(text)
		if !ok {
			a.refresh() // the reason, on the status line
		}
		return ok
	}, func() {
		a.editing = false
		a.app.SetFocus(a.editor)
		a.refresh()
	})
}
