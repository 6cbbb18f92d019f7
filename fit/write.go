package fit

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ms formats ns as milliseconds with 3 decimals.
func ms(ns float64) string { return strconv.FormatFloat(ns/1e6, 'f', 3, 64) }

// WriteReport is [Result.WriteText] with what the reader said of the
// capture (the flows it chose, what it skipped), notes, after the
// report's first line as "read: …", one note a line.
func (r *Result) WriteReport(w io.Writer, notes []string) error {
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		return err
	}
	text := b.String()
	if len(notes) > 0 {
		head, rest, _ := strings.Cut(text, "\n")
		text = head + "\nread: " + strings.Join(notes, "\n  ") + "\n" + rest
	}
	_, err := io.WriteString(w, text)
	return err
}

// WriteText writes the report: per direction what was observed, what was
// fitted, and the verdicts.
func (r *Result) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format, a...) }
	p("lab fit %s (%s)\n", r.File, r.Format)
	if r.SyncedClocks {
		if r.Format == "packets" {
			p("clocks: one clock for send and arrival (the lab's true time): delays are absolute\n")
		} else {
			p("clocks: one clock for send and arrival (one machine's): delays are absolute\n")
		}
	} else {
		p("clocks: the sender's and the receiver's; drift is the slope of the delays' low envelope against time.\n")
		if r.OffsetRemoved != 0 {
			p("  The clocks' offset put a floor out of range; it was split assuming equal floors both ways: %s ms.\n", ms(r.OffsetRemoved))
			p("  Latency is then known only as the sum up + down; its split is an assumption.\n")
		} else {
			p("  The delays include the clocks' offset: absolute only if the clocks are synchronised (one machine, PTP).\n")
		}
	}
	for _, s := range r.Skipped {
		p("\nnot fitted (left at the lab's defaults in --out): %s\n", s)
	}
	for _, d := range r.Dirs {
		p("\n%s: %d packets over %v: %d delivered, %d lost (%.2f%%)", d.Name, d.Sent, d.Span.Round(time.Millisecond), d.Delivered, d.Lost, 100*float64(d.Lost)/float64(d.Sent))
		if d.Unmeasured > 0 {
			p(", %d arrived unmeasured", d.Unmeasured)
		}
		if d.Duplicates > 0 {
			p(", %d duplicates (duplicate %.2f%%)", d.Duplicates, 100*d.Duplicate)
		}
		p("\n")
		if !r.SyncedClocks {
			verb := "removed"
			if !d.DriftRemoved {
				verb = "not significant, kept"
			}
			p("  clock drift   %+.2f ± %.2f ppm (%s)\n", d.DriftPPM, d.DriftSE, verb)
		}
		p("  floor         %s ms (lowest delay)\n", ms(d.Floor))
		p("  jitter        %-13s %10s %10s %8s\n", "distribution", "latency", "jitter", "KS")
		for i, c := range d.Candidates {
			mark := ""
			if i == d.Best {
				mark = "  ← best"
			}
			p("                %-13s %7s ms %7s ms %8.4f%s\n", c.Dist, ms(c.Latency), ms(c.Jitter), c.KS, mark)
		}
		p("  KS test       5%% critical value %.4f (n %d, effective n %.0f with ρ)\n", d.KSCrit, d.Delivered, d.NEff)
		p("  quantiles ms ")
		for _, q := range d.Quantiles {
			p(" %8s", "p"+strconv.FormatFloat(100*q.P, 'f', -1, 64))
		}
		p("\n    observed    ")
		for _, q := range d.Quantiles {
			p(" %8s", ms(q.Observed))
		}
		p("\n    fitted      ")
		for _, q := range d.Quantiles {
			p(" %8s", ms(q.Expected))
		}
		p("\n  correlation   lag-1 of normal scores %.3f ± %.3f → jitter_corr %.3f\n", d.ACF[0], d.RhoSE, d.Rho)
		p("    lag         ")
		for k := range d.ACF {
			p(" %6d", k+1)
		}
		p("\n    observed    ")
		for _, a := range d.ACF {
			p(" %6.3f", a)
		}
		p("\n    AR(1)       ")
		for k := range d.ACF {
			p(" %6.3f", powInt(d.Rho, k+1))
		}
		p("\n  loss          %-16s %10s %10s %12s %12s\n", "model", "p", "r", "log-lik", "BIC")
		choose := func(b bool) string {
			if b {
				return "  ← lower BIC"
			}
			return ""
		}
		p("                %-16s %9.3f%% %10s %12.1f %12.1f%s\n", "Bernoulli", 100*d.Bernoulli.P, "", d.Bernoulli.LogL, d.Bernoulli.BIC, choose(d.Model == BernoulliLoss && d.Lost > 0))
		p("                %-16s %9.3f%% %10.4f %12.1f %12.1f%s\n", "Gilbert–Elliott", 100*d.GE.P, d.GE.R, d.GE.LogL, d.GE.BIC, choose(d.Model == GilbertElliottLoss))
		if d.Four.Params > 0 {
			p("                %-16s %10s %10s %12.1f %12.1f%s\n", "4-state", "", "", d.Four.LogL, d.Four.BIC, choose(d.Model == FourStateLoss))
			p("    4-state (EM) ")
			names := [5]string{"p13", "p31", "p32", "p23", "p14"}
			g := d.Four
			for i, v := range [5]float64{g.P13, g.P31, g.P32, g.P23, g.P14} {
				p(" %s %s", names[i], seText(v, g.SE[i]))
			}
			p("\n")
		}
		if d.Lost > 0 {
			p("    loss rate %.3f%%, mean burst %.2f packets\n", 100*d.LossRate, d.MeanBurst)
			p("    burst length")
			for _, b := range d.BurstTest.Bins {
				p(" %7s", binName(b))
			}
			p("\n    observed    ")
			for _, b := range d.BurstTest.Bins {
				p(" %7d", b.Observed)
			}
			p("\n    fitted      ")
			for _, b := range d.BurstTest.Bins {
				p(" %7.1f", b.Expected)
			}
			p("\n")
		}
		p("  reorder       %d packets skipped the delay → reorder %.3f%%; out of order: observed %.3f%%, the fitted link %.3f%%\n", d.Skipped, 100*d.Reorder, 100*d.ReorderObserved, 100*d.ReorderModel)
		misfit := false
		for _, v := range d.Verdicts {
			mark := "fits  "
			if v.Misfit {
				mark, misfit = "MISFIT", true
			}
			p("  %s  %s\n", mark, v.Text)
		}
		if misfit {
			p("  suggestion: %s\n", TraceSuggestion)
		}
		if len(d.Periods) > 0 {
			p("  periods       %d, cut where the loss or the delay's level changes; each fitted on its own:\n", len(d.Periods))
			if d.PeriodDriftPPM != 0 {
				p("    clock drift %+.2f ppm, fitted with the periods' levels and removed from all of them\n", d.PeriodDriftPPM)
			}
			for _, pr := range d.Periods {
				p("    from %-9s %s\n", pr.From.Round(time.Millisecond), periodText(pr))
			}
		}
	}
	return bw.Flush()
}

// periodText is one line on a period: its fit, or that it was a blackout.
func periodText(pr Period) string {
	if pr.Blackout {
		return fmt.Sprintf("blackout: every packet lost  (%d packets)", pr.Sent)
	}
	f := pr.Fit
	c := f.Candidates[f.Best]
	return fmt.Sprintf("%-12s latency %8s ms  jitter %7s ms  ρ %.2f  loss %6.2f%% %s  (%d packets)",
		c.Dist, ms(c.Latency), ms(c.Jitter), f.Rho, 100*f.LossRate, f.Model, f.Sent)
}

// seText writes a probability as a percentage with its standard error:
// "2.13±0.41%"; "2.13%" on a boundary, "2.13±?%" where not identifiable.
func seText(v, se float64) string {
	f := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 2, 64) }
	switch {
	case math.IsNaN(se):
		return f(v) + "±?%"
	case se == 0:
		return f(v) + "%"
	}
	return f(v) + "±" + f(se) + "%"
}

func binName(b BurstBin) string {
	if b.To == 0 {
		return strconv.Itoa(b.From) + "+"
	}
	return strconv.Itoa(b.From)
}

// powInt is x^k by repeated multiplication (exact steps, no Pow).
func powInt(x float64, k int) float64 {
	r := 1.0
	for range k {
		r *= x
	}
	return r
}

// WriteScenario writes the fitted link as a scenario TOML that `lab run
// --scenario FILE` loads. A direction without packets keeps the lab's
// defaults.
func (r *Result) WriteScenario(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Fitted by `lab fit %s`; the report says where the model does not fit.\n", r.File)
	fmt.Fprintf(&b, "description = %q\n", "Fitted to "+r.File)
	src := "lab fit " + r.File + " (" + r.Format
	for _, d := range r.Dirs {
		src += fmt.Sprintf(", %s %d packets", d.Name, d.Sent)
	}
	fmt.Fprintf(&b, "source = %q\n", src+")")
	if dur := r.Duration().Round(time.Second); dur > 0 {
		fmt.Fprintf(&b, "duration = %q\n", dur.String())
	}
	// What a direction's entries write besides the link's keys: loss_model
	// where some period has the 4-state model (it replaces loss and
	// loss_burst, which then give its long-run rate and mean burst), and
	// blackout where some period is one.
	type extra struct{ four, blackout, dup bool }
	// keys writes one period's keys. Every key is written in every
	// period, so a period does not inherit the one before's; a blackout
	// writes only blackout = true (the others do not matter while it lasts).
	keys := func(name string, d *Dir, x extra, blackout bool) {
		k := name + "."
		if x.blackout {
			fmt.Fprintf(&b, "%sblackout = %t\n", k, blackout)
		}
		if d == nil {
			return
		}
		pr := d.Params()
		burst, reorder := 0.0, 0.0
		if d.Model != BernoulliLoss && d.MeanBurst >= 1 {
			burst = max(math.Round(d.MeanBurst*100)/100, 1)
		}
		reorder = pr.Reorder
		fmt.Fprintf(&b, "%slatency = %q\n", k, durText(pr.Latency))
		fmt.Fprintf(&b, "%sjitter = %q\n", k, durText(pr.Jitter))
		fmt.Fprintf(&b, "%sjitter_dist = %q\n", k, pr.JitterDist)
		for _, c := range d.AlsoFit() {
			fmt.Fprintf(&b, "# fits as well (KS distance %.4f): %sjitter_dist = %q, %slatency = %q, %sjitter = %q\n",
				c.KS, k, c.Dist.String(), k, durText(roundDur(c.Latency)), k, durText(roundDur(c.Jitter)))
		}
		fmt.Fprintf(&b, "%sjitter_corr = %s\n", k, strconv.FormatFloat(math.Round(pr.JitterCorr*1000)/1000, 'f', -1, 64))
		fmt.Fprintf(&b, "%sloss = %q\n", k, pct(pr.Loss))
		fmt.Fprintf(&b, "%sloss_burst = %s\n", k, strconv.FormatFloat(burst, 'f', -1, 64))
		if x.four {
			fmt.Fprintf(&b, "%sloss_model = %q\n", k, lossModelText(d))
		}
		fmt.Fprintf(&b, "%sreorder = %q\n", k, pct(reorder))
		if x.dup {
			fmt.Fprintf(&b, "%sduplicate = %q\n", k, pct(pr.Duplicate))
		}
	}
	type change struct {
		at   time.Duration
		name string
		p    Period
		x    extra
	}
	var timeline []change
	for _, d := range r.Dirs {
		b.WriteString("\n")
		periods := d.Periods
		if len(periods) == 0 {
			periods = []Period{{Fit: d}}
		}
		var x extra
		for _, p := range periods {
			x.four = x.four || (p.Fit != nil && p.Fit.Model == FourStateLoss)
			x.blackout = x.blackout || p.Blackout
			x.dup = x.dup || (p.Fit != nil && p.Fit.Duplicate > 0)
		}
		if x.four {
			fmt.Fprintf(&b, "# %s.loss_model replaces %[1]s.loss and %[1]s.loss_burst, which give its long-run rate and mean burst.\n", d.Name)
		}
		// The scenario's base: the first period, or, when the capture
		// starts in a blackout, the first period after it, blacked out.
		base := periods[0]
		if base.Blackout && len(periods) > 1 {
			base.Fit = periods[1].Fit
		}
		keys(d.Name, base.Fit, x, base.Blackout)
		for _, p := range periods[1:] {
			timeline = append(timeline, change{p.From, d.Name, p, x})
		}
	}
	slices.SortStableFunc(timeline, func(a, b change) int { return cmp.Compare(a.at, b.at) })
	for _, c := range timeline {
		fmt.Fprintf(&b, "\n[[timeline]]\nat = %q\n", c.at.Round(time.Millisecond).String())
		keys(c.name, c.p.Fit, c.x, c.p.Blackout)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lossModelText is d's loss model in netem's syntax, "random" or "state
// p13 p31 p32 p23 p14", each probability a percentage to 4 decimals,
// rounded down so that no row of the chain sums to more than 1 (a row
// that would reach 1 exactly gives up 0.0001 % of its larger share).
func lossModelText(d *Dir) string {
	if d.Model != FourStateLoss {
		return "random"
	}
	g := d.Four
	micro := func(x float64) int64 { return int64(math.Floor(float64(x * 1e6))) }
	p13, p31, p32, p23, p14 := micro(g.P13), micro(g.P31), micro(g.P32), micro(g.P23), micro(g.P14)
	fix := func(a, b *int64) {
		if *a+*b >= 1e6 {
			if *a >= *b {
				*a = 1e6 - 1 - *b
			} else {
				*b = 1e6 - 1 - *a
			}
		}
	}
	fix(&p13, &p14)
	fix(&p31, &p32)
	f := func(u int64) string { return strconv.FormatFloat(float64(u)/1e4, 'f', -1, 64) + "%" }
	return strings.Join([]string{"state", f(p13), f(p31), f(p32), f(p23), f(p14)}, " ")
}

// durText writes a duration in milliseconds with up to 3 decimals: "20.125ms".
func durText(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', -1, 64) + "ms"
}

// pct writes a fraction as a percentage with up to 4 decimals.
func pct(f float64) string {
	return strconv.FormatFloat(math.Round(f*1e6)/1e4, 'f', -1, 64) + "%"
}
