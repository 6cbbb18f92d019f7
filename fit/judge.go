package fit

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"jitterlab/detmath"
)

// ksVisible is the smallest KS distance the fit calls a misfit however
// many packets there are: 3 percentage points between the CDFs.
const ksVisible = 0.03

// reorderVisible is the smallest excess of packets out of order that the
// fit calls a misfit however many packets there are: half a percentage
// point.
const reorderVisible = 0.005

// TraceSuggestion is what a misfit suggests.
const TraceSuggestion = "a parametric link cannot reproduce this; replay the capture itself (trace mode: --set up.trace=FILE, down.trace=FILE) or fit shorter periods"

// AlsoFit is the distributions other than the best that pass the delay
// test the best passes (a KS distance at most the larger of the 5 %
// critical value and ksVisible), nearest first; none when the best is a
// misfit. The delays do not tell them apart from the best: the best is
// only the nearest, and another capture of the same path may pick another.
func (d *Dir) AlsoFit() []Candidate {
	limit := max(d.KSCrit, ksVisible)
	if len(d.Candidates) == 0 || d.Candidates[d.Best].KS > limit {
		return nil
	}
	var also []Candidate
	for i, c := range d.Candidates {
		if i != d.Best && c.KS <= limit {
			also = append(also, c)
		}
	}
	slices.SortStableFunc(also, func(a, b Candidate) int { return cmp.Compare(a.KS, b.KS) })
	return also
}

// jitterMeasures says what jitter measures under each candidate's
// distribution, grouped: "the half-width under uniform, σ under normal and
// pareto".
func jitterMeasures(cs []Candidate) string {
	var measures []string
	byMeasure := map[string][]string{}
	for _, c := range cs {
		m := c.Dist.JitterMeasure()
		if byMeasure[m] == nil {
			measures = append(measures, m)
		}
		byMeasure[m] = append(byMeasure[m], c.Dist.String())
	}
	parts := make([]string, len(measures))
	for i, m := range measures {
		the := "the "
		if m == "σ" {
			the = ""
		}
		parts[i] = the + m + " under " + andList(byMeasure[m])
	}
	return strings.Join(parts, ", ")
}

// andList joins "a", "a and b", "a, b and c".
func andList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// judge writes the plain verdicts.
func (d *Dir) judge() {
	add := func(misfit bool, format string, a ...any) {
		d.Verdicts = append(d.Verdicts, Verdict{Misfit: misfit, Text: fmt.Sprintf(format, a...)})
	}
	best := d.Candidates[d.Best]
	if best.KS > d.KSCrit && best.KS > ksVisible {
		add(true, "delay: no distribution of the lab fits (best %s, KS distance %.4f > %.4f); the fitted link has the delays' centre and spread, not their shape (see the quantiles)",
			best.Dist, best.KS, max(d.KSCrit, ksVisible))
	} else {
		text := fmt.Sprintf("delay: %s fits (KS distance %.4f ≤ %.4f)", best.Dist, best.KS, max(d.KSCrit, ksVisible))
		if also := d.AlsoFit(); len(also) > 0 {
			names := make([]string, len(also))
			for i, c := range also {
				names[i] = fmt.Sprintf("%s (%.4f, jitter %.3f ms)", c.Dist, c.KS, c.Jitter/1e6)
			}
			verb := "do"
			if len(also) == 1 {
				verb = "does"
			}
			text += fmt.Sprintf(", and so %s %s: the delays cannot tell them apart; jitter is %s",
				verb, andList(names), jitterMeasures(append([]Candidate{best}, also...)))
		}
		add(false, "%s", text)
	}
	if k := 5; len(d.ACF) >= k && d.ACFPairs[k-1] > 0 {
		want := detmath.Pow(d.Rho, float64(k))
		tol := max(4/math.Sqrt(float64(d.ACFPairs[k-1])), 0.1)
		if got := d.ACF[k-1]; math.Abs(got-want) > tol {
			slower := "more slowly"
			if got < want {
				slower = "faster"
			}
			add(true, "correlation: it decays %s than AR(1) does (lag 5: %.2f, AR(1) with ρ %.2f gives %.2f)", slower, got, d.Rho, want)
		} else {
			add(false, "correlation: AR(1) with ρ %.2f fits (lag 5: %.2f, AR(1) gives %.2f)", d.Rho, d.ACF[k-1], want)
		}
	}
	model := d.Model.String()
	bt := d.BurstTest
	nb := 0
	for _, b := range d.Bursts {
		nb += b
	}
	rejected := bt.Testable && bt.Stat > bt.Crit
	switch {
	case d.Lost == 0:
		add(false, "loss: none")
	case len(d.blackouts) > 0 && !rejected:
		// A run the other bursts do not explain: a Markov model fitted to
		// it has a burst state sticky enough to take it, which no test of
		// a few bursts can reject.
		longest := d.blackouts[0]
		for _, b := range d.blackouts {
			if b.packets > longest.packets {
				longest = b
			}
		}
		add(true, "loss: %d packets lost in a row from %v (%d such run in all) that the other bursts do not explain: a blackout (a link flap, a handover), which %s takes only as a burst state that holds on; fit the periods around it (--periods writes it as blackout = true)",
			longest.packets, longest.from.Round(time.Millisecond), len(d.blackouts), model)
	case !bt.Testable:
		add(false, "loss: %s; %d bursts are too few to test their lengths", model, nb)
	case bt.Stat > bt.Crit:
		// The bin that differs most, and the longest burst against the
		// longest the model expects among as many bursts.
		worst := bt.Bins[0]
		for _, b := range bt.Bins {
			dev, wdev := float64(b.Observed)-b.Expected, float64(worst.Observed)-worst.Expected
			if float64(dev*dev)/b.Expected > float64(wdev*wdev)/worst.Expected {
				worst = b
			}
		}
		// The longest of nb bursts: about where the geometric part's
		// expected count of longer bursts falls to 1.
		law := bt.law
		longest := 1.0
		if law.Q < 1 && float64(float64(nb)*(1-law.W)) > 1 {
			longest = 1 + detmath.Log(float64(float64(nb)*(1-law.W)))/-detmath.Log(1-law.Q)
		}
		add(true, "loss: the burst lengths are not as %s makes them (χ² %.1f > %.1f, df %d): %d bursts of length %s where the model expects %.1f; the longest burst is %d packets, the model's longest of %d bursts about %.0f; heavy-tailed bursts (Wi-Fi retries, handovers) that none of the lab's Markov loss models produces",
			model, bt.Stat, bt.Crit, bt.DF, worst.Observed, binText(worst), worst.Expected, len(d.Bursts), nb, longest)
	default:
		add(false, "loss: %s fits the burst lengths (χ² %.1f ≤ %.1f, df %d)", model, bt.Stat, bt.Crit, bt.DF)
	}
	// Reorder: the fitted link (jitter and reorder) against the observed
	// share of packets out of order; their difference has a standard error
	// of about √(2·r(1−r)/n).
	r, n := d.ReorderObserved, float64(d.Delivered)
	tol := max(4*math.Sqrt(2*max(float64(r*(1-r)), 1/n)/n), reorderVisible)
	switch {
	case r-d.ReorderModel > tol:
		add(true, "reorder: %.2f%% of the packets arrive out of order, the fitted link only %.2f%%: the path reorders in a way neither its jitter nor netem's reorder (a packet skipping the delay) makes", 100*r, 100*d.ReorderModel)
	case d.Skipped > 0:
		add(false, "reorder: %d packets (%.2f%%) skipped the delay, below the jitter's range: netem's reorder %.2f%% (out of order: %.2f%% observed, %.2f%% the fitted link)", d.Skipped, 100*d.Reorder, 100*d.Reorder, 100*r, 100*d.ReorderModel)
	}
}

// Misfit reports whether any verdict of the capture is a misfit.
func (r *Result) Misfit() bool {
	for _, d := range r.Dirs {
		for _, v := range d.Verdicts {
			if v.Misfit {
				return true
			}
		}
	}
	return false
}

// binText names a bin's lengths in a sentence: "3", "12 or more".
func binText(b BurstBin) string {
	if b.To == 0 {
		return fmt.Sprintf("%d or more", b.From)
	}
	return fmt.Sprint(b.From)
}
