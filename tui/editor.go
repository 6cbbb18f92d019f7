package tui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/lab"
	"jitterlab/tui/widget"
)

// editorRow is one line of the editor: a group heading, a link knob with
// an up and a down key, or one key.
type editorRow struct {
	label   string
	keys    []string
	heading bool
}

// linkLabels name the link knobs in the editor (the key's last part
// otherwise, with spaces for underscores).
var linkLabels = map[string]string{"jitter_dist": "distribution", "jitter_corr": "correlation", "loss_burst": "loss burst"}

// editorRows are every key that can change during a run, from the
// registry, grouped: the link (up and down side by side), the client (and
// its input script), the server.
var editorRows = buildEditorRows()

func buildEditorRows() []editorRow {
	label := func(key string) string {
		name := key[strings.Index(key, ".")+1:]
		if l, ok := linkLabels[name]; ok {
			return l
		}
		if strings.HasPrefix(key, "input.") {
			name = key
		}
		return strings.NewReplacer("_", " ", ".", " ").Replace(name)
	}
	groups := []struct {
		name  string
		match func(key string) bool
	}{
		{"link", func(k string) bool { return strings.HasPrefix(k, "up.") }},
		{"client", func(k string) bool { return strings.HasPrefix(k, "client.") || strings.HasPrefix(k, "input.") }},
		{"server", func(k string) bool { return strings.HasPrefix(k, "server.") }},
		{"remote view", func(k string) bool { return strings.HasPrefix(k, "view.") }},
	}
	var rows []editorRow
	for _, g := range groups {
		rows = append(rows, editorRow{label: g.name, heading: true})
		for _, p := range lab.Params() {
			if !p.Live || !g.match(p.Key) {
				continue
			}
			keys := []string{p.Key}
			if g.name == "link" {
				keys = append(keys, "down."+strings.TrimPrefix(p.Key, "up."))
			}
			rows = append(rows, editorRow{label: label(p.Key), keys: keys})
		}
	}
	return rows
}

// Editor column widths: the label, then one value column per direction
// (a single key's value may use both).
const (
	labelCol = 13
	valueCol = 13
)

// Editor shows the parameters in force and lets the user step or type
// them. It holds no model state: it reads values with Get and sends changes
// to its owner through Set.
type Editor struct {
	*tview.Box
	rows     []editorRow
	row, col int
	top      int // first row shown
	Get      func(key string) string
	Set      func(key, value string) error
}

// NewEditor returns an editor on the first key, up column.
func NewEditor() *Editor { return newEditor(editorRows) }

// NewLinkEditor is an editor of the link's keys only (up and down), as the
// proxy's screen has.
func NewLinkEditor() *Editor {
	var rows []editorRow
	for i, r := range editorRows {
		if i > 0 && r.heading {
			break
		}
		rows = append(rows, r)
	}
	return newEditor(rows)
}

func newEditor(rows []editorRow) *Editor {
	e := &Editor{Box: tview.NewBox(), rows: rows, row: 1}
	e.SetBorder(true).SetTitle(" parameters ").SetTitleAlign(tview.AlignLeft)
	return e
}

// Key is the registry key under the cursor.
func (e *Editor) Key() string {
	r := e.rows[e.row]
	return r.keys[min(e.col, len(r.keys)-1)]
}

// MoveKey moves the cursor for a navigation key (the arrows, page up and
// page down) and reports whether k is one.
func (e *Editor) MoveKey(k tcell.Key) bool {
	switch k {
	case tcell.KeyUp:
		e.Move(-1, 0)
	case tcell.KeyDown:
		e.Move(1, 0)
	case tcell.KeyLeft:
		e.Move(0, -1)
	case tcell.KeyRight:
		e.Move(0, 1)
	case tcell.KeyPgUp:
		e.Move(-10, 0)
	case tcell.KeyPgDn:
		e.Move(10, 0)
	default:
		return false
	}
	return true
}

// Move moves the cursor by rows and columns, within bounds, over the
// headings.
func (e *Editor) Move(dRow, dCol int) {
	e.col = min(max(e.col+dCol, 0), 1)
	step := 1
	if dRow < 0 {
		step, dRow = -1, -dRow
	}
	for range dRow {
		next := e.row + step
		for next >= 0 && next < len(e.rows) && e.rows[next].heading {
			next += step
		}
		if next < 0 || next >= len(e.rows) {
			break
		}
		e.row = next
	}
}

// Step changes the value under the cursor one step up (dir > 0) or down.
func (e *Editor) Step(dir int) error {
	key := e.Key()
	next, err := stepValue(key, e.Get(key), dir)
	if err != nil {
		return err
	}
	return e.Set(key, next)
}

// scroll keeps the cursor row (and its group's heading when it fits) in a
// window of h rows.
func (e *Editor) scroll(h int) {
	if h <= 0 {
		return
	}
	if e.row < e.top {
		e.top = e.row
		if e.top > 0 && e.rows[e.top-1].heading {
			e.top--
		}
	}
	if e.row >= e.top+h {
		e.top = e.row - h + 1
	}
	e.top = max(min(e.top, len(e.rows)-h), 0)
}

// Draw draws the rows with the cursor cell highlighted; on a short
// terminal it scrolls with the cursor and its title says which rows show.
func (e *Editor) Draw(screen tcell.Screen) {
	x, y, w, h := e.GetInnerRect()
	e.scroll(h)
	if h < len(e.rows) {
		e.SetTitle(fmt.Sprintf(" parameters %d–%d of %d ", e.top+1, min(e.top+h, len(e.rows)), len(e.rows)))
	} else {
		e.SetTitle(" parameters ")
	}
	widget.DrawFrame(screen, e.Box, e.HasFocus())
	selected := tcell.StyleDefault.Reverse(true)
	for i := e.top; i < len(e.rows) && i-e.top < h; i++ {
		r, line := e.rows[i], y+i-e.top
		if r.heading {
			text := "── " + r.label + " "
			if r.label == "link" {
				text = fmt.Sprintf("%-*s%-*s%s", labelCol+2, "── link", valueCol, "up", "down")
			}
			tview.Print(screen, text, x, line, w, tview.AlignLeft, tcell.ColorTeal)
			continue
		}
		tview.Print(screen, r.label, x+1, line, labelCol, tview.AlignLeft, tcell.ColorSilver)
		for c, key := range r.keys {
			width := valueCol
			if len(r.keys) == 1 {
				width = w - labelCol - 2
			}
			st := tcell.StyleDefault
			if i == e.row && (c == e.col || len(r.keys) == 1) {
				st = selected
			}
			cx := x + labelCol + 2 + c*valueCol
			val := []rune(e.Get(key))
			for j := range min(width-1, x+w-cx) {
				ch := ' '
				if j < len(val) {
					ch = val[j]
				}
				if ch != ' ' || st != tcell.StyleDefault {
					screen.SetContent(cx+j, line, ch, nil, st)
				}
			}
		}
	}
}

// stepValue is key's value one step from cur in direction dir, as the
// registry declares the key's step.
func stepValue(key, cur string, dir int) (string, error) {
	p, ok := lab.Lookup(key)
	if !ok {
		return "", lab.CheckAssignment(key, cur)
	}
	if p.Step == nil {
		return "", fmt.Errorf("%s has no step; press Enter to type a value", key)
	}
	return p.Step(key, cur, dir)
}

// rowsCovered checks that every editor key exists in the registry.
func rowsCovered() error {
	for _, r := range editorRows {
		for _, k := range r.keys {
			if _, ok := lab.Lookup(k); !ok {
				return fmt.Errorf("editor row %q: %s is not a registry key", r.label, k)
			}
		}
	}
	return nil
}
