package proxyscreen

import (
	"strings"
	"testing"

	"jitterlab/tui/widget"

	"github.com/gdamore/tcell/v2"
)

// On a screen narrower than the key table's 76 columns (the proxy's
// screen opens at 64×20) the help lays the table out at the box's width:
// each row is a key with the start of what it does, or the rest of it
// indented under it — never the tail of a row wrapped again to the box's
// left edge ("down); PgUp PgDn" under "↑ ↓ ← →", then "by ten" indented).
func TestHelpKeyTableFitsANarrowBox(t *testing.T) {
	for _, w := range []int{64, 70, 80, 100} { // the box spans the screen up to 100 columns
		v, _, screen := proxyAt(t, w, 20)
		proxyKey(v, tcell.NewEventKey(tcell.KeyRune, '?', 0))
		var table []string
		charts := false                      // the key table ends where the charts' paragraph begins
		for i := 0; i < 60 && !charts; i++ { // scroll the whole table through the box
			drawProxy(v, screen)
			for _, l := range widget.ScreenRows(screen)[1:19] {
				inner := strings.TrimRight(strings.TrimPrefix(strings.TrimSuffix(l, "║"), "║"), " ")
				if charts = strings.HasPrefix(inner, "Charts,"); charts {
					break
				}
				if len(table) == 0 || table[len(table)-1] != inner {
					table = append(table, inner)
				}
			}
			proxyKey(v, tcell.NewEventKey(tcell.KeyDown, 0, 0))
		}
		if !charts {
			t.Fatalf("%d columns: scrolling never reached the charts' paragraph after the key table", w)
		}
		for _, row := range table {
			if row == "" || strings.HasPrefix(row, strings.Repeat(" ", 10)) {
				continue
			}
			key := false
			for _, k := range proxyKeys {
				key = key || strings.HasPrefix(row, k[0]+" ")
			}
			if !key {
				t.Errorf("%d columns: the help row %q is neither a key nor indented under one", w, row)
			}
		}
	}
}

// The help's paragraph about the charts wraps at the box's edge, not in
// the middle of a line (issue 12.4): at 80×24 every line of it but its
// last is full as far as the next word allows.
func TestProxyHelpWrapsAtTheBoxEdge(t *testing.T) {
	v, _, screen := proxyAt(t, 80, 24)
	proxyKey(v, tcell.NewEventKey(tcell.KeyRune, '?', 0))
	for range 40 { // to the end of the help: the paragraph shows whole
		proxyKey(v, tcell.NewEventKey(tcell.KeyDown, 0, 0))
	}
	drawProxy(v, screen)
	var para []string
	for _, l := range widget.ScreenRows(screen) {
		inner := strings.TrimRight(strings.Trim(l, "║"), " ")
		if strings.HasPrefix(inner, "Charts,") || len(para) > 0 && inner != "" && !strings.HasPrefix(inner, "═") {
			para = append(para, inner)
		} else if len(para) > 0 {
			break
		}
	}
	width := len([]rune(strings.Trim(widget.ScreenRows(screen)[1], "║")))
	if len(para) < 3 {
		t.Fatalf("no chart paragraph in the help: %q", para)
	}
	for i := 0; i+1 < len(para); i++ {
		next := strings.Fields(para[i+1])[0]
		if len([]rune(para[i]))+1+len([]rune(next)) < width { // tview keeps the last column free

			t.Errorf("the help breaks the line %q before %q, which fits in %d columns", para[i], next, width)
		}
	}
}
