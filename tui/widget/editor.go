package widget

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/param"
)

// An EditorRow is one line of an [Editor]: a group heading (with the
// titles of its value columns, if any), a link knob with an up and a down
// key, or one key.
type EditorRow struct {
	Label   string
	Keys    []string
	Heading bool
	Columns []string // a heading's column titles
}

// linkLabels name the link knobs in the editor (the key's last part
// otherwise, with spaces for underscores).
var linkLabels = map[string]string{"jitter_dist": "distribution", "jitter_corr": "correlation", "loss_burst": "loss burst"}

// LinkRows are the link's rows of an editor: a "link" heading over an up
// and a down column, then one row a knob of upKeys ("up.latency"), its up
// and its down key side by side.
func LinkRows(upKeys []string) []EditorRow {
	rows := []EditorRow{{Label: "link", Heading: true, Columns: []string{"up", "down"}}}
	for _, k := range upKeys {
		name := strings.TrimPrefix(k, "up.")
		label, ok := linkLabels[name]
		if !ok {
			label = strings.NewReplacer("_", " ", ".", " ").Replace(name)
		}
		rows = append(rows, EditorRow{Label: label, Keys: []string{k, "down." + name}})
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
// them. It holds no model state: it reads values with Get, sends changes
// to its owner through Set and steps a key's value with the step Steps
// gives (nil: the value is typed, not stepped).
type Editor struct {
	*tview.Box
	rows     []EditorRow
	row, col int
	top      int // first row shown
	Get      func(key string) string
	Set      func(key, value string) error
	Steps    func(key string) param.Step
}

// NewEditor returns an editor of rows, its cursor on the first key's up
// column (rows[1]: rows start with a heading).
func NewEditor(rows []EditorRow) *Editor {
	e := &Editor{Box: tview.NewBox(), rows: rows, row: 1}
	e.SetBorder(true).SetTitle(" parameters ").SetTitleAlign(tview.AlignLeft)
	return e
}

// Rows are the editor's rows.
func (e *Editor) Rows() []EditorRow { return e.rows }

// Row is the row under the cursor.
func (e *Editor) Row() EditorRow { return e.rows[e.row] }

// Key is the key under the cursor.
func (e *Editor) Key() string {
	r := e.rows[e.row]
	return r.Keys[min(e.col, len(r.Keys)-1)]
}

// Select puts the cursor on key; false: no row has it.
func (e *Editor) Select(key string) bool {
	for i, r := range e.rows {
		for c, k := range r.Keys {
			if k == key && !r.Heading {
				e.row, e.col = i, c
				return true
			}
		}
	}
	return false
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
		for next >= 0 && next < len(e.rows) && e.rows[next].Heading {
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
	next, err := StepValue(e.Steps(key), key, e.Get(key), dir)
	if err != nil {
		return err
	}
	return e.Set(key, next)
}

// StepValue is key's value one step from cur in direction dir by step;
// a nil step is an error that says to type the value.
func StepValue(step param.Step, key, cur string, dir int) (string, error) {
	if step == nil {
		return "", fmt.Errorf("%s has no step; press Enter to type a value", key)
	}
	return step(key, cur, dir)
}

// scroll keeps the cursor row (and its group's heading when it fits) in a
// window of h rows.
func (e *Editor) scroll(h int) {
	if h <= 0 {
		return
	}
	if e.row < e.top {
		e.top = e.row
		if e.top > 0 && e.rows[e.top-1].Heading {
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
	DrawFrame(screen, e.Box, e.HasFocus())
	selected := tcell.StyleDefault.Reverse(true)
	for i := e.top; i < len(e.rows) && i-e.top < h; i++ {
		r, line := e.rows[i], y+i-e.top
		if r.Heading {
			text := "── " + r.Label + " "
			if len(r.Columns) > 0 {
				text = fmt.Sprintf("%-*s", labelCol+2, "── "+r.Label)
				for c, title := range r.Columns {
					if c < len(r.Columns)-1 {
						title = fmt.Sprintf("%-*s", valueCol, title)
					}
					text += title
				}
			}
			tview.Print(screen, text, x, line, w, tview.AlignLeft, tcell.ColorTeal)
			continue
		}
		tview.Print(screen, r.Label, x+1, line, labelCol, tview.AlignLeft, tcell.ColorSilver)
		for c, key := range r.Keys {
			width := valueCol
			if len(r.Keys) == 1 {
				width = w - labelCol - 2
			}
			st := tcell.StyleDefault
			if i == e.row && (c == e.col || len(r.Keys) == 1) {
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
