package tui

import (
	"fmt"

	"github.com/rivo/tview"

	"jitterlab/tui/preset"
)

// preset applies preset i now, as a whole link, and names it in the
// header.
func (a *App) preset(i int) {
	if i >= len(preset.Keys) {
		return
	}
	name := preset.Keys[i]
	changes, desc, err := preset.Changes(a.s.Config(), name)
	if err == nil {
		for _, c := range changes {
			if err = a.s.Schedule(a.s.Now(), c[0], c[1]); err != nil {
				break
			}
		}
	}
	if err == nil {
		err = a.s.Run(a.s.Now())
	}
	if err != nil {
		a.status = "[red]preset " + name + ": " + tview.Escape(err.Error())
		return
	}
	a.name = name
	a.status = fmt.Sprintf("[green]preset %d: %s[-] (%d changes) %s", i+1, name, len(changes), tview.Escape(desc))
	a.syncAB()
}
