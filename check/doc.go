// Package check is netcode quality as a CI gate ('lab check'). A gate is
// a scenario file with seeds = "1-20" and [[assert]] entries
// ([scenarios.Assert]); [Load] gives each entry its figure (named as
// 'lab run --json' names it, from the one table, [batch.Metrics]) and
// checks its bounds' units and signs. [Run] runs every gate over its
// seeds with the batch runner, and [Judge] turns each figure's per-seed
// values into a [Verdict]: pass when the 95 % interval over the seeds lies
// wholly inside the bound, fail when wholly past it, inconclusive
// otherwise, with an estimate of the seeds that would decide it. A
// [Baseline] holds per-seed figures, so max_worse is judged on paired
// differences over the same seeds, and refuses figures of other
// conditions or another [lab.ModelVersion]. The writers give the verdicts
// as text, JUnit XML, Markdown, GitHub annotations and JSON
// (docs/guide/ci-gate.md).
package check
