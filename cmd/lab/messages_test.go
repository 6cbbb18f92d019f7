package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"jitterlab/batch"
	"jitterlab/stats"
)

// TestMessagesReadRight (issue 8, QA item 8): one prefix per message, the
// kind of a file that is not a recording in words, plurals that agree, the
// duration next to what it is.
func TestMessagesReadRight(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := runLab(t, "merge")
	if strings.Contains(errOut, "merge: merge:") || !strings.HasPrefix(errOut, "lab merge: name the shards") || code != 2 {
		t.Errorf("lab merge without files: exit %d, %q", code, errOut)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{fifo, "is a named pipe (FIFO), not a recording"},
		{dir, "is a directory, not a recording"},
		{"/dev/null", "is a device, not a recording"},
	} {
		code, _, errOut := runLab(t, "replay", c.path)
		if code == 0 || !strings.Contains(errOut, c.path+": "+c.want) || strings.Contains(errOut, "---") {
			t.Errorf("replay %s: exit %d, %q; want %q", c.path, code, errOut, c.want)
		}
	}
	// One timeline change is "1 change".
	sc := filepath.Join(dir, "one.toml")
	os.WriteFile(sc, []byte("duration = \"4s\"\n\n[[timeline]]\nat = \"2s\"\nlink.latency = \"30ms\"\n"), 0o644)
	rec := filepath.Join(dir, "one.jlrec")
	if code, _, errOut := runLab(t, "run", "--scenario", sc, "--record", rec); code != 0 {
		t.Fatal(errOut)
	}
	_, out, _ := runLab(t, "replay", rec, "--verify")
	if !strings.Contains(out, "and 1 change,") {
		t.Errorf("replay --verify of one change: %q", out)
	}
	_, out, _ = runLab(t, "sweep", "--scenario", sc, "--over", "link.loss=0%,1%", "--seeds", "1")
	if !strings.Contains(out, "a timeline of 1 change (") {
		t.Errorf("sweep over a scenario of one change:\n%s", out)
	}
	// A timeline entry past the run: the duration next to its name.
	os.WriteFile(sc, []byte("[[timeline]]\nat = \"40s\"\nlink.latency = \"30ms\"\n"), 0o644)
	_, _, errOut = runLab(t, "run", "--scenario", sc, "--duration", "30s")
	if !strings.Contains(errOut, "after the run's duration 30s (the scenario sets none)") {
		t.Errorf("a timeline past the run: %q", errOut)
	}
}

// TestNoNegativeZeroOrMeaninglessPercent (issue 8, QA item 8): a figure
// that rounds to zero is 0, never −0 or +0; a change in % only where it
// reads as one: a significant difference, on a base clearly away from 0,
// that does not flip the sign (−101 % of a deficit that turned into a
// surplus says nothing a reader can use).
func TestNoNegativeZeroOrMeaninglessPercent(t *testing.T) {
	deficit := batch.Metrics[0] // progress_deficit_mps, 3 decimals
	if deficit.Name != "progress_deficit_mps" {
		t.Fatalf("Metrics[0] is %s", deficit.Name)
	}
	r := &batch.Result{Def: batch.Definition{Kind: "ab", Seeds: []uint64{1, 2, 3, 4}}}
	set := func(a, b []float64) {
		r.Runs = nil
		for arm, vs := range [][]float64{a, b} {
			for i, v := range vs {
				r.Runs = append(r.Runs, batch.Run{Index: arm*4 + i, Arm: arm, Metrics: map[string]batch.Value{deficit.Name: batch.Value(v)}})
			}
		}
	}
	for _, c := range []struct {
		name   string
		a, b   []float64
		pct    bool
		diffIs string
	}{
		{"sign flip", []float64{0.3, 0.28, 0.26, 0.3}, []float64{-0.002, -0.003, -0.001, -0.002}, false, ""},
		{"not significant", []float64{0.5, 0.3, 0.7, 0.4}, []float64{0.45, 0.35, 0.6, 0.42}, false, ""},
		{"significant halving", []float64{0.4, 0.41, 0.39, 0.4}, []float64{0.2, 0.21, 0.19, 0.2}, true, ""},
		{"rounds to zero", []float64{0.4, 0.4, 0.4, 0.4}, []float64{0.4001, 0.3999, 0.4, 0.4}, false, "0.000 ± 0.000"},
	} {
		set(c.a, c.b)
		_, ok := r.Percent(0, 1, deficit)
		if ok != c.pct {
			t.Errorf("%s: a percentage %v, want %v", c.name, ok, c.pct)
		}
		if d := batch.FormatDiff(r.Paired(0, 1, deficit), deficit.Prec); c.diffIs != "" && d != c.diffIs {
			t.Errorf("%s: B − A %q, want %q", c.name, d, c.diffIs)
		}
	}
	if s := batch.FormatInterval(stats.Mean([]float64{-0.0001, -0.0002}), 3); strings.HasPrefix(s, "-") {
		t.Errorf("a mean that rounds to zero: %q", s)
	}
	_, out, _ := runLab(t, "ab", "--scenario", "jitter-fix", "--duration", "30s", "--seeds", "1-5", "--b", "server.inputs=queue")
	for _, bad := range []string{" -0.0 ", " -0.00 ", " -0.000 ", "+0.0 ", "+0.00 ", "+0.000 ", "+0%", "-0%", "-101%"} {
		if strings.Contains(out, bad) {
			t.Errorf("ab prints %q:\n%s", bad, out)
		}
	}
}

// TestBadCommandLineExits2 (issue 8, QA item 8): every error of the
// command line — a flag, a value, a --set, a scenario, flags that
// contradict each other — exits 2 with one line, as a flag the parser
// refuses does; a command that fails (a file it cannot read or write,
// shards that do not merge) exits 1; 'lab -h' says so.
func TestBadCommandLineExits2(t *testing.T) {
	dir := t.TempDir()
	rec := "../../recordings/examples/jitter-fix.jlrec"
	x := filepath.Join(dir, "x")
	for _, args := range [][]string{
		{"run", "--set", "up.jiter=5ms"},
		{"run", "--set", "up.latency=-5ms"},
		{"run", "--set", "nokeyvalue"},
		{"run", "--scenario", "nosuch"},
		{"run", "--csv", x, "--packets", x},
		{"run", "--set", "sim.seed=3", "--seed", "4"},
		{"ab"},
		{"ab", "--b", "server.inputs=queue", "--seeds", "5-1"},
		{"ab", "--b", "server.inputs=queue", "--seed", "7"},
		{"ab", "--b", "server.inputs=sometimes"},
		{"sweep", "--over", "nokey"},
		{"sweep"},
		{"sweep", "--over", "link.loss=0%", "--workers", "0"},
		{"sweep", "--over", "link.loss=0%", "--shard", "5/4"},
		{"sweep", "--over", "link.loss=0%", "--shard", "1/2", "--csv", x},
		{"sweep", "--over", "link.loss=0%", "--html", "-"},
		{"sweep", "--over", "link.loss=0%", "--json", "--csv", "-"},
		{"merge"},
		{"plot", "--duration", "2s"},
		{"plot", "--duration", "10s", "--from", "5s", "--to", "2s", "--out", x},
		{"replay"},
		{"replay", rec, rec},
		{"replay", rec, "--from", "2000s"},
		{"export", rec, "--from", "20s", "--to", "10s"},
		{"export", rec, "--packets", x},
	} {
		code, out, errOut := runLab(t, args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line", args, code, errOut)
		}
	}
	os.WriteFile(x, []byte("not a shard\n"), 0o644)
	for _, args := range [][]string{
		{"replay", filepath.Join(dir, "nosuch.jlrec")},
		{"run", "--duration", "1s", "--csv", filepath.Join(dir, "no-such-folder", "t.csv")},
		{"merge", x},
	} {
		if code, _, errOut := runLab(t, args...); code != 1 {
			t.Errorf("%v: exit %d (%q); want 1, the command failed", args, code, errOut)
		}
	}
	_, out, _ := runLab(t, "-h")
	if !strings.Contains(out, "Exit status: 0 done; 1 the command failed") || !strings.Contains(out, "2 a bad command line") {
		t.Errorf("lab -h does not state the exit statuses:\n%s", out)
	}
}
