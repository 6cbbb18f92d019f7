package main

import (
	"fmt"
	"io"
	"strings"

	"jitterlab/batch"
	"jitterlab/lab"
)

// parseAxes reads every --over as key=v1,v2,...; the batch's definition
// checks what they set (batch.Definition.Validate).
func parseAxes(overs []string) ([]batch.Axis, error) {
	var axes []batch.Axis
	for _, over := range overs {
		key, list, ok := strings.Cut(over, "=")
		key = strings.TrimSpace(key)
		values := lab.SplitAssignments(list)
		if !ok || key == "" || len(values) == 0 {
			return nil, badUsage("--over %q: want key=v1,v2,... e.g. --over link.jitter=0ms,10ms,20ms", over)
		}
		axes = append(axes, batch.Axis{Key: key, Values: values})
	}
	if len(axes) == 0 {
		return nil, badUsage("--over: give the parameter and its values, e.g. --over link.jitter=0ms,10ms,20ms")
	}
	return axes, nil
}

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var f batchFlags
	var overs setFlags
	var shardSpec string
	fs := newFlagSet("sweep", "--over 'link.jitter=0ms,10ms,20ms,40ms' [--over …] [--scenario NAME] [--seeds 1-20] [--csv FILE] [--json] [--jsonl FILE] [--html FILE] [--shard i/n]", stderr, withExamples(paramHelp,
		"lab sweep --over link.jitter=0ms,10ms,20ms,40ms --set link.latency=50ms",
		"lab sweep --scenario mobile-4g --over server.tick=20ms,50ms --over client.sender=frame,accumulator",
		"lab sweep --over link.loss=0%,1%,5% --seeds 1-10 --shard 2/4 --jsonl shard-2.jsonl   # then: lab merge shard-*.jsonl"))
	o.register(fs)
	fs.Lookup("seed").Usage = "not for sweep: every value runs on every seed of --seeds"
	fs.Var(&overs, "over", "a parameter and its values: `key=v1,v2,...`; repeat it for a grid of every combination")
	f.register(fs, "every value")
	fs.StringVar(&shardSpec, "shard", "", "run only share `i/n` of the runs (1 ≤ i ≤ n) and write their JSON lines (to --jsonl or standard output) for 'lab merge'")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	axes, err := parseAxes(overs)
	if err != nil {
		return err
	}
	seeds, err := parseSeeds(f.seeds)
	if err != nil {
		return err
	}
	p, err := newPlan(&o, seeds, batch.Definition{Kind: "sweep", Axes: axes})
	if err != nil {
		return err
	}
	if shardSpec == "" {
		f.inputs = o.inputs()
		return runBatch(p, &f, stdout, stderr)
	}
	shard, err := batch.ParseShard(shardSpec)
	if err != nil {
		return cmdLineErr(err)
	}
	f.inputs = o.inputs()
	return runShard(p, shard, &f, stdout, stderr)
}

// runShard runs one shard and writes its header line and its runs' JSON
// lines. A shard with no runs (more shards than runs) writes its header
// alone, says so, and merges with the others.
func runShard(p *batch.Plan, shard batch.Shard, f *batchFlags, stdout, stderr io.Writer) error {
	for name, given := range map[string]bool{"json": f.json, "csv": f.csv != "", "html": f.html != ""} {
		if given {
			return badUsage("--shard and --%s: a shard writes JSON lines only; 'lab merge' writes the tables from all shards", name)
		}
	}
	if err := checkWorkers(f.workers); err != nil {
		return err
	}
	path := f.jsonl
	if path == "" {
		path = "-"
	}
	if err := checkOutputs(map[string]string{"jsonl": path}, f.inputs...); err != nil {
		return err
	}
	out, err := openOutput(path, stdout, whole)
	if err != nil {
		return err
	}
	defer out.Abort()
	runs, err := execute(p, shard, f.workers, "lab sweep", stderr)
	if err != nil {
		return err
	}
	h := shard.Header(&p.Def)
	if h.Runs == 0 {
		fmt.Fprintf(stderr, "lab sweep: shard %v has no runs (the sweep has %d): %s holds its header line alone, which 'lab merge' accepts\n", shard, p.Def.Runs(), out.Name())
	}
	if err := batch.WriteShard(out, h, runs); err != nil {
		return err
	}
	return out.Commit()
}
