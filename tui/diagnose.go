package tui

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/diagnose"
	"jitterlab/lab"
	"jitterlab/sim"
	"jitterlab/tui/widget"
)

// DiagnoseOptions say how the lab's diagnosis (d) runs: as 'lab diagnose'
// does with these seeds and this duration.
type DiagnoseOptions struct {
	Seeds    []uint64      // nil: 1-20, as 'lab diagnose'
	Duration time.Duration // 0: 2 minutes, as 'lab diagnose'
	Version  string        // for the conditions
	Workers  int           // ≤ 0: GOMAXPROCS
}

// diagRun is one diagnosis of the settings in force when it started,
// running in its own goroutine: diagnose.Run is pure and deterministic, so
// its result does not depend on when it finishes or on the workers. The
// event loop reads its progress and, once finished is closed, its result.
type diagRun struct {
	opts    diagnose.Options
	inForce lab.Config // the settings diagnosed (lab.Setup.Edited), its duration the diagnosis's
	at      sim.Time   // the session's time when it started
	where   string     // what the lab was running (scenario or preset)
	command string     // the same diagnosis from the command line ("" if none says it exactly)

	done, queued atomic.Int64
	cancel       chan struct{}
	finished     chan struct{} // closed when Run has returned
	result       *diagnose.Result
	text         string // the result as 'lab diagnose' prints it
	err          error
	noticed      bool // the event loop has seen it finish
}

// running reports whether the diagnosis has not finished yet.
func (d *diagRun) running() bool {
	select {
	case <-d.finished:
		return false
	default:
		return true
	}
}

// diagnosisOf builds the diagnosis of the session u sets up, as 'lab
// diagnose' runs it: the scenario (its timeline included) and the settings
// the lab started from with the live edits as --set overrides on top
// (lab.Setup.Overrides), which pin their keys. It returns the command line
// that runs the same, or "" when none says it exactly.
func diagnosisOf(u lab.Setup, o DiagnoseOptions) (diagnose.Options, string, error) {
	if len(o.Seeds) == 0 {
		for s := uint64(1); s <= 20; s++ {
			o.Seeds = append(o.Seeds, s)
		}
	}
	if o.Duration <= 0 {
		o.Duration = 2 * time.Minute
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	base, err := u.Edited()
	if err != nil {
		return diagnose.Options{}, "", err
	}
	name, sets, exact, err := u.Overrides()
	if err != nil {
		return diagnose.Options{}, "", err
	}
	base.Duration = o.Duration
	opts := diagnose.Options{Base: base, Scenario: u.Scenario, Name: name, Overrides: sets, Seeds: o.Seeds, Workers: o.Workers, Version: o.Version}
	if !exact {
		return opts, "", nil
	}
	cmd := []string{"lab diagnose"}
	if name != "default" {
		cmd = append(cmd, "--scenario "+name)
	}
	for _, s := range sets {
		cmd = append(cmd, "--set "+s)
	}
	cmd = append(cmd, "--seeds "+diagnose.SeedList(o.Seeds), "--duration "+o.Duration.String())
	return opts, strings.Join(cmd, " "), nil
}

// startDiagnosis diagnoses the settings in force now in the background.
func (a *App) startDiagnosis() {
	d := &diagRun{at: a.s.Now(), where: a.name, cancel: make(chan struct{}), finished: make(chan struct{})}
	d.opts, d.command, d.err = diagnosisOf(a.s.Setup(), a.opts.Diagnose)
	d.inForce = d.opts.Base
	d.opts.Cancel = d.cancel
	hook := a.diagHook
	d.opts.Progress = func(done, queued int) {
		d.done.Store(int64(done))
		d.queued.Store(int64(queued))
		if hook != nil {
			hook(done)
		}
	}
	a.diag = d
	go func() {
		defer close(d.finished)
		if d.err != nil {
			return
		}
		d.result, d.err = diagnose.Run(d.opts)
		if d.err == nil {
			var b strings.Builder
			d.err = d.result.WriteText(&b)
			d.text = b.String()
		}
	}()
	a.status = "diagnosing the settings in force in the background: d shows the progress, Esc cancels"
}

// cancelDiagnosis stops a running diagnosis (its goroutine skips the runs
// not started and ends) and closes its box.
func (a *App) cancelDiagnosis() {
	if a.diag == nil || !a.diag.running() {
		return
	}
	close(a.diag.cancel)
	a.diag = nil
	a.closeDiagnosis()
	a.status = "diagnosis canceled"
}

// diagnoseKey shows the diagnosis, starting one on the settings in force
// if there is none, or the last failed or diagnosed other settings.
func (a *App) diagnoseKey() {
	d := a.diag
	changed := true // the settings differ from those d diagnosed (its duration apart)
	if cur, err := a.s.Setup().Edited(); d != nil && err == nil {
		cur.Duration = d.inForce.Duration
		changed = !d.inForce.Equal(&cur)
	}
	if d == nil || (!d.running() && (d.err != nil || changed)) {
		a.startDiagnosis()
	}
	a.showDiagnosis()
}

// pollDiagnosis notices, on the event loop, a diagnosis that finished.
func (a *App) pollDiagnosis() {
	d := a.diag
	if d == nil || d.noticed || d.running() {
		return
	}
	d.noticed = true
	switch {
	case d.err != nil:
		a.status = "[red]diagnosis: " + tview.Escape(d.err.Error())
	case len(d.result.Recommended) == 0:
		a.status = "[green]diagnosis done[-]: no change improves significantly; d shows it"
		if strings.Contains(d.result.NoRecommendation(), "without a cost") {
			a.status = "[green]diagnosis done[-]: nothing recommended without a cost; d shows why"
		}
	default:
		a.status = "[green]diagnosis done[-]: recommended " + tview.Escape(strings.Join(d.result.Recommended, " ")) + "; d shows it, a runs it as B"
	}
}

// diagProgress is the header's note while a diagnosis runs.
func (a *App) diagProgress() string {
	return fmt.Sprintf("diagnosing %d/%d", a.diag.done.Load(), a.diag.queued.Load())
}

// diagTextWidth is the width 'lab diagnose' wraps its prose at.
const diagTextWidth = 100

// boxText is the diagnosis box's text for a box width columns wide: the
// progress while it runs; then what matters first (the headline, the
// recommendation and how to try it, the first finding, the best ranked
// changes), the settings diagnosed and the command that diagnoses them,
// and the whole
// of 'lab diagnose”s text, re-wrapped to the box when wrap is on (w).
// What comes before that text is always wrapped to the box.
func (d *diagRun) boxText(width int, wrap bool) string {
	fit := func(s, rest string) string { return strings.Join(breakAt(s, rest, width), "\n") + "\n" }
	var b strings.Builder
	if d.running() || d.err != nil {
		b.WriteString(d.settingsText(fit))
		b.WriteString("\n")
	}
	switch {
	case d.running():
		done, queued := d.done.Load(), max(d.queued.Load(), 1)
		const bar = 30
		n := int(done * bar / queued)
		b.WriteString(fit(fmt.Sprintf("running: %d of the %d runs queued so far (the combination queues more)", done, queued), "  "))
		fmt.Fprintf(&b, "  %s%s\n\n", strings.Repeat("█", n), strings.Repeat("░", bar-n))
		b.WriteString(fit("d hides this (the diagnosis goes on, so does the lab); Esc cancels it.", ""))
	case d.err != nil:
		b.WriteString(fit("the diagnosis failed: "+d.err.Error(), "  "))
		b.WriteString("\nd or Esc closes.\n")
	default:
		r := d.result
		// How much the link costs and how much of it the first finding
		// explains: a reader must not take a finding that explains a
		// fifth of the cost for the whole story.
		b.WriteString(fit(r.BriefHeadline(), "  "))
		b.WriteString("\n")
		if rec := r.Recommended; len(rec) > 0 {
			b.WriteString(fit("recommended: "+strings.Join(rec, " "), "  "))
			b.WriteString("  a runs it as B beside A (A/B)\n")
		} else {
			// Why, as lab diagnose says it: a change may improve at a cost.
			b.WriteString(fit("recommended: nothing: "+r.NoRecommendation(), "  "))
		}
		b.WriteString("\n")
		if len(r.Findings) == 0 {
			b.WriteString(fit("first finding: none: no rule's mechanism is at work here", "  "))
		} else {
			f := r.Findings[0]
			b.WriteString(fit("first finding: "+f.Text+".", "  "))
			if f.Fix != "" {
				b.WriteString(fit("  its change: "+f.Fix, "    "))
			}
		}
		b.WriteString("\n")
		b.WriteString(rankedTop(r, 5, width))
		b.WriteString("\n")
		b.WriteString(d.settingsText(fit))
		b.WriteString("\n")
		b.WriteString(fit("↑↓←→ PgUp PgDn scroll for lab diagnose's whole text below; w wraps it to the box; d or Esc closes.", ""))
		b.WriteString("\n")
		if wrap {
			b.WriteString(reflow(d.text, diagTextWidth, width))
		} else {
			b.WriteString(d.text)
		}
	}
	return b.String()
}

// settingsText names the settings diagnosed and the command that
// diagnoses the same, each line fitted by fit.
func (d *diagRun) settingsText(fit func(s, rest string) string) string {
	var b strings.Builder
	if len(d.opts.Overrides) > 0 {
		b.WriteString(fit(fmt.Sprintf("the settings in force at t %v in %s:", d.at, d.where), "  "))
		b.WriteString(fit("  "+strings.Join(d.opts.Overrides, " "), "  "))
	} else {
		b.WriteString(fit(fmt.Sprintf("the settings in force at t %v in %s", d.at, d.where), "  "))
	}
	if d.command != "" {
		b.WriteString("the same as:\n")
		b.WriteString(fit("  "+d.command, "    "))
	}
	return b.String()
}

// showDiagnosis opens the diagnosis box over the lab.
func (a *App) showDiagnosis() {
	// The text is wrapped here, to the box's width (diagBox), never by
	// the view: it would break lines already broken.
	view := tview.NewTextView().SetWrap(false)
	view.SetBorder(true).SetTitle(" diagnose ─ ↑↓ PgDn scroll, w wraps, d hides, Esc closes ")
	view.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		switch {
		case ev.Key() == tcell.KeyEscape:
			if a.diag != nil && a.diag.running() {
				a.cancelDiagnosis()
			} else {
				a.closeDiagnosis()
			}
		case ev.Key() == tcell.KeyRune && (ev.Rune() == 'd' || ev.Rune() == 'q'):
			a.closeDiagnosis()
		case ev.Key() == tcell.KeyRune && ev.Rune() == 'a':
			a.closeDiagnosis()
			a.applyRecommended()
		case ev.Key() == tcell.KeyRune && ev.Rune() == 'w':
			a.diagWrap = !a.diagWrap
		default:
			return ev
		}
		a.refresh()
		return nil
	})
	a.diagView, a.diagShown = view, ""
	a.pages.AddPage("diagnose", &widget.Overlay{Primitive: &diagBox{TextView: view, a: a}, W: 110, H: 1000}, true, true)
	a.editing = true
	a.app.SetFocus(view)
	a.fillDiagnosis()
}

// closeDiagnosis closes the box; a running diagnosis goes on.
func (a *App) closeDiagnosis() {
	if a.diagView == nil {
		return
	}
	a.pages.RemovePage("diagnose")
	a.diagView = nil
	a.editing = false
	a.app.SetFocus(a.editor)
}

// diagBox is the diagnosis box: before it draws it fills its text for
// its width, so a resized terminal re-wraps it.
type diagBox struct {
	*tview.TextView
	a *App
}

func (b *diagBox) Draw(screen tcell.Screen) {
	b.a.fillDiagnosis()
	b.TextView.Draw(screen)
}

// fillDiagnosis rewrites the box when its text changed, for the box's
// width and wrap (so a scrolled result stays where the user put it).
func (a *App) fillDiagnosis() {
	if a.diagView == nil || a.diag == nil {
		return
	}
	_, _, w, _ := a.diagView.GetInnerRect()
	if w <= 0 {
		w = 78 // not drawn yet: an 80-column box
	}
	if text := a.diag.boxText(w, a.diagWrap); text != a.diagShown {
		a.diagShown = text
		row, col := a.diagView.GetScrollOffset()
		a.diagView.SetText(text)
		a.diagView.ScrollTo(row, col)
	}
}

// applyRecommended runs the diagnosis's recommended set as B beside A.
func (a *App) applyRecommended() {
	d := a.diag
	switch {
	case d == nil || d.running():
		a.status = "no finished diagnosis: d runs one"
		return
	case d.err != nil || len(d.result.Recommended) == 0:
		a.status = "the diagnosis recommends no change"
		return
	}
	spec := strings.Join(d.result.Recommended, " ")
	a.ab = nil
	if err := a.startAB(spec); err != nil {
		a.ab = nil
		a.status = "[red]A/B: " + tview.Escape(err.Error())
		return
	}
	a.status = "[green]A/B[-]: B runs the recommended " + tview.Escape(spec) + " on the same seed from t 0" + a.abNote() + "; b ends it"
}

// rankedTop is the first n ranked changes, its rows short enough for 80
// columns (the whole table is in the text below; ← → scroll a narrower
// box), its sentences wrapped to width, the box's. Those that meet the bar come
// first, as in the text; a change further down that improves the metric
// more than one shown, but does not meet the bar, is shown too, marked §,
// and why follows (diagnose.Result.ShortOfTheBar). A change that is
// another under a different name here is marked † and its reason follows,
// as in the text.
func rankedTop(r *diagnose.Result, n, width int) string {
	m, tie := r.Metric(), r.TieBreak()
	var b strings.Builder
	fit := func(s, rest string) { b.WriteString(strings.Join(breakAt(s, rest, width), "\n") + "\n") }
	fit(fmt.Sprintf("ranked changes (change − reference over %d seeds, * significant):", len(r.Conditions.Seeds)), "  ")
	fit("  those that meet the bar first, then the others; § marks one short of it;", "  ")
	fit("  last column: the cells of the ensemble it holds in alone (‡ not all)", "  ")
	fmt.Fprintf(&b, "  %-30s %-18s %s\n", "", m.Name, tie.Name)
	shown := r.Changes[:min(n, len(r.Changes))]
	worst := math.Inf(-1) // the metric's worst difference shown
	for _, c := range shown {
		worst = max(worst, c.Primary.Mean)
	}
	var notes []string
	row := func(i int, c diagnose.Change) {
		set, same, short := r.MarkedSet(c)
		for _, note := range []string{same, short} {
			if note != "" {
				notes = append(notes, note)
			}
		}
		fmt.Fprintf(&b, "%d %-30s %-18s %-17s %s\n", i+1, set, diagnose.FormatDiff(c.Primary, m.Prec), diagnose.FormatDiff(c.TieBreak, tie.Prec), c.HoldsIn())
	}
	for i, c := range shown {
		row(i, c)
	}
	more := len(r.Changes) - len(shown)
	for i := len(shown); i < len(r.Changes); i++ {
		if c := r.Changes[i]; c.Primary.Significant && c.Primary.Mean < worst && r.ShortOfTheBar(c) != "" {
			row(i, c)
			more--
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "  … %d more below\n", more)
	}
	for _, s := range notes {
		fit("  "+s, "    ")
	}
	return b.String()
}
