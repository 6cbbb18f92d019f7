package tui

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/client"
	"jitterlab/lab"
	"jitterlab/netem"
	"jitterlab/param"
	"jitterlab/scenarios"
	"jitterlab/server"
)

// editorRow is one line of the editor: a link knob with an up and a down
// key, or one key.
type editorRow struct {
	label string
	keys  []string
}

func linkRow(label, name string) editorRow {
	return editorRow{label, []string{"up." + name, "down." + name}}
}

var editorRows = []editorRow{
	linkRow("latency", "latency"),
	linkRow("jitter", "jitter"),
	linkRow("distribution", "jitter_dist"),
	linkRow("correlation", "jitter_corr"),
	linkRow("loss", "loss"),
	linkRow("burst", "loss_burst"),
	linkRow("duplicate", "duplicate"),
	linkRow("reorder", "reorder"),
	linkRow("reorder gap", "reorder_gap"),
	linkRow("keep order", "keep_order"),
	linkRow("rate", "rate"),
	linkRow("queue", "queue"),
	{"client drift", []string{"client.drift_ppm"}},
	{"server drift", []string{"server.drift_ppm"}},
	{"sender", []string{"client.sender"}},
	{"corrector", []string{"client.corrector"}},
	{"predict", []string{"client.predict"}},
	{"replay", []string{"client.replay"}},
	{"smoothing", []string{"client.smoothing"}},
	{"server inputs", []string{"server.inputs"}},
	{"input script", []string{"input.script"}},
	{"snap (m)", []string{"client.snap"}},
	{"fps", []string{"client.fps"}},
}

// Editor shows the parameters in force and lets the user step or type
// them. It holds no model state: it reads values with Get and sends changes
// to its owner through Set.
type Editor struct {
	*tview.Box
	row, col int
	Get      func(key string) string
	Set      func(key, value string) error
}

// NewEditor returns an editor on the first row, up column.
func NewEditor() *Editor {
	e := &Editor{Box: tview.NewBox()}
	e.SetBorder(true).SetTitle(" link ─ up ─ down ").SetTitleAlign(tview.AlignLeft)
	return e
}

// Key is the registry key under the cursor.
func (e *Editor) Key() string {
	r := editorRows[e.row]
	return r.keys[min(e.col, len(r.keys)-1)]
}

// Move moves the cursor by rows and columns, within bounds.
func (e *Editor) Move(dRow, dCol int) {
	e.row = min(max(e.row+dRow, 0), len(editorRows)-1)
	e.col = min(max(e.col+dCol, 0), 1)
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

// Draw draws the rows with the cursor cell highlighted.
func (e *Editor) Draw(screen tcell.Screen) {
	e.Box.DrawForSubclass(screen, e)
	x, y, w, h := e.GetInnerRect()
	normal := tcell.StyleDefault
	selected := tcell.StyleDefault.Reverse(true)
	// Scroll so the cursor row is visible on a short terminal.
	top := max(0, e.row-h+1)
	for i, r := range editorRows {
		if i < top {
			continue
		}
		if i-top >= h {
			break
		}
		line := y + i - top
		tview.Print(screen, r.label, x+1, line, 15, tview.AlignLeft, tcell.ColorSilver)
		for c, key := range r.keys {
			st := normal
			if i == e.row && (c == e.col || len(r.keys) == 1) {
				st = selected
			}
			width := 11
			if len(r.keys) == 1 {
				width = 22
			}
			val := fmt.Sprintf("%-*s", width-1, e.Get(key))
			if len(val) > width-1 {
				val = val[:width-1]
			}
			cx := x + 17 + c*11
			for j, ch := range val {
				if cx+j < x+w {
					screen.SetContent(cx+j, line, ch, nil, st)
				}
			}
		}
	}
}

// stepValue is key's value one step from cur in direction dir.
func stepValue(key, cur string, dir int) (string, error) {
	name := key[strings.LastIndex(key, ".")+1:]
	d := 1
	if dir < 0 {
		d = -1
	}
	switch name {
	case "latency", "jitter":
		v, err := param.Duration(key, cur)
		if err != nil {
			return "", err
		}
		step := 5 * time.Millisecond
		if name == "jitter" && (v < 10*time.Millisecond || (v == 10*time.Millisecond && d < 0)) {
			step = time.Millisecond
		}
		return fmtDur(max(v+time.Duration(d)*step, 0)), nil
	case "jitter_dist":
		return cycle(netem.DistNames(), cur, d), nil
	case "jitter_corr":
		v, err := param.Float(key, cur, 0, 1)
		if err != nil {
			return "", err
		}
		return strconv.FormatFloat(math.Round(min(max(v+0.1*float64(d), 0), 1)*10)/10, 'g', -1, 64), nil
	case "loss", "duplicate", "reorder":
		v, err := param.Fraction(key, cur)
		if err != nil {
			return "", err
		}
		v = math.Round((v+0.005*float64(d))*1000) / 1000
		return param.FormatFraction(min(max(v, 0), 1)), nil
	case "loss_burst":
		return ladder([]string{"0", "2", "4", "8", "16"}, cur, d), nil
	case "reorder_gap":
		n, err := param.Int(key, cur, 0, 1e6)
		if err != nil {
			return "", err
		}
		return strconv.FormatInt(max(n+int64(d), 0), 10), nil
	case "keep_order":
		b, err := param.Bool(key, cur)
		return strconv.FormatBool(!b), err
	case "rate":
		return ladder([]string{"0", "64kbit", "256kbit", "1mbit", "4mbit", "16mbit"}, cur, d), nil
	case "queue":
		return ladder([]string{"0", "8", "16", "32", "64", "128"}, cur, d), nil
	case "drift_ppm":
		v, err := param.PPM(key, cur, 5e5)
		if err != nil {
			return "", err
		}
		return param.FormatPPM(v + 10*float64(d)), nil
	case "sender":
		return cycle(client.SenderNames, cur, d), nil
	case "corrector":
		return cycle(client.CorrectorNames, cur, d), nil
	case "predict":
		return cycle(client.PredictNames, cur, d), nil
	case "replay":
		return cycle(client.ReplayNames, cur, d), nil
	case "smoothing":
		return cycle(client.SmoothingNames, cur, d), nil
	case "inputs":
		return cycle(server.InputModes, cur, d), nil
	case "script":
		return cycle(scenarios.ScriptNames, cur, d), nil
	case "snap":
		v, err := param.Float(key, cur, 0, 1e6)
		if err != nil {
			return "", err
		}
		return strconv.FormatFloat(math.Round(max(v+0.1*float64(d), 0.1)*10)/10, 'g', -1, 64), nil
	case "fps":
		return ladder([]string{"30", "60", "120", "144", "240"}, cur, d), nil
	}
	return "", fmt.Errorf("%s has no step; press Enter to type a value", key)
}

func fmtDur(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// cycle returns the name after (or before) cur, wrapping around.
func cycle(names []string, cur string, d int) string {
	i := slices.Index(names, cur)
	return names[((i+d)%len(names)+len(names))%len(names)]
}

// ladder moves along fixed rungs; a value between rungs goes to the next
// rung in the direction of travel.
func ladder(rungs []string, cur string, d int) string {
	i := slices.Index(rungs, cur)
	if i < 0 {
		if d > 0 {
			return rungs[min(1, len(rungs)-1)]
		}
		return rungs[0]
	}
	return rungs[min(max(i+d, 0), len(rungs)-1)]
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
