package tui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// liveKeys are the live lab's keys and what they do: the help box, 'lab -h'
// and the README show this one list.
var liveKeys = [][2]string{
	{"space", "pause / run (a paused lab does not redraw)"},
	{"< >", "slower / faster: 0.1×, 0.25×, 0.5×, 1×, 2×, 5×, 10×, 100×, 1000×"},
	{"↑ ↓ ← →", "select a parameter and its direction (up / down); PgUp PgDn by ten"},
	{"+ -", "step the value (latency ±5 ms, loss ±0.5 %, durations by 1, 5, 10 or 100 ms, every enumerated key cycles its choices; a file or a loss model is typed with Enter)"},
	{"enter", "type a value as on the command line (80ms, 2%, normal): typing replaces the value shown; a bad one is refused with the reason"},
	{"1-9", "apply a preset as a whole link (link keys it does not name go to the perfect link's): " + strings.Join(presetKeys, ", ")},
	{"z", "chart window: 10 s, 30 s, 2 min"},
	{"c", "the scenario (description, source, timeline) and the change log in place of the editor: it opens on the scenario, ↑ ↓ PgUp PgDn Home End scroll it (End follows the newest change), its bottom edge says which lines show; ┴ on the charts' time axis marks each change"},
	{"e", "export the kept timeline (the last hour) to a new CSV file in --dir"},
	{"R", "record the whole session from t 0 to a new file in --dir, or stop; lab replay FILE reads and --verify checks it"},
	{"b", "A/B: run B (your settings; not sim.seed or sim.duration) on the same seed beside A from the settings in force, drawn in white; b ends it"},
	{"p", "the player's report card (judder, progress deficit, rubber bands, hesitations, snaps, corrections, local response, server input delay, visible lag) in place of the now box, or back"},
	{"d", "diagnose the scenario (its timeline included) with the live edits as --set, in the background, exactly as 'lab diagnose' on them: progress, then the ranked changes and the recommendation; d hides and shows the box, w wraps its lines, Esc cancels"},
	{"a", "run the diagnosis's recommended set as B beside A (A/B)"},
	{"r", "restart from t 0 on the same seed with the settings in force now (live edits kept; the scenario's timeline plays again); an open recording is closed and named"},
	{"?", "this help (↑ ↓ PgUp PgDn scroll, Esc closes)"},
	{"q Ctrl-C", "quit (exit status 0); an open recording is closed. SIGTERM and SIGHUP close it too, then the lab exits 128 + the signal (143, 129), as lab run does"},
}

// KeyHelp lists the live lab's keys, one per line, for 'lab -h'.
func KeyHelp() string { return keyLines(liveKeys, "  ", keyColumns) }

// keyColumns is the key table's width in 'lab -h' and in a help box that
// has the room.
const keyColumns = 76

// keyLines lays keys out as a table: the key, then what it does, wrapped
// at columns under itself.
func keyLines(keys [][2]string, indent string, columns int) string {
	var b strings.Builder
	pad := indent + strings.Repeat(" ", 10)
	for _, k := range keys {
		line := fmt.Sprintf("%s%-9s", indent, k[0])
		width := len([]rune(line))
		for _, word := range strings.Fields(k[1]) {
			if n := len([]rune(word)); width+1+n > columns {
				b.WriteString(line + "\n")
				line, width = pad+word, len([]rune(pad))+n
				continue
			}
			line += " " + word
			width += 1 + len([]rune(word))
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// helpBoxWidth is a help box's width on a screen that has the room.
const helpBoxWidth = 100

// helpLastLine ends every help box: on a short terminal it is reached by
// scrolling.
const helpLastLine = "Esc, q, ? or Enter closes this help."

const chartHelp = `Charts, newest at the right, each dot column the min–max of its samples:
tick offset: server tick − client tick − start tick; outside ±band the
corrector latches the fast or slow send interval. send interval: the 0.048
and 0.052 levels. visible error: how far the drawn tank is from the
predicted one; past the snap line it snaps. rtt with the RFC 3550 jitter
each way. ┴ on a chart's bottom edge marks a parameter change.`

// help shows the keys, the scenario and what the charts mean.
func (a *App) help() {
	var b strings.Builder
	if sc := a.opts.Scenario; sc != nil {
		fmt.Fprintf(&b, "scenario %s: %s\nsource: %s\n\n", sc.Name, sc.Description, sc.Source)
	}
	head := b.String()
	showHelp(a.app, a.pages.Pages, func(columns int) string {
		return head + keyLines(liveKeys, "", columns) + "\n" + chartHelp + "\n\n" + helpLastLine
	}, func() { a.editing = false; a.app.SetFocus(a.editor) })
	a.editing = true
}

// helpBox is a help's text view laid out again whenever its width
// changes, so the key table wraps under itself in a narrow box instead of
// being wrapped a second time at the box's edge.
type helpBox struct {
	*tview.TextView
	text  func(columns int) string
	width int
}

func (h *helpBox) Draw(screen tcell.Screen) {
	if _, _, w, _ := h.GetInnerRect(); w != h.width {
		h.width = w
		h.SetText(h.text(helpColumns(w)))
	}
	h.TextView.Draw(screen)
}

// helpColumns is the key table's width in a box w columns wide inside
// (tview keeps its last column free).
func helpColumns(w int) int { return max(min(keyColumns, w-1), 20) }

// showHelp opens a scrolling help box over pages; text lays the help out
// for a key table so many columns wide; closed calls back.
func showHelp(app *tview.Application, pages *tview.Pages, text func(columns int) string, closed func()) {
	_, _, w, _ := pages.GetRect()
	first := text(helpColumns(min(w, helpBoxWidth) - 2))
	view := &helpBox{TextView: tview.NewTextView().SetText(first).SetWrap(true).SetWordWrap(true), text: text}
	view.SetBorder(true).SetTitle(" help ─ ↑↓ PgUp PgDn scroll, Esc closes ")
	view.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		switch {
		case ev.Key() == tcell.KeyEscape, ev.Key() == tcell.KeyEnter,
			ev.Key() == tcell.KeyRune && (ev.Rune() == 'q' || ev.Rune() == '?'):
			pages.RemovePage("help")
			closed()
			return nil
		}
		return ev
	})
	pages.AddPage("help", &overlay{Primitive: view, w: helpBoxWidth, h: strings.Count(first, "\n") + 8}, true, true)
	app.SetFocus(view)
}
