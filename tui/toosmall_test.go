package tui

import (
	"fmt"
	"strings"
	"testing"

	"jitterlab/tui/widget"

	"github.com/gdamore/tcell/v2"
)

// The "terminal too small" message fits however narrow the terminal
// (shorter wording as it narrows), on the lab's screen (the proxy's:
// proxyscreen's TestTooSmallMessageOnTheProxysScreen):
// it says the size needed, the size now and how to quit, none of it
// clipped, from 10 columns and 4 rows up.
func TestTooSmallMessageFitsNarrowTerminals(t *testing.T) {
	lab, labScreen := labAt(t, 80, 24)
	for _, s := range []struct {
		name   string
		screen tcell.SimulationScreen
		draw   func() string
	}{
		{"lab", labScreen, func() string { return draw(lab, labScreen) }},
	} {
		for w := 10; w < widget.MinWidth; w++ {
			for _, h := range []int{4, 12, widget.MinHeight + 5} {
				s.screen.SetSize(w, h)
				out := strings.Join(strings.Fields(s.draw()), " ")
				for _, want := range []string{"too small", fmt.Sprintf("need %d×%d", widget.MinWidth, widget.MinHeight), fmt.Sprintf("now %d×%d", w, h), "q quits"} {
					if !strings.Contains(out, want) {
						t.Errorf("%s at %d×%d: no %q on screen: %q", s.name, w, h, want, out)
					}
				}
			}
		}
	}
}
