package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSeedsAreBounded (issue 15 item 1): --seeds accepts at most 1000
// distinct seeds anywhere in [0, 2^64); the last seed no longer wraps the
// loop counter into an endless list.
func TestSeedsAreBounded(t *testing.T) {
	for spec, want := range map[string][]uint64{
		"18446744073709551615":                      {math.MaxUint64},
		"18446744073709551614-18446744073709551615": {math.MaxUint64 - 1, math.MaxUint64},
		"1-3,9": {1, 2, 3, 9},
		" 4 ":   {4},
	} {
		if got, err := parseSeeds(spec); err != nil || !slices.Equal(got, want) {
			t.Errorf("parseSeeds(%q) = %v, %v; want %v", spec, got, err, want)
		}
	}
	if got, err := parseSeeds("1-1000"); err != nil || len(got) != 1000 {
		t.Errorf("1-1000: %d seeds, %v", len(got), err)
	}
	for _, spec := range []string{"0-18446744073709551615", "1-1001", "1-600,601-1200", "1,1", "1-3,2", "5-1", "-1", "1-", "", "a"} {
		if got, err := parseSeeds(spec); err == nil || !strings.Contains(err.Error(), "--seeds") {
			t.Errorf("parseSeeds(%q) = %d seeds, %v; want an error naming --seeds", spec, len(got), err)
		}
	}
	code, out, errOut := runLab(t, "ab", "--seeds", "18446744073709551615", "--duration", "2s", "--b", "server.inputs=queue")
	if code != 0 || !strings.Contains(errOut, "2 runs") {
		t.Fatalf("ab on the last seed: %d %s %s", code, out, errOut)
	}
}

// FuzzSeeds: an accepted --seeds spec gives at most 1000 distinct seeds,
// and formatSeeds writes them back as a spec that reads the same.
func FuzzSeeds(f *testing.F) {
	for _, s := range []string{"1-5", "1,4,9", "18446744073709551615", "0-999", "1-3,7-9,5", "1,1", "5-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		seeds, err := parseSeeds(spec)
		if err != nil {
			return
		}
		if len(seeds) == 0 || len(seeds) > maxSeeds {
			t.Fatalf("%q: %d seeds", spec, len(seeds))
		}
		seen := map[uint64]bool{}
		for _, s := range seeds {
			if seen[s] {
				t.Fatalf("%q: seed %d twice", spec, s)
			}
			seen[s] = true
		}
		back, err := parseSeeds(formatSeeds(seeds))
		if err != nil || !slices.Equal(back, seeds) {
			t.Fatalf("%q → %v → %q → %v %v", spec, seeds, formatSeeds(seeds), back, err)
		}
	})
}

// TestConflictingSettingsAreErrors (issue 8 item 6): two settings of the
// same thing are an error naming both, never a silent winner. A batch's
// own refusals are batch's (TestPlanRefusals); --b sim.seed here says the
// command line reports them.
func TestConflictingSettingsAreErrors(t *testing.T) {
	dir := t.TempDir()
	b := []string{"--duration", "2s", "--b", "server.inputs=queue"}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{append([]string{"ab", "--seed", "7"}, b...), []string{"--seed 7", "--seeds"}},
		{[]string{"ab", "--duration", "2s", "--b", "sim.seed=3"}, []string{"--b sim.seed=3", "--seeds"}},
		{[]string{"sweep", "--seed", "7", "--duration", "2s", "--over", "link.loss=0%,1%"}, []string{"--seed 7", "--seeds"}},
		{[]string{"sweep", "--duration", "2s", "--over", "link.loss=0%,1%", "--over", "link.loss=5%"}, []string{"--over link.loss", "twice"}},
		{[]string{"run", "--set", "sim.seed=3", "--seed", "4"}, []string{"--set sim.seed=3", "--seed 4"}},
		{[]string{"run", "--set", "sim.duration=10s", "--duration", "20s"}, []string{"--set sim.duration=10s", "--duration 20s"}},
		{[]string{"run", "--csv", "-", "--packets", "-"}, []string{"--csv -", "--packets -"}},
		{[]string{"run", "--csv", filepath.Join(dir, "x"), "--record", filepath.Join(dir, "..", filepath.Base(dir), "x")}, []string{"--csv", "--record", "the same output"}},
	} {
		code, out, errOut := runLab(t, c.args...)
		ok := code != 0 && out == ""
		for _, w := range c.want {
			ok = ok && strings.Contains(errOut, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stderr %q; want an error naming %q", c.args, code, errOut, c.want)
		}
	}
	// One setting alone is fine: the seed of --set sim.seed is the run's.
	code, out, _ := runLab(t, "run", "--set", "sim.seed=3", "--duration", "1s", "--json")
	if code != 0 || !strings.Contains(out, `"seed": 3`) {
		t.Errorf("run --set sim.seed=3: %d %s", code, out)
	}
}

// TestSweepOverTwoParametersIsAGrid (issue 8 item 6, issue 10 item 3): a
// repeated --over sweeps every combination.
func TestSweepOverTwoParametersIsAGrid(t *testing.T) {
	csvPath := filepath.Join(t.TempDir(), "grid.csv")
	code, out, errOut := runLab(t, "sweep", "--over", "link.jitter=0ms,20ms", "--over", "link.loss=0%,5%,10%", "--seeds", "1-2", "--duration", "5s", "--csv", csvPath)
	if code != 0 {
		t.Fatal(errOut)
	}
	// One column per combination, one header row per parameter.
	for _, row := range []string{"link.jitter 0ms 0ms 0ms 20ms 20ms 20ms", "link.loss 0% 5% 10% 0% 5% 10%"} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), row) {
			t.Errorf("the table lacks the header row %q:\n%s", row, out)
		}
	}
	if !strings.Contains(errOut, "12 runs") {
		t.Errorf("want 2 × 3 values × 2 seeds = 12 runs: %s", errOut)
	}
	f, _ := os.Open(csvPath)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 1+12 || strings.Join(rows[0][:3], ",") != "link.jitter,link.loss,seed" || strings.Join(rows[12][:3], ",") != "20ms,10%,2" {
		t.Fatalf("grid CSV: %v %v", rows, err)
	}
}

// TestBatchHeadersStateTheConditions (issue 8 item 5): ab and sweep say
// which scenario (and file), every --set, the seeds, the duration and the
// link they ran on.
func TestBatchHeadersStateTheConditions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mine.toml")
	os.WriteFile(file, []byte("link.latency = \"70ms\"\nlink.jitter = \"15ms\"\n"), 0o644)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"ab", "--scenario", "jitter-fix", "--set", "link.loss=1%", "--duration", "3s", "--seeds", "1-2", "--b", "server.inputs=queue"},
			[]string{"jitter-fix", "builtin/jitter-fix.toml", "--set link.loss=1%", "seeds 1-2", "3s", "latency 50ms", "jitter 20ms", "loss 1%", "B: server.inputs=queue"}},
		{[]string{"ab", "--scenario", file, "--duration", "3s", "--seeds", "4", "--b", "server.inputs=queue"},
			[]string{file, "latency 70ms", "jitter 15ms", "seeds 4"}},
		{[]string{"sweep", "--scenario", file, "--set", "server.inputs=queue", "--duration", "3s", "--seeds", "1,3", "--over", "link.loss=0%,1%"},
			[]string{file, "--set server.inputs=queue", "seeds 1,3", "3s", "latency 70ms"}},
	} {
		code, out, errOut := runLab(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: %s", c.args, errOut)
		}
		head := out[:strings.Index(out, "\n\n")]
		for _, w := range c.want {
			if !strings.Contains(head, w) {
				t.Errorf("%v: the header lacks %q:\n%s", c.args[0], w, head)
			}
		}
	}
}

// TestFlagErrorsNameFlagValueAndExample (issue 8 item 19).
func TestFlagErrorsNameFlagValueAndExample(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
		not  string
	}{
		{[]string{"run", "--duration", "banana"}, []string{`--duration "banana"`, "allowed", "e.g. --duration "}, ""},
		{[]string{"run", "--seed", "-1"}, []string{`--seed "-1"`, "allowed", "e.g. --seed "}, ""},
		{[]string{"plot", "--width", "10", "--out", "x.png"}, []string{`--width "10"`, "[200, 10000]", "e.g. --width "}, ""},
		{[]string{"ab", "--b", "link.jitter=fast"}, []string{"--b link.jitter=fast", `"fast"`}, "--set"},
		{[]string{"ab", "--a", "link.jiter=5ms", "--b", "server.inputs=queue"}, []string{"--a link.jiter=5ms", "did you mean"}, "--set"},
		{[]string{"sweep", "--over", "link.jitter=5ms,fast"}, []string{"--over link.jitter=fast", `"fast"`}, "--set"},
		{[]string{"run", "--scenario", "mobile-4g.toml"}, []string{"mobile-4g.toml", "--scenario mobile-4g"}, ""},
		{[]string{"run", "--set", "client.alpha=2"}, []string{"client.alpha", `"2"`, "(0, 1]"}, "1e-09"},
	} {
		code, _, errOut := runLab(t, c.args...)
		ok := code != 0 && strings.Count(strings.TrimSpace(errOut), "\n") == 0 && (c.not == "" || !strings.Contains(errOut, c.not))
		for _, w := range c.want {
			ok = ok && strings.Contains(errOut, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stderr %q; want one line with %q", c.args, code, errOut, c.want)
		}
	}
}

// TestDurationFlagsFollowOneRule (issue 8 item 1): every duration flag of
// every command takes 1ms to 1000h (window bounds also 0; the sample period
// of run and the lab 100µs to 1h; the proxy's counter line 100ms up to
// its --duration), with an error
// naming the flag, the value and the rule; the lab's --every 0 is no longer
// turned into 50ms, nor does the proxy's panic.
func TestDurationFlagsFollowOneRule(t *testing.T) {
	rec := "../../recordings/examples/jitter-fix.jlrec"
	for _, c := range []struct {
		flag string
		args []string
	}{
		{"--every", []string{"run", "--every", "0"}},
		{"--every", []string{"run", "--every", "-5ms"}},
		{"--every", []string{"run", "--every", "1ns", "--duration", "1ms"}},
		{"--every", []string{"run", "--every", "50ms80ms"}},
		{"--duration", []string{"run", "--duration", "0"}},
		{"--duration", []string{"run", "--duration", "1001h"}},
		{"--duration", []string{"ab", "--duration", "500us", "--b", "server.inputs=queue"}},
		{"--duration", []string{"sweep", "--duration", "-1s", "--over", "link.loss=0%"}},
		{"--from", []string{"plot", "--duration", "2s", "--from", "-1s", "--out", "x.png"}},
		{"--to", []string{"plot", "--duration", "2s", "--to", "1ns", "--out", "x.png"}},
		{"--from", []string{"export", rec, "--from", "-2s"}},
		{"--to", []string{"replay", rec, "--to", "2000h"}},
		{"--duration", []string{"--duration", "0"}},
		{"--every", []string{"--every", "0"}},
		{"--every", []string{"proxy", "--to", "127.0.0.1:9", "--every", "0"}},
		{"--every", []string{"proxy", "--to", "127.0.0.1:9", "--every", "-1s"}},
	} {
		rule := "1ms to 1000h"
		switch {
		case c.flag == "--every" && c.args[0] == "proxy":
			rule = "100ms up to the run's --duration" // the counter line's own (TestProxyEveryZeroHasItsOwnRule)
		case c.flag == "--every":
			rule = "100µs to 1h" // the sample period (TestEveryHasOneRule)
		}
		code, out, errOut := runLab(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.flag+" ") || !strings.Contains(errOut, rule) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s and the rule", c.args, code, errOut, c.flag)
		}
	}
}

// TestBatchOutputsAreTheSameForAnyWorkerCount (issue 9 item 2, issue 10):
// seeds run in parallel, and the table, the JSON, the JSON lines, the CSV
// and the HTML are the same bytes on 1 worker as on 3; nothing in them
// comes from the wall clock.
func TestBatchOutputsAreTheSameForAnyWorkerCount(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range [][]string{
		{"ab", "--scenario", "jitter-fix", "--duration", "10s", "--seeds", "1-4", "--b", "server.inputs=queue"},
		{"sweep", "--over", "link.jitter=0ms,20ms", "--duration", "10s", "--seeds", "1-3"},
	} {
		var first map[string]string
		for _, workers := range []string{"1", "3"} {
			got := map[string]string{}
			for _, format := range []string{"text", "json"} {
				p := filepath.Join(dir, cmd[0]+workers)
				args := append(append([]string{}, cmd...), "--workers", workers, "--jsonl", p+".jsonl", "--html", p+".html", "--csv", p+".csv")
				if format == "json" {
					args = append(args, "--json")
				}
				code, out, errOut := runLab(t, args...)
				if code != 0 {
					t.Fatalf("%v: %s", args, errOut)
				}
				got[format] = out
				for _, ext := range []string{".jsonl", ".html", ".csv"} {
					b, _ := os.ReadFile(p + ext)
					got[ext] = string(b)
				}
			}
			if first == nil {
				first = got
				continue
			}
			for k, v := range got {
				if v != first[k] || v == "" {
					t.Errorf("%s %s: 3 workers differ from 1 (or nothing written)", cmd[0], k)
				}
			}
		}
	}
}

// TestBatchesDefaultToTwentySeeds (issue 9 item 2): without --seeds, ab
// and sweep run every variant on seeds 1-20 and say so.
func TestBatchesDefaultToTwentySeeds(t *testing.T) {
	for _, c := range []struct {
		args []string
		runs string
	}{
		{[]string{"ab", "--duration", "1s", "--b", "server.inputs=queue"}, "40 runs"},
		{[]string{"sweep", "--duration", "1s", "--over", "link.loss=0%,1%,2%"}, "60 runs"},
	} {
		code, out, errOut := runLab(t, c.args...)
		if code != 0 || !strings.Contains(out, "seeds 1-20 (the same for") || !strings.Contains(errOut, c.runs) {
			t.Errorf("%v: exit %d, %q, %q; want seeds 1-20 and %s", c.args, code, out[:min(len(out), 300)], errOut, c.runs)
		}
	}
}

// TestDuplicateSettingsAreErrors (issue 8, QA item 6): a key given twice in
// one arm, two arms that are the same settings and a sweep value given
// twice are errors naming the flag and the value: an A/B of a variant with
// itself or a table with two identical columns says nothing. Every refusal
// is batch's (TestPlanRefusals); these say the command line exits 2 with
// one line.
func TestDuplicateSettingsAreErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"ab", "--a", "server.inputs=queue", "--b", "server.inputs=queue"}, []string{"--a server.inputs=queue", "--b server.inputs=queue", "the same"}},
		{[]string{"sweep", "--over", "link.jitter=1ms,2ms,1000us"}, []string{"--over link.jitter", "1ms", "1000us", "twice"}},
	} {
		args := append(append([]string{}, c.args...), "--duration", "1s", "--seeds", "1")
		code, out, errOut := runLab(t, args...)
		ok := code == 2 && out == "" && strings.Count(strings.TrimSpace(errOut), "\n") == 0
		for _, w := range c.want {
			ok = ok && strings.Contains(errOut, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming %q", args, code, errOut, c.want)
		}
	}
}
