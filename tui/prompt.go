package tui

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// prompt opens a one-line input field over the lab, pre-filled with
// initial and selected as a whole, as GUI fields are: typing replaces it,
// Backspace clears it, an arrow or Home/End keeps it to edit. Enter calls
// done with the text: the field closes if done accepts it (true), and
// stays open with the text, to correct, if done refuses it (the status
// line says why). Esc cancels.
func (a *App) prompt(title, label, initial string, width int, done func(text string) bool) {
	a.editing = true
	openPromptUntil(a.app, a.pages.Pages, title, label, initial, width, func(text string) bool {
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

// openPrompt opens the field over pages; closed is called after done (or
// Esc) when it has closed.
func openPrompt(app *tview.Application, pages *tview.Pages, title, label, initial string, width int, done func(text string), closed func()) {
	openPromptUntil(app, pages, title, label, initial, width, func(text string) bool { done(text); return true }, closed)
}

// openPromptUntil is openPrompt whose Enter closes the field only when
// done accepts the text.
func openPromptUntil(app *tview.Application, pages *tview.Pages, title, label, initial string, width int, done func(text string) bool, closed func()) {
	field := newPromptField(label, initial, width)
	field.SetBorder(true).SetTitle(title)
	field.SetDoneFunc(func(k tcell.Key) {
		if k == tcell.KeyEnter && !done(field.GetText()) {
			return // refused: the text stays, to correct
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
