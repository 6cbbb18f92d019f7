package proxyscreen

import (
	"strings"

	"jitterlab/lab"
	"jitterlab/param"
	"jitterlab/tui/widget"
)

// newLinkEditor is the link's editor: every link key of the lab's
// registry that can change during a run, up and down side by side, each
// stepped as the registry declares it.
func newLinkEditor() *widget.Editor {
	var up []string
	for _, p := range lab.Params() {
		if p.Live && strings.HasPrefix(p.Key, "up.") {
			up = append(up, p.Key)
		}
	}
	e := widget.NewEditor(widget.LinkRows(up))
	e.Steps = func(key string) param.Step {
		p, _ := lab.Lookup(key)
		return p.Step
	}
	return e
}
