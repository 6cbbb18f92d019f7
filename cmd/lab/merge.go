package main

import (
	"fmt"
	"io"
	"strings"

	"jitterlab/batch"
	"jitterlab/internal/files"
	"jitterlab/lab"
)

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	var f batchFlags
	var trust lab.Trust
	fs := newFlagSet("merge", "FILE… [--csv FILE] [--json] [--html FILE]", stderr, withExamples(nil,
		"lab merge shard-*.jsonl",
		"lab merge shard-1.jsonl shard-2.jsonl --csv sweep.csv --html sweep.html"))
	f.registerOutputs(fs, false)
	trustVar(fs, &trust, "a shard's settings (with --html)")
	f.workers = 1
	shards, err := parseFlagsAndArgs(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(shards) == 0 {
		return badUsage("name the shards' files, e.g. lab merge shard-*.jsonl (written by 'lab sweep --shard i/n')")
	}
	f.inputs = shards
	if err := checkOutputs(map[string]string{"csv": f.csv, "html": f.html}, shards...); err != nil {
		return err // before a shard is read
	}
	m := batch.NewMerger()
	for _, name := range shards {
		if err := readShard(m, name); err != nil {
			return err
		}
	}
	r, err := m.Result()
	if err != nil {
		return err
	}
	outs, err := f.open(stdout)
	if err != nil {
		return err
	}
	defer outs.abort()
	var p *batch.Plan
	if f.html != "" {
		// The report's timelines run the representative seed again.
		if err := r.Def.Trusted(trust); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
		if p, err = planOf(&r.Def); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
	}
	return outs.write(r, &f, p, stdout, stderr)
}

func readShard(m *batch.Merger, name string) error {
	in, _, err := files.OpenRegular(name) // a named pipe is refused, not waited on
	if err != nil {
		return err
	}
	defer in.Close()
	return m.Read(in, name)
}

// planOf rebuilds the plan of a batch from its definition: the scenario
// (by name, or its file), the overrides and the duration as the batch
// was given them, and every arm's configuration.
func planOf(def *batch.Definition) (*batch.Plan, error) {
	var o runOptions
	fs := newFlagSet("merge", "", io.Discard, nil)
	o.register(fs)
	args := []string{"--duration", def.Duration().String()}
	if def.ScenarioFile != "" {
		sc := def.ScenarioFile
		if strings.HasPrefix(sc, "builtin/") {
			sc = def.Scenario
		}
		args = append(args, "--scenario", sc)
	}
	for _, s := range def.Overrides {
		args = append(args, "--set", s)
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	want := *def
	want.Link, want.Version = nil, ""
	p, err := newPlan(&o, def.Seeds, want)
	if err != nil {
		return nil, err
	}
	if p.Def.Version != def.Version {
		return nil, fmt.Errorf("the shards are version %q, this lab is %q: the timelines would come from another model", def.Version, p.Def.Version)
	}
	if p.Def.Hash() != def.Hash() {
		return nil, fmt.Errorf("the batch's scenario %s no longer gives the batch's conditions (its file changed?)", def.Scenario)
	}
	p.Def = *def
	return p, nil
}
