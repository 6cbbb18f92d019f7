// Package diagnose answers "my player jitters: why, and what fixes it?".
// [Run] runs a configuration on many seeds (the reference), then every
// single alternative of every variant key of the lab's registry
// ([lab.Variants]), ranks the changes by the paired difference of a report
// card metric with its 95 % interval ([stats.Paired]), combines greedily
// the ones that meet one bar (a significant gain in the metric or the
// tie-break, neither worse, the [Costs] within their allowances, no other
// figure worse: docs/explanation/diagnose-bar.md; when none does alone, the best ones
// two at a time: [Pair]), and states findings: rules over
// the reference's counters and over what the scenario's timeline does to
// the link (blackouts, periodic latency, latency steps: timeline.go), each tied to a
// measured number and a mechanism that a test proves, and ranked by what
// the mechanism costs, measured against the same runs without it
// ([Finding.Cost]). The result is deterministic: the same options give
// byte-identical text and JSON, whatever the number of workers.
package diagnose
