package tui

import (
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/tui/preset"
)

// After any preset, then any other, the session's link is exactly the
// second preset's link on the perfect link: nothing of the first remains.
func TestPresetSetsTheWholeLink(t *testing.T) {
	want := make([]lab.Config, len(preset.Keys))
	for j, name := range preset.Keys {
		want[j], _ = scenarioConfig(t, name)
	}
	for i := range preset.Keys {
		a, _ := labAt(t, 80, 24)
		a.advance(time.Second)
		press(a, rune('1'+i))
		for j := range preset.Keys {
			a.advance(time.Second / 10)
			press(a, rune('1'+j))
			if c := a.s.Config(); c.Up != want[j].Up || c.Down != want[j].Down {
				t.Fatalf("preset %s after %s: up %+v down %+v, want up %+v down %+v", preset.Keys[j], preset.Keys[i], c.Up, c.Down, want[j].Up, want[j].Down)
			}
			if a.name != preset.Keys[j] {
				t.Fatalf("header names %q after preset %s", a.name, preset.Keys[j])
			}
		}
	}
}
