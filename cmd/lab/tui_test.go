package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/tui"
)

// 'lab -h' lists the lab's keys and the parameters its --set takes.
func TestLabHelpListsKeysAndParameters(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}} {
		code, out, _ := runLab(t, args...)
		for _, want := range []string{"keys of the lab", "space     pause", "R         record the whole session", "q Ctrl-C", "up|down.latency", "--dir"} {
			if !strings.Contains(out, strings.TrimPrefix(want, "-")) {
				t.Errorf("lab %v lacks %q:\n%s", args, want, out)
			}
		}
		if code != 0 {
			t.Errorf("lab %v exits %d", args, code)
		}
	}
}

// --dir is checked at start, before the terminal: a missing folder or a
// file is one clear error naming the flag and the path.
func TestDirCheckedAtStart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	for _, dir := range []string{filepath.Join(t.TempDir(), "missing"), file} {
		code, _, errOut := runLab(t, "--dir", dir)
		if code != 1 || !strings.Contains(errOut, `--dir "`+dir+`"`) || strings.Contains(errOut, "terminal") {
			t.Errorf("--dir %s: exit %d, %q", dir, code, errOut)
		}
	}
}

// The d key's diagnosis takes 'lab diagnose”s seeds and duration; a bad
// one is refused at start, naming the lab's flag, before the terminal,
// as a bad command line: exit 2 (qa: the seeds' errors exited 1).
func TestDiagnoseFlagsCheckedAtStart(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--diagnose-seeds", "x"}, `--diagnose-seeds "x"`},
		{[]string{"--diagnose-seeds", "x"}, `e.g. --diagnose-seeds 1-10`}, // the example names the lab's flag
		{[]string{"--diagnose-seeds", "7"}, `--diagnose-seeds: 1 seed(s); an interval needs at least 2`},
		{[]string{"--diagnose-duration", "0s"}, `--diagnose-duration`},
	} {
		code, _, errOut := runLab(t, c.args...)
		if code != exitBadCommandLine || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "terminal") {
			t.Errorf("%v: exit %d, %q; want exit 2 and an error with %q", c.args, code, errOut, c.want)
		}
	}
}

// TestReplayTUIDirCheckedAtStart (QA defect 5): 'lab replay --tui' takes
// the lab's --dir for its e export and checks it at start, before the
// terminal, with the lab's message; --dir without --tui is refused.
func TestReplayTUIDirCheckedAtStart(t *testing.T) {
	rec := filepath.Join("..", "..", "recordings", "examples", "jitter-fix.jlrec")
	missing := filepath.Join(t.TempDir(), "missing")
	code, _, errOut := runLab(t, "replay", rec, "--tui", "--dir", missing)
	if code != 1 || !strings.Contains(errOut, `--dir "`+missing+`"`) || strings.Contains(errOut, "terminal") {
		t.Errorf("replay --tui --dir %s: exit %d, %q", missing, code, errOut)
	}
	code, _, errOut = runLab(t, "replay", rec, "--dir", t.TempDir())
	if code == 0 || !strings.Contains(errOut, "--dir") || !strings.Contains(errOut, "--tui") {
		t.Errorf("replay --dir without --tui: exit %d, %q", code, errOut)
	}
}

// The lab opens starlink without --duration: its oscillator changes the
// latency twice every 15 s, too many over the 1000 h the lab otherwise
// runs (it refused to start), so the run ends at the longest time, to the
// minute, in which they make at most labTimeline changes, and the end
// message says why.
func TestLabRunsAScenarioWithAnOscillatorUntilItsChangesFit(t *testing.T) {
	o := &tuiOptions{}
	fs := flag.NewFlagSet("lab", flag.ContinueOnError)
	o.register(fs)
	sc, err := lab.LoadScenario("starlink")
	if err != nil {
		t.Fatal(err)
	}
	cfg := lab.DefaultConfig()
	if err := lab.ApplyScenario(&cfg, sc); err != nil {
		t.Fatal(err)
	}
	why := o.end(&cfg, sc)
	if cfg.Duration >= lab.MaxDuration || !strings.Contains(why, "oscillators and flaps") {
		t.Fatalf("starlink runs %v (%q)", cfg.Duration, why)
	}
	if gen, err := sc.Generated(cfg.Duration); err != nil || len(gen) > labTimeline {
		t.Errorf("the run it got, %v, has %d changes, more than %d (%v)", cfg.Duration, len(gen), labTimeline, err)
	}
	if gen, _ := sc.Generated(cfg.Duration + time.Minute); len(gen) <= labTimeline {
		t.Errorf("a minute more, %v, would fit too", cfg.Duration+time.Minute)
	}
	if want := 41*time.Hour + 40*time.Minute; cfg.Duration != want { // 20000 changes / 2 per 15 s
		t.Errorf("starlink runs %v, want %v", cfg.Duration, want)
	}
	if _, err := tui.New(tui.Options{Config: cfg, Scenario: sc, Name: sc.Name, EndCause: why}); err != nil {
		t.Fatalf("the lab does not open starlink: %v", err)
	}
	// A scenario without oscillators still runs until quit.
	sc, _ = lab.LoadScenario("jitter-fix")
	sc.Duration = 0
	if why := o.end(&cfg, sc); why != "" || cfg.Duration != lab.MaxDuration {
		t.Errorf("jitter-fix: %v (%q)", cfg.Duration, why)
	}
}
