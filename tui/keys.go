package tui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/lab"
)

// presetKeys are the scenarios bound to keys 1–9 (their parameters only).
var presetKeys = []string{"perfect", "lan", "home-fiber", "home-broadband", "home-congested", "mobile-4g", "mobile-3g", "unreal-bad", "jitter-fix"}

// onKey dispatches a key to its named handler; handlers are methods so
// tests call them directly.
func (a *App) onKey(ev *tcell.EventKey) *tcell.EventKey {
	if a.editing {
		return ev // the input field has the keys
	}
	switch ev.Key() {
	case tcell.KeyUp:
		a.editor.Move(-1, 0)
	case tcell.KeyDown:
		a.editor.Move(1, 0)
	case tcell.KeyLeft:
		a.editor.Move(0, -1)
	case tcell.KeyRight:
		a.editor.Move(0, 1)
	case tcell.KeyEnter:
		a.startEdit()
	case tcell.KeyCtrlC:
		a.quit()
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
		case r == 'e':
			a.export()
		case r == 'r':
			a.restartKey()
		case r == 'R':
			a.toggleRecord()
		case r == 'b':
			a.toggleAB()
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
		a.status = "end of the run; r restarts"
	}
}

func (a *App) faster() { a.speed = min(a.speed+1, len(speeds)-1) }
func (a *App) slower() { a.speed = max(a.speed-1, 0) }
func (a *App) zoom()   { a.window = (a.window + 1) % len(windows) }

func (a *App) step(dir int) {
	if err := a.editor.Step(dir); err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
	}
}

// preset applies the parameters of preset i (not its timeline) now.
func (a *App) preset(i int) {
	if i >= len(presetKeys) {
		return
	}
	sc, err := lab.LoadScenario(presetKeys[i])
	if err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
		return
	}
	cfg := a.s.Config()
	for _, p := range sc.Params {
		if err := lab.Set(&cfg, p.Key, p.Value); err != nil {
			a.status = "[red]" + tview.Escape(err.Error())
			return
		}
	}
	for _, p := range sc.Params {
		if err := a.s.Schedule(a.s.Now(), p.Key, p.Value); err != nil {
			a.status = "[red]" + tview.Escape(err.Error())
			return
		}
	}
	if err := a.s.Run(a.s.Now()); err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
		return
	}
	a.status = fmt.Sprintf("[green]preset %d: %s[-] (%s)", i+1, sc.Name, sc.Description)
	a.syncAB()
}

func (a *App) export() {
	path, err := a.exportCSV()
	if err != nil {
		a.status = "[red]export: " + tview.Escape(err.Error())
		return
	}
	a.status = "[green]wrote " + path
}

func (a *App) toggleRecord() {
	if a.rec != nil {
		path, err := a.stopRecording()
		if err != nil {
			a.status = "[red]recording: " + tview.Escape(err.Error())
			return
		}
		a.status = "[green]recorded " + path + "[-]; lab replay " + path + " --verify checks it"
		return
	}
	if err := a.startRecording(); err != nil {
		a.status = "[red]recording: " + tview.Escape(err.Error())
		return
	}
	a.status = "[red]●[-] recording to " + a.recPath + " (from t 0); R stops"
}

func (a *App) restartKey() {
	a.ab = nil
	if _, err := a.stopRecording(); err != nil {
		a.status = "[red]recording: " + tview.Escape(err.Error())
	}
	if err := a.restart(); err != nil {
		a.status = "[red]" + tview.Escape(err.Error())
		return
	}
	a.paused = false
	a.status = "restarted from t 0 with the same seed and settings"
}

func (a *App) quit() {
	a.app.Stop()
}

// startEdit opens a field to type the value under the cursor.
func (a *App) startEdit() {
	key := a.editor.Key()
	a.prompt(" enter a value, Esc cancels ", key+" = ", a.editor.Get(key), 20, func(text string) {
		a.set(key, strings.TrimSpace(text))
	})
}

// prompt opens a one-line input field over the lab; Enter calls done with
// the text, Esc cancels; either way the field closes.
func (a *App) prompt(title, label, initial string, width int, done func(text string)) {
	field := tview.NewInputField().SetLabel(label).SetText(initial).SetFieldWidth(width)
	field.SetBorder(true).SetTitle(title)
	field.SetDoneFunc(func(k tcell.Key) {
		if k == tcell.KeyEnter {
			done(field.GetText())
		}
		a.editing = false
		a.pages.RemovePage("prompt")
		a.app.SetFocus(a.editor)
		a.refresh()
	})
	a.editing = true
	a.pages.AddPage("prompt", center(field, width+len(label)+10, 3), true, true)
	a.app.SetFocus(field)
}

// help shows the keys and what the charts mean.
func (a *App) help() {
	var presets []string
	for i, p := range presetKeys {
		presets = append(presets, fmt.Sprintf("%d %s", i+1, p))
	}
	text := strings.Join([]string{
		"space      pause / run            < >   slower / faster (0.1× … 1000×)",
		"↑ ↓        select a parameter     ← →   up / down direction",
		"+ -        step the value         enter type a value (as on the command line)",
		"z          chart window 10s/30s/2m e     export the timeline to CSV",
		"r          restart, same seed     R     record (zstd) / stop; lab replay reads it",
		"b          A/B: run B (your settings) on the same seed beside A, drawn in white; b ends it",
		"q          quit",
		"",
		"presets: " + strings.Join(presets, ", "),
		"",
		"tick offset: server tick − client tick − start tick; outside ±band the",
		"corrector latches the fast or slow send interval. visible error: how far",
		"the drawn tank is from the predicted one; past the snap line it snaps.",
		"",
		"press any key to close",
	}, "\n")
	view := tview.NewTextView().SetText(text)
	view.SetBorder(true).SetTitle(" help ")
	a.editing = true
	view.SetInputCapture(func(*tcell.EventKey) *tcell.EventKey {
		a.editing = false
		a.pages.RemovePage("help")
		a.app.SetFocus(a.editor)
		return nil
	})
	a.pages.AddPage("help", center(view, 84, 16), true, true)
	a.app.SetFocus(view)
}

func center(p tview.Primitive, w, h int) tview.Primitive {
	return tview.NewFlex().
		AddItem(nil, 0, 1, false).
		AddItem(tview.NewFlex().SetDirection(tview.FlexRow).
			AddItem(nil, 0, 1, false).
			AddItem(p, h, 0, true).
			AddItem(nil, 0, 1, false), w, 0, true).
		AddItem(nil, 0, 1, false)
}
