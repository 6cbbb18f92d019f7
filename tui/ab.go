package tui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rivo/tview"

	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/scenarios"
)

// abRun is the B side of a live A/B: a second session from the same seed
// and initial settings as A plus B's overrides, fed every change A applies
// (its timeline and the live ones) at the change's time, and run to A's
// time after every step, so both sides see the same network changes and
// input script; only B's overrides differ. B's overrides pin their keys
// (lab.PinKeys, as `lab ab --b` and --set do): a change A makes to one of
// them, live or from the timeline, does not reach B (of a link.X change
// whose one direction B pins, B gets the other half).
type abRun struct {
	sets      []string
	pins      []string
	s         *lab.Session
	history   []metrics.Sample
	forwarded int // how many of A's changes B has been given
}

// startAB starts B from t = 0 and catches it up with A.
func (a *App) startAB(spec string) error {
	sets := lab.SplitAssignments(spec)
	if len(sets) == 0 {
		return fmt.Errorf("give B's settings, e.g. server.inputs=queue client.sender=accumulator")
	}
	cfg := a.s.Initial()
	for _, kv := range sets {
		k, v, err := lab.ParseAssignment(kv)
		if err != nil {
			return err
		}
		if k == "sim.seed" || k == "sim.duration" {
			return fmt.Errorf("%s cannot differ: B runs on A's seed, beside A for as long as A runs; give B a different setting (server.inputs=queue), or compare over many seeds with 'lab ab --seeds 1-20'", k)
		}
		if err := lab.Set(&cfg, k, v); err != nil {
			return err
		}
	}
	s, err := lab.New(cfg, a.opts.Every)
	if err != nil {
		return err
	}
	pins, err := lab.PinKeys(sets)
	if err != nil {
		return err
	}
	b := &abRun{sets: sets, pins: pins, s: s}
	s.OnSample = func(x *metrics.Sample) {
		if len(b.history) == historyLen {
			b.history = append(b.history[:0], b.history[historyLen/2:]...)
		}
		b.history = append(b.history, *x)
	}
	a.ab = b
	return a.followAB()
}

// followAB gives B A's new live changes and runs it to A's time.
func (a *App) followAB() error {
	b := a.ab
	if b == nil {
		return nil
	}
	changes := a.s.Changes()
	for ; b.forwarded < len(changes); b.forwarded++ {
		c := changes[b.forwarded]
		keep, _ := lab.Unpinned(b.pins, []scenarios.Change{{At: time.Duration(c.At), Set: []scenarios.Assignment{{Key: c.Key, Value: c.Value}}}})
		for _, k := range keep {
			for _, kv := range k.Set {
				// B is at A's previous time, never past c.At: same time, same order.
				if err := b.s.Schedule(c.At, kv.Key, kv.Value); err != nil {
					return err
				}
			}
		}
	}
	return b.s.Run(a.s.Now())
}

// abSamples is B's samples over the same window as A's.
func (a *App) abSamples(span int) []metrics.Sample {
	h := a.ab.history
	return h[max(len(h)-span, 0):]
}

// abMetrics are the summary figures the A/B box compares.
var abMetrics = []string{"deficit m/s", "judder m/s", "visible lag p50 ms", "overwritten", "starved", "input delay p50 ms"}

// abSide is the side box in A/B mode: both summaries column by column.
func (a *App) abSide() string {
	sa, sb := a.lastSum, a.ab.s.Summary()
	out := fmt.Sprintf(" [::b]%-18s %7s  %7s[::-]\n", "", "A", "B")
	for _, m := range lab.Metrics {
		if slices.Contains(abMetrics, m.Name) {
			prec := 0 // one run: counts are whole, figures get two decimals
			if m.Prec > 1 {
				prec = 2
			}
			out += fmt.Sprintf(" %-18s %7.*f  [white]%7.*f[-]\n", m.Name, prec, m.Get(&sa), prec, m.Get(&sb))
		}
	}
	return out
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
	a.prompt(" A/B: settings for B on the same seed (Esc cancels) ", "B = ", "server.inputs=queue", 50, func(text string) {
		if err := a.startAB(text); err != nil {
			a.ab = nil
			a.status = "[red]A/B: " + tview.Escape(err.Error())
			return
		}
		a.status = "[green]A/B[-]: B runs on the same seed from t 0 with " + tview.Escape(text) + "; b ends it"
	})
}
