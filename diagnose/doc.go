// Package diagnose answers "my player jitters: why, and what fixes it?".
// [Run] runs a configuration on many seeds (the reference), then every
// single alternative of every variant key of the lab's registry
// ([lab.Variants]) and a short ladder of numeric knobs, ranks the changes
// by the paired difference of a report card metric with its 95 % interval
// ([stats.Paired]), tries pairs (the best singles, and the changes known
// to act together: [Pair]) and combines them by a beam search, taking a
// change only when it meets one bar (a significant gain in the metric or
// the tie-break, neither worse, the [Costs] within their allowances, no
// other figure worse, each by at least its practical floor, [Floors]:
// docs/explanation/diagnose-bar.md) and holds in every cell of an ensemble of latency
// offsets and input scripts ([Cell], [Robustness]). It says what each
// condition of the link and the clocks costs, removed in turn
// ([Attribution]), and states findings: rules over the reference's
// counters and over what the scenario's timeline does to the link
// (blackouts, periodic latency, latency steps: timeline.go), each tied to
// a measured number and a mechanism that a test proves, and ranked by what
// the mechanism costs, measured against the same runs without it
// ([Finding.Cost]). Every round runs on one [batch.Runner]. The result is deterministic: the same options give
// byte-identical text and JSON, whatever the number of workers.
package diagnose
