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

// canonical is value as the registry prints key's values ("0.05s" is
// "50ms"), or value itself when it does not parse: the editor compares a
// typed value with the one in force this way.
func canonical(key, value string) string {
	p, ok := lab.Lookup(key)
	if !ok || p.Get == nil {
		return value
	}
	cfg := lab.DefaultConfig()
	if lab.Set(&cfg, key, value) != nil {
		return value
	}
	return p.Get(&cfg)
}
