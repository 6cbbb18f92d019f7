package tui

import (
	"fmt"
	"strings"

	"github.com/rivo/tview"

	"jitterlab/lab"
)

// PresetKeys are the scenarios bound to keys 1–9.
var PresetKeys = []string{"perfect", "lan", "home-fiber", "home-broadband", "home-congested", "mobile-4g", "mobile-3g", "unreal-bad", "jitter-fix"}

// PresetChanges are the assignments that turn cur into preset name as a
// whole link: the link starts from the perfect link's settings, then the
// preset's parameters apply (its timeline does not). Only the keys whose
// value changes are returned, in registry order.
func PresetChanges(cur lab.Config, name string) (changes [][2]string, description string, err error) {
	sc, err := lab.LoadScenario(name)
	if err != nil {
		return nil, "", err
	}
	next := cur
	def := lab.DefaultConfig()
	next.Up, next.Down = def.Up, def.Down
	for _, p := range sc.Params {
		if err := lab.Set(&next, p.Key, p.Value); err != nil {
			return nil, "", err
		}
	}
	if err := next.Validate(); err != nil {
		return nil, "", fmt.Errorf("preset %s: %w", name, err)
	}
	for _, p := range lab.Params() {
		if !p.Live || strings.HasPrefix(p.Key, "link.") {
			continue
		}
		if v := p.Get(&next); v != p.Get(&cur) {
			changes = append(changes, [2]string{p.Key, v})
		}
	}
	return changes, sc.Description, nil
}

// preset applies preset i now, as a whole link, and names it in the
// header.
func (a *App) preset(i int) {
	if i >= len(PresetKeys) {
		return
	}
	name := PresetKeys[i]
	changes, desc, err := PresetChanges(a.s.Config(), name)
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
