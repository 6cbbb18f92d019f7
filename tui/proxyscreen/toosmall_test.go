package proxyscreen

import (
	"fmt"
	"strings"
	"testing"

	"jitterlab/tui/widget"
)

// Below widget.MinWidth×MinHeight the proxy's screen says it is too
// small, the size it needs and the size now, as the lab's does, from 10
// columns and 4 rows up.
func TestTooSmallMessageOnTheProxysScreen(t *testing.T) {
	v, _, screen := proxyAt(t, 80, 24)
	for _, sz := range []struct{ w, h int }{{10, 4}, {40, 12}, {widget.MinWidth - 1, widget.MinHeight + 5}, {80, widget.MinHeight - 1}} {
		screen.SetSize(sz.w, sz.h)
		out := strings.Join(strings.Fields(drawProxy(v, screen)), " ")
		for _, want := range []string{"too small", fmt.Sprintf("need %d×%d", widget.MinWidth, widget.MinHeight), fmt.Sprintf("now %d×%d", sz.w, sz.h), "q quits"} {
			if !strings.Contains(out, want) {
				t.Errorf("at %d×%d: no %q on screen: %q", sz.w, sz.h, want, out)
			}
		}
	}
}
