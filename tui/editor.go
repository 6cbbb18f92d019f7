package tui

import (
	"fmt"
	"slices"
	"strings"

	"jitterlab/lab"
	"jitterlab/param"
	"jitterlab/tui/widget"
)

// editorRows are every key that can change during a run, from the
// registry, grouped: the link (up and down side by side), the client (and
// its input script), the server, the remote view.
var editorRows = buildEditorRows()

func buildEditorRows() []widget.EditorRow {
	live := func(match func(key string) bool) []string {
		var keys []string
		for _, p := range lab.Params() {
			if p.Live && match(p.Key) {
				keys = append(keys, p.Key)
			}
		}
		return keys
	}
	rows := widget.LinkRows(live(func(k string) bool { return strings.HasPrefix(k, "up.") }))
	for _, g := range []struct {
		name     string
		prefixes []string
	}{
		{"client", []string{"client.", "input."}},
		{"server", []string{"server."}},
		{"remote view", []string{"view."}},
	} {
		rows = append(rows, widget.EditorRow{Label: g.name, Heading: true})
		for _, k := range live(func(k string) bool {
			return slices.ContainsFunc(g.prefixes, func(p string) bool { return strings.HasPrefix(k, p) })
		}) {
			name := k[strings.Index(k, ".")+1:]
			if strings.HasPrefix(k, "input.") {
				name = k
			}
			rows = append(rows, widget.EditorRow{Label: strings.NewReplacer("_", " ", ".", " ").Replace(name), Keys: []string{k}})
		}
	}
	return rows
}

// NewEditor returns an editor of every key that can change during a run,
// on the first key, up column, stepping each as the registry declares.
func NewEditor() *widget.Editor {
	e := widget.NewEditor(editorRows)
	e.Steps = labStep
	return e
}

// labStep is key's step as the registry declares it (nil: typed).
func labStep(key string) param.Step {
	p, _ := lab.Lookup(key)
	return p.Step
}

// rowsCovered checks that every editor key exists in the registry.
func rowsCovered() error {
	for _, r := range editorRows {
		for _, k := range r.Keys {
			if _, ok := lab.Lookup(k); !ok {
				return fmt.Errorf("editor row %q: %s is not a registry key", r.Label, k)
			}
		}
	}
	return nil
}
