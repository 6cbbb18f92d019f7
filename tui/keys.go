package tui

import (
	"strings"

	"jitterlab/tui/widget"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// onKey dispatches a key to its named handler; handlers are methods so
// tests call them directly.
func (a *App) onKey(ev *tcell.EventKey) *tcell.EventKey {
	if a.editing {
		return ev // the prompt or the help has the keys
	}
	if a.logShown() && a.log.Key(ev.Key()) { // the c panel scrolls
		a.refresh()
		return nil
	}
	if a.editor.MoveKey(ev.Key()) {
		a.refresh()
		return nil
	}
	switch ev.Key() {
	case tcell.KeyEnter:
		a.startEdit()
	case tcell.KeyCtrlC:
		a.quit()
	case tcell.KeyEscape:
		a.cancelDiagnosis()
	case tcell.KeyRune:
		switch r := ev.Rune(); {
		case r == ' ':
			a.togglePause()
		case r == '<' || r == ',':
			a.slower()
		case r == '>' || r == '.':
			a.faster()
		case r == '+' || r == '=':
			a.step(1)
		case r == '-' || r == '_':
			a.step(-1)
		case r >= '1' && r <= '9':
			a.preset(int(r - '1'))
		case r == 'z':
			a.zoom()
		case r == 'c':
			a.toggleLog()
		case r == 'e':
			a.export()
		case r == 'r':
			a.restartKey()
		case r == 'R':
			a.toggleRecord()
		case r == 'b':
			a.toggleAB()
		case r == 'd':
			a.diagnoseKey()
		case r == 'a':
			a.applyRecommended()
		case r == 'p':
			a.toggleCard()
		case r == '?':
			a.help()
		case r == 'q':
			a.quit()
		default:
			return ev
		}
	default:
		return ev
	}
	a.refresh()
	return nil
}

func (a *App) togglePause() {
	a.paused = !a.paused
	if !a.paused && a.s.Done() {
		a.paused = true
		a.status = a.endText()
	}
}

func (a *App) faster()    { a.speed = min(a.speed+1, len(speeds)-1) }
func (a *App) slower()    { a.speed = max(a.speed-1, 0) }
func (a *App) zoom()      { a.window = (a.window + 1) % len(widget.Windows) }
func (a *App) toggleLog() { a.showLog(!a.logShown()) }

func (a *App) step(dir int) {
	if err := a.editor.Step(dir); err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
	}
}

// restartKey starts over from t 0 on the same seed with the settings in
// force now (live edits and presets kept); the scenario's timeline plays
// again. A/B and an open recording end first.
func (a *App) restartKey() {
	a.ab = nil
	closed := ""
	if a.rec != nil {
		a.closeRecording() // its name, or why closing failed, comes first
		closed = a.status + "[-]; "
	}
	cfg := a.s.Config()
	if err := a.restart(cfg); err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
		return
	}
	a.paused = false
	a.status = closed + "restarted from t 0, same seed, with the settings in force"
}

func (a *App) quit() {
	a.app.Stop()
}

// startEdit opens a field to type the value under the cursor.
func (a *App) startEdit() {
	key := a.editor.Key()
	a.prompt(" Enter sets, Esc cancels ", key+" = ", a.editor.Get(key), 24, func(text string) bool {
		return a.set(key, strings.TrimSpace(text)) == nil
	})
}
