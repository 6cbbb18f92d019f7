package tui

import (
	"fmt"
	"strings"

	"jitterlab/tui/preset"
	"jitterlab/tui/widget"
)

// liveKeys are the live lab's keys and what they do: the help box, 'lab -h'
// and the README show this one list.
var liveKeys = [][2]string{
	{"space", "pause / run (a paused lab does not redraw)"},
	{"< >", "slower / faster: 0.1×, 0.25×, 0.5×, 1×, 2×, 5×, 10×, 100×, 1000×"},
	{"↑ ↓ ← →", "select a parameter and its direction (up / down); PgUp PgDn by ten"},
	{"+ -", "step the value (latency ±5 ms, loss ±0.5 %, durations by 1, 5, 10 or 100 ms, every enumerated key cycles its choices; a file or a loss model is typed with Enter)"},
	{"enter", "type a value as on the command line (80ms, 2%, normal): typing replaces the value shown; a bad one is refused with the reason"},
	{"1-9", "apply a preset as a whole link (link keys it does not name go to the perfect link's): " + strings.Join(preset.Keys, ", ")},
	{"z", "chart window: 10 s, 30 s, 2 min"},
	{"c", "the scenario (description, source, timeline) and the change log in place of the editor: it opens on the scenario, ↑ ↓ PgUp PgDn Home End scroll it (End follows the newest change), its bottom edge says which lines show; ┴ on the charts' time axis marks each change"},
	{"e", "export the kept timeline (the last hour) to a new CSV file in --dir"},
	{"R", "record the whole session from t 0 to a new file in --dir, or stop; lab replay FILE reads and --verify checks it"},
	{"b", "A/B: run B (your settings; not sim.seed or sim.duration) on the same seed beside A from the settings in force, drawn in white; b ends it"},
	{"p", "the player's report card (judder, progress deficit, rubber bands, hesitations, snaps, corrections, local response, server input delay, visible lag) in place of the now box, or back"},
	{"d", "diagnose the scenario (its timeline included) with the live edits as --set, in the background, exactly as 'lab diagnose' on them: progress, then the ranked changes and the recommendation; d hides and shows the box, w re-wraps its text to the box's width, Esc cancels"},
	{"a", "run the diagnosis's recommended set as B beside A (A/B)"},
	{"r", "restart from t 0 on the same seed with the settings in force now (live edits kept; the scenario's timeline plays again); an open recording is closed and named"},
	{"?", "this help (↑ ↓ PgUp PgDn scroll, Esc closes)"},
	{"q Ctrl-C", "quit (exit status 0); an open recording is closed. SIGTERM and SIGHUP close it too, then the lab exits 128 + the signal (143, 129), as lab run does"},
}

// KeyHelp lists the live lab's keys, one per line, for 'lab -h'.
func KeyHelp() string { return widget.KeyLines(liveKeys, "  ", widget.KeyColumns) }

const chartHelp = `Charts, newest at the right, each dot column the min–max of its samples:
tick offset: server tick − client tick − start tick; outside ±band the
corrector latches the fast or slow send interval. send interval: the fast
and slow levels (0.048 and 0.052 s by default). visible error: how far the
drawn tank is from the predicted one; past the snap line it snaps. The
lines follow the settings in force. rtt with the RFC 3550 jitter
each way. ┴ on a chart's bottom edge marks a parameter change.`

// help shows the keys, the scenario and what the charts mean.
func (a *App) help() {
	var b strings.Builder
	if sc := a.opts.Scenario; sc != nil {
		fmt.Fprintf(&b, "scenario %s: %s\nsource: %s\n\n", sc.Name, sc.Description, sc.Source)
	}
	head := b.String()
	widget.ShowHelp(a.app, a.pages.Pages, func(columns int) string {
		return head + widget.KeyLines(liveKeys, "", columns) + "\n" + chartHelp + "\n\n" + widget.HelpLastLine
	}, func() { a.editing = false; a.app.SetFocus(a.editor) })
	a.editing = true
}
