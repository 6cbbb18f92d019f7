package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeOfShardsIsTheSweep (issue 10 item 4): four shards of a grid
// sweep merged give the in-process sweep's table, CSV, JSON and HTML byte
// for byte, whatever the order of the files.
func TestMergeOfShardsIsTheSweep(t *testing.T) {
	dir := t.TempDir()
	sweep := []string{"sweep", "--over", "link.jitter=0ms,20ms", "--over", "client.sender=frame,accumulator", "--seeds", "1-3", "--duration", "8s"}
	outputs := func(prefix string, args ...string) map[string]string {
		got := map[string]string{}
		for _, asJSON := range []bool{false, true} {
			a := append(append([]string{}, args...), "--csv", prefix+".csv", "--html", prefix+".html")
			if asJSON {
				a = append(a, "--json")
			}
			code, out, errOut := runLab(t, a...)
			if code != 0 {
				t.Fatalf("%v: %s", a, errOut)
			}
			got[map[bool]string{false: "text", true: "json"}[asJSON]] = out
			for _, ext := range []string{".csv", ".html"} {
				b, _ := os.ReadFile(prefix + ext)
				got[ext] = string(b)
			}
		}
		return got
	}
	want := outputs(filepath.Join(dir, "full"), sweep...)
	var shards []string
	for _, i := range []string{"3", "1", "4", "2"} {
		p := filepath.Join(dir, "shard-"+i+".jsonl")
		if code, _, errOut := runLab(t, append(append([]string{}, sweep...), "--shard", i+"/4", "--jsonl", p)...); code != 0 {
			t.Fatal(errOut)
		}
		shards = append(shards, p)
	}
	got := outputs(filepath.Join(dir, "merged"), append([]string{"merge"}, shards...)...)
	for k, w := range want {
		if got[k] != w || w == "" {
			t.Errorf("merge's %s differs from the sweep's", k)
		}
	}
}

// TestMergeRefusesForeignShards (issue 10 item 4): shards of another sweep,
// of another version, a shard given twice, one missing, an edited line or
// a file that is not a shard: each one clear error naming the file.
func TestMergeRefusesForeignShards(t *testing.T) {
	dir := t.TempDir()
	shard := func(name string, args ...string) string {
		p := filepath.Join(dir, name)
		a := append([]string{"sweep", "--over", "link.loss=0%,5%", "--seeds", "1-2", "--duration", "3s", "--jsonl", p}, args...)
		if code, _, errOut := runLab(t, a...); code != 0 {
			t.Fatal(errOut)
		}
		return p
	}
	s1, s2 := shard("s1", "--shard", "1/2"), shard("s2", "--shard", "2/2")
	other := shard("other", "--shard", "2/2", "--set", "link.latency=80ms")
	b, _ := os.ReadFile(s2)
	edit := func(name, from, to string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(strings.Replace(string(b), from, to, 1)), 0o644)
		return p
	}
	v2 := edit("v2", `"version":"`, `"version":"v2 `)
	edited := edit("edited", `"duration_s":3`, `"duration_s":4`)
	notShard := filepath.Join(dir, "notes.txt")
	os.WriteFile(notShard, []byte("hello\n"), 0o644)
	for _, c := range []struct {
		files []string
		want  []string
	}{
		{[]string{s1, other}, []string{"other:1", "different sweeps"}},
		{[]string{s1, v2}, []string{"v2:1", "version", "one lab version"}},
		{[]string{s1, s1}, []string{"s1:1", "again"}},
		{[]string{s1}, []string{"2 of 4 runs missing"}},
		{[]string{s1, edited}, []string{"edited:1", "edited"}},
		{[]string{notShard}, []string{"notes.txt:1", "not a run"}},
		{[]string{filepath.Join(dir, "nope")}, []string{"nope"}},
		{nil, []string{"name the shards"}},
	} {
		code, out, errOut := runLab(t, append([]string{"merge"}, c.files...)...)
		ok := code != 0 && out == "" && strings.Count(strings.TrimSpace(errOut), "\n") == 0
		for _, w := range c.want {
			ok = ok && strings.Contains(errOut, w)
		}
		if !ok {
			t.Errorf("merge %v: exit %d, stderr %q; want one line with %q", c.files, code, errOut, c.want)
		}
	}
	if code, _, errOut := runLab(t, "merge", s2, s1); code != 0 {
		t.Errorf("merge s2 s1: %s", errOut)
	}
	if code, _, errOut := runLab(t, "sweep", "--over", "link.loss=0%", "--shard", "1/2", "--csv", "x.csv"); code == 0 || !strings.Contains(errOut, "--shard and --csv") {
		t.Errorf("--shard with --csv: %d %q", code, errOut)
	}
}

// TestShardRecipesInDocsRun (issue 10 item 4): the Slurm script maps
// SLURM_ARRAY_TASK_ID to --shard, the Kubernetes manifest maps
// JOB_COMPLETION_INDEX, and the sweep both run is a valid lab command.
func TestShardRecipesInDocsRun(t *testing.T) {
	for _, c := range []struct {
		file, sweepFrom, sweepTo string
		want                     []string
	}{
		{"slurm-sweep.sbatch", "SWEEP=(", ")", []string{`--shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT"`, "#SBATCH --array=1-4", "--dependency=\"afterok:$SLURM_ARRAY_JOB_ID\"", "merge $OUT/shard-*.jsonl"}},
		{"k8s-sweep-job.yaml", "/jitterlab sweep", "--shard", []string{"completionMode: Indexed", "--shard $((JOB_COMPLETION_INDEX + 1))/4", "completions: 4", "/jitterlab merge /shards/shard-*.jsonl"}},
	} {
		b, err := os.ReadFile(filepath.Join("../../docs", c.file))
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, w := range c.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s lacks %q", c.file, w)
			}
		}
		_, rest, ok := strings.Cut(s, c.sweepFrom)
		sweep, _, ok2 := strings.Cut(rest, c.sweepTo)
		if !ok || !ok2 {
			t.Fatalf("%s: no sweep command", c.file)
		}
		args := strings.Fields(sweep)
		if args[0] != "sweep" {
			args = append([]string{"sweep"}, args...)
		}
		// The recipe's sweep, shortened (the last --seeds and --duration win).
		args = append(args, "--seeds", "1-2", "--duration", "2s", "--shard", "1/4")
		// 12 runs in 4 shards: the header line and 3 runs.
		if code, out, errOut := runLab(t, args...); code != 0 || strings.Count(out, "\n") != 1+3 || !strings.HasPrefix(out, `{"schema":2,`) || !strings.Contains(strings.SplitN(out, "\n", 2)[0], `"shard":"1/4","runs":3`) {
			t.Errorf("%s: lab %v: exit %d, %d lines, %s", c.file, args, code, strings.Count(out, "\n"), errOut)
		}
	}
}

// TestEmptyShardMerges (issue 8, QA item 3): with more shards than runs
// (a Slurm array or a parallel recipe of more tasks than runs) a shard with
// no runs is valid: its file holds the header line that names the batch, the
// sweep says so on standard error, and the merge of every shard is the
// in-process sweep. A shard cut short of the runs its header announces is
// refused naming the file.
func TestEmptyShardMerges(t *testing.T) {
	dir := t.TempDir()
	sweep := []string{"sweep", "--over", "link.loss=0%,5%", "--seeds", "1", "--duration", "2s"}
	code, want, errOut := runLab(t, sweep...)
	if code != 0 {
		t.Fatal(errOut)
	}
	var shards []string
	for _, i := range []string{"1", "2", "3", "4"} {
		p := filepath.Join(dir, "shard-"+i+".jsonl")
		code, _, errOut := runLab(t, append(append([]string{}, sweep...), "--shard", i+"/4", "--jsonl", p)...)
		if code != 0 {
			t.Fatal(errOut)
		}
		lines := readLines(t, p)
		if i > "2" && (len(lines) != 1 || !strings.Contains(lines[0], `"shard":"`+i+`/4"`) || !strings.Contains(errOut, "no runs")) {
			t.Errorf("shard %s/4 of 2 runs: %d lines %q, stderr %q; want the header line alone and a note", i, len(lines), lines, errOut)
		}
		shards = append(shards, p)
	}
	code, got, errOut := runLab(t, append([]string{"merge"}, shards...)...)
	if code != 0 || got != want {
		t.Fatalf("merge of 4 shards of 2 runs: exit %d, %s\n%s\nwant\n%s", code, errOut, got, want)
	}
	if code, _, errOut := runLab(t, "merge", shards[2], shards[3]); code == 0 || !strings.Contains(errOut, "2 of 2 runs missing") || !strings.Contains(errOut, "shard 1/4") {
		t.Errorf("merge of the empty shards alone: exit %d, %q", code, errOut)
	}
	b, _ := os.ReadFile(shards[0])
	cut := filepath.Join(dir, "cut.jsonl")
	os.WriteFile(cut, []byte(strings.SplitAfter(string(b), "\n")[0]), 0o644)
	if code, _, errOut := runLab(t, "merge", cut, shards[1], shards[2], shards[3]); code == 0 || !strings.Contains(errOut, "cut.jsonl") || !strings.Contains(errOut, "cut short") {
		t.Errorf("merge of a shard without its run: exit %d, %q", code, errOut)
	}
}
