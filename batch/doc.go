// Package batch is the lab's results as data: a batch (lab ab, lab sweep)
// runs configurations ("arms") on the same seeds; every run becomes one
// [Run] record (scenario, seed, the full effective parameter set, every
// report-card and summary metric, the version, and the [Definition] it
// belongs to with its hash), and a [Result] turns the records into means
// with 95 % intervals over seeds and paired differences seed by seed
// ([stats]). [NewPlan] builds a batch's runs from its [Definition], which
// [Definition.Validate] checks first. The records are the unit of sharding: a [Shard] runs a
// deterministic share of the runs, [Merge] checks and combines the shards'
// JSON lines, and both give the same Result, so every table (text, CSV,
// JSON, HTML) is byte for byte the same as the unsharded batch's. The JSON
// schema is documented in docs/reference/json.md and docs/jitterlab.schema.json.
//
// A [Runner] runs arms over seeds for every comparison (a batch's
// [Plan.Execute], its [Plan.Timelines], package diagnose's rounds and
// package compare's model runs): each run's result has its place by
// index, whatever the number of workers, and each worker resets and
// reuses one session ([Worker]) from run to run and round to round.
package batch
