package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rivo/tview"

	"jitterlab/batch"
	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/stats"
)

// abRun is a live A/B: B is a lab.Follower of A with B's overrides, from
// t 0 on the settings in force when it started (not A's edit history), fed
// A's live changes from then on, and run to A's time after every step, so
// both sides see the same network changes and input script; only B's
// overrides differ. B's overrides pin their keys (lab.PinKeys, as
// `lab ab --b` and --set do). When A was edited live before B started, A's
// column is a follower without overrides (ref): the settings in force from
// t 0, as a diagnosis compares them; otherwise it is A itself.
type abRun struct {
	sets    []string
	s       *lab.Session // B's session
	b, ref  *lab.Follower
	history []metrics.Sample
}

// startAB starts B from t = 0 and catches it up with A.
func (a *App) startAB(spec string) error {
	sets := lab.SplitAssignments(spec)
	if len(sets) == 0 {
		return fmt.Errorf("give B's settings, e.g. server.inputs=queue client.sender=accumulator")
	}
	for _, kv := range sets {
		k, _, err := lab.ParseAssignment(kv)
		if err != nil {
			return err
		}
		if k == "sim.seed" || k == "sim.duration" {
			return fmt.Errorf("%s cannot differ: B shares A's seed and time; give B another setting (server.inputs=queue), or compare seeds with 'lab ab --seeds 1-20'", k)
		}
	}
	f, err := lab.Follow(a.s, sets)
	if err != nil {
		return err
	}
	b := &abRun{sets: sets, s: f.S, b: f}
	if len(a.s.Setup().Live) > 0 {
		if b.ref, err = lab.Follow(a.s, nil); err != nil {
			return err
		}
	}
	f.S.OnSample = func(x *metrics.Sample) {
		if len(b.history) == historyLen {
			b.history = append(b.history[:0], b.history[historyLen/2:]...)
		}
		b.history = append(b.history, *x)
	}
	a.ab = b
	return a.followAB()
}

// followAB gives B (and A's reference) A's new live changes and runs them
// to A's time.
func (a *App) followAB() error {
	b := a.ab
	if b == nil {
		return nil
	}
	if b.ref != nil {
		if err := b.ref.Catch(a.s); err != nil {
			return err
		}
	}
	return b.b.Catch(a.s)
}

// abSamples is B's samples over the same window as A's.
func (a *App) abSamples(span int) []metrics.Sample {
	h := a.ab.history
	return h[max(len(h)-span, 0):]
}

// abMetrics are the figures the A/B box compares, named as lab ab names
// them (batch.Metrics): five, as the box's six lines hold the column
// header and five figures (starved left out: under latest-wins it follows
// the overwrites).
var abMetrics = []string{"progress_deficit_mps", "judder_mps", "visible_lag_p50_ms", "overwritten", "server_input_delay_p50_ms"}

// abSide is the side box in A/B mode: both summaries column by column.
func (a *App) abSide() string {
	sa, sb, colA := a.lastSum, a.ab.s.Summary(), "A"
	if a.ab.ref != nil {
		sa, colA = a.ab.ref.S.Summary(), "A now" // the settings in force from t 0
	}
	out := fmt.Sprintf(" [::b]%-25s%6s %6s[::-]\n", "", colA, "B")
	for _, m := range batch.Metrics {
		if slices.Contains(abMetrics, m.Name) {
			prec := 0 // one run: counts are whole, figures get two decimals
			if m.Prec > 1 {
				prec = 2
			}
			out += fmt.Sprintf(" %-25s%6s [white]%6s[-]\n", m.Name, stats.Fixed(m.Get(&sa), prec), stats.Fixed(m.Get(&sb), prec))
		}
	}
	return out
}

// abNote says, after live edits, what B and A's column start from.
func (a *App) abNote() string {
	if a.ab == nil || a.ab.ref == nil {
		return ""
	}
	return " on the settings in force; A now is them without it"
}

// abTitle names B's settings in the side box's title.
func (a *App) abTitle() string {
	return " A/B ─ B: " + strings.Join(a.ab.sets, " ") + " "
}

// toggleAB asks for B's settings, or ends the A/B.
func (a *App) toggleAB() {
	if a.ab != nil {
		a.ab = nil
		a.status = "A/B ended"
		return
	}
	a.prompt(" A/B: settings for B on the same seed (Esc cancels) ", "B = ", "server.inputs=queue", 50, func(text string) bool {
		if err := a.startAB(text); err != nil {
			a.ab = nil
			a.status = "[red]A/B: " + tview.Escape(err.Error())
			return false
		}
		a.status = "[green]A/B[-]: B runs on the same seed from t 0 with " + tview.Escape(text) + a.abNote() + "; b ends it"
		return true
	})
}
