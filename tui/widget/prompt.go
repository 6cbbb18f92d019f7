package widget

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// OpenPrompt opens a one-line input field over pages, pre-filled with
// initial and selected as a whole: typing replaces it, Backspace clears
// it, an arrow or Home/End keeps it to edit; done is called with the text
// on Enter; closed is called after done (or
// Esc) when it has closed.
func OpenPrompt(app *tview.Application, pages *tview.Pages, title, label, initial string, width int, done func(text string), closed func()) {
	OpenPromptUntil(app, pages, title, label, initial, width, func(text string) bool { done(text); return true }, closed)
}

// OpenPromptUntil is OpenPrompt whose Enter closes the field only when
// done accepts the text.
func OpenPromptUntil(app *tview.Application, pages *tview.Pages, title, label, initial string, width int, done func(text string) bool, closed func()) {
	field := newPromptField(label, initial, width)
	field.SetBorder(true).SetTitle(title)
	field.SetDoneFunc(func(k tcell.Key) {
		if k == tcell.KeyEnter && !done(field.GetText()) {
			return // refused: the text stays, to correct
		}
		pages.RemovePage("prompt")
		closed()
	})
	pages.AddPage("prompt", &Overlay{Primitive: field, W: width + len(label) + 4, H: 3}, true, true)
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
