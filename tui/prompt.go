package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// prompt opens a one-line input field over the lab, pre-filled with
// initial and selected as a whole, as GUI fields are: typing replaces it,
// Backspace clears it, an arrow or Home/End keeps it to edit. Enter calls
// done with the text, Esc cancels; either way the field closes.
func (a *App) prompt(title, label, initial string, width int, done func(text string)) {
	a.editing = true
	openPrompt(a.app, a.pages.Pages, title, label, initial, width, done, func() {
		a.editing = false
		a.app.SetFocus(a.editor)
		a.refresh()
	})
}

// openPrompt opens the field over pages; closed is called after done (or
// Esc) when it has closed.
func openPrompt(app *tview.Application, pages *tview.Pages, title, label, initial string, width int, done func(text string), closed func()) {
	field := newPromptField(label, initial, width)
	field.SetBorder(true).SetTitle(title)
	field.SetDoneFunc(func(k tcell.Key) {
		if k == tcell.KeyEnter {
			done(field.GetText())
		}
		pages.RemovePage("prompt")
		closed()
	})
	pages.AddPage("prompt", &overlay{Primitive: field, w: width + len(label) + 4, h: 3}, true, true)
	app.SetFocus(field)
}

// newPromptField is an input field whose pre-filled text is selected.
func newPromptField(label, initial string, width int) *tview.InputField {
	field := tview.NewInputField().SetLabel(label).SetText(initial).SetFieldWidth(width)
	normal := tcell.StyleDefault.Background(tview.Styles.ContrastBackgroundColor).Foreground(tview.Styles.PrimaryTextColor)
	field.SetFieldStyle(normal.Reverse(true))
	selected := true
	field.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		if !selected {
			return ev
		}
		selected = false
		field.SetFieldStyle(normal)
		switch ev.Key() {
		case tcell.KeyRune:
			field.SetText("")
		case tcell.KeyBackspace, tcell.KeyBackspace2, tcell.KeyDelete, tcell.KeyCtrlU:
			field.SetText("")
			return nil
		}
		return ev
	})
	return field
}
