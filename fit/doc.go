// Package fit fits the lab's link model to a per-packet capture
// ([trace.Trace]) and says where it does not fit.
//
// Per direction [Fit] removes the clock drift between the two ends (the
// lower envelope of one-way delays against send time), picks the jitter
// distribution among the lab's five by the Kolmogorov–Smirnov distance,
// estimates the AR(1) correlation from normal scores, chooses Bernoulli,
// Gilbert–Elliott or netem's 4-state loss (fitted by EM) by BIC and tests
// the burst lengths the chosen model implies, estimates netem's reorder
// from the packets that skipped the delay and compares the packets out of
// order with the fitted link's. The [Result] writes a text report, a scenario TOML and an HTML page; the same
// capture gives the same bytes. docs/explanation/fit.md states every method.
package fit
