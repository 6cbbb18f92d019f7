package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"jitterlab/internal/testtool"
)

func TestDiagnose(t *testing.T) {
	args := []string{"diagnose", "--scenario", "jitter-fix", "--seeds", "1-3", "--duration", "10s"}
	code, out, errOut := runLab(t, args...)
	if code != 0 || !strings.Contains(out, "scenario   jitter-fix") || !strings.Contains(out, "seeds      1-3 (3,") ||
		!strings.Contains(out, "duration   10s each") || !strings.Contains(out, "recommended:") {
		t.Fatalf("code %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	if _, again, _ := runLab(t, args...); again != out {
		t.Error("the same seeds gave different text")
	}
	code, js, _ := runLab(t, append(args, "--json")...)
	var v struct {
		Conditions struct{ Scenario string }
		Findings   []struct{ Rule string }
	}
	if code != 0 || json.Unmarshal([]byte(js), &v) != nil || v.Conditions.Scenario != "jitter-fix" {
		t.Fatalf("json: %d %q", code, js)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diagnose", "--metric", "wobble"}, `--metric "wobble": allowed one of progress_deficit_mps`},
		{[]string{"diagnose", "--seeds", "x"}, "--seeds"},
		{[]string{"diagnose", "--seeds", "5"}, "--seeds: 1 seed(s); an interval needs at least 2"},
		{[]string{"diagnose", "--seed", "4"}, "--seed: diagnose runs every seed of --seeds"},
		{[]string{"diagnose", "--set", "client.sender=fast"}, "client.sender"},
	} {
		code, out, errOut := runLab(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 { // a bad command line
			t.Errorf("%v: code %d, stdout %q, stderr %q", c.args, code, out, errOut)
		}
	}
}

func TestDiagnoseHTML(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	code, out, errOut := runLab(t, "diagnose", "--scenario", "perfect", "--seeds", "1-2", "--duration", "5s", "--html", page)
	b, err := os.ReadFile(page)
	if code != 0 || err != nil || !strings.Contains(out, "The link causes no significant problem") || !bytes.Contains(b, []byte("<svg")) {
		t.Fatalf("code %d, stderr %q, read %v", code, errOut, err)
	}
	code, _, errOut = runLab(t, "diagnose", "--seeds", "1-2", "--duration", "5s", "--html", filepath.Join(dir, "no", "such", "dir.html"))
	if code != 1 || !strings.Contains(errOut, "--html") {
		t.Errorf("unwritable --html: code %d, %q", code, errOut)
	}
}

// Issue 9 QA 3: --set means one thing in every command: it pins its key for
// the whole run, and the header lists the timeline entries it overrode.
// 'lab run --scenario drift --set client.drift_ppm=-5000ppm' is drift's
// base with the clock pinned, as diagnose simulates it.
func TestSetPinsItsKeyInEveryCommand(t *testing.T) {
	card := func(args ...string) string {
		t.Helper()
		code, out, errOut := runLab(t, append([]string{"run", "--json", "--seed", "3", "--duration", "60s", "--set", "client.drift_ppm=-5000ppm"}, args...)...)
		var v struct {
			Card       json.RawMessage `json:"report_card"`
			Overridden []string        `json:"timeline_overridden"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
			t.Fatalf("%v: code %d, %s", args, code, errOut)
		}
		return string(v.Card) + strings.Join(v.Overridden, ", ")
	}
	const dropped = "10s client.drift_ppm=+2%, 40s client.drift_ppm=0ppm"
	if drift, base := card("--scenario", "drift"), card("--scenario", "home-broadband"); drift != base+dropped {
		t.Errorf("drift with the clock pinned\n%s\nis not its base with the clock set\n%s", drift, base)
	}
	for _, args := range [][]string{
		{"run", "--scenario", "drift", "--set", "client.drift_ppm=-5000ppm", "--duration", "5s"},
		{"ab", "--scenario", "drift", "--set", "client.drift_ppm=-5000ppm", "--b", "client.sender=accumulator", "--seeds", "1-2", "--duration", "5s"},
		{"sweep", "--scenario", "drift", "--set", "client.drift_ppm=-5000ppm", "--over", "client.sender=frame,accumulator", "--seeds", "1-2", "--duration", "5s"},
		{"diagnose", "--scenario", "drift", "--set", "client.drift_ppm=-5000ppm", "--seeds", "1-2", "--duration", "5s"},
	} {
		code, out, errOut := runLab(t, args...)
		if code != 0 || !strings.Contains(out, "timeline entries overridden by --set") || !strings.Contains(out, dropped) {
			t.Errorf("%v: code %d, stderr %q, stdout:\n%s", args, code, errOut, out)
		}
	}
}

// Issue 9 QA 6: diagnose runs every seed of --seeds for --duration, so
// --set sim.seed or sim.duration would be listed and ignored: refused.
func TestDiagnoseRefusesSimDurationAndSeedOverrides(t *testing.T) {
	for set, want := range map[string]string{
		"sim.duration=10s": "--set sim.duration=10s: diagnose runs every seed for --duration",
		"sim.seed=9":       "--set sim.seed=9: diagnose runs every seed of --seeds",
	} {
		code, out, errOut := runLab(t, "diagnose", "--seeds", "1-2", "--duration", "5s", "--set", set)
		if code != 1 || out != "" || !strings.Contains(errOut, want) {
			t.Errorf("--set %s: code %d, stdout %q, stderr %q", set, code, out, errOut)
		}
	}
}

// spikeRecommends is a constructed scenario of 40 s with a latency spike
// on which diagnose on seeds 1-6 recommends a combination.
const spikeRecommends = "testdata/spike-on-congested-link.toml"

// TestDiagnoseReproduceCommandGivesTheSameInterval: diagnose prints the
// 'lab ab' command that reproduces its recommended comparison (the
// reference as A, the recommendation as B, on the same seeds and for the
// same duration: the scenario runs 40 s of its own, diagnose 2 min), and
// running that command gives the same intervals as diagnose's report card.
func TestDiagnoseReproduceCommandGivesTheSameInterval(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	testtool.NotUnderRace(t, "a diagnosis and the lab ab it prints, one goroutine's arithmetic each")
	code, out, errOut := runLab(t, "diagnose", "--scenario", spikeRecommends, "--seeds", "1-6")
	if code != 0 {
		t.Fatalf("diagnose: code %d, %s", code, errOut)
	}
	const prefix = "reproduce with: "
	var cmd string
	for _, l := range strings.Split(out, "\n") {
		if s, ok := strings.CutPrefix(l, prefix); ok {
			cmd = s
		}
	}
	if !strings.HasPrefix(cmd, "lab ab ") {
		t.Fatalf("diagnose printed no %q line with a lab ab command:\n%s", prefix, out)
	}
	args := shellWords(t, strings.TrimPrefix(cmd, "lab "))
	for _, want := range []string{"--scenario " + spikeRecommends, "--seeds 1-6", "--duration 2m0s"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("the command %q does not say %q", cmd, want)
		}
	}
	code, abOut, errOut := runLab(t, args...)
	if code != 0 {
		t.Fatalf("%s: code %d, %s", cmd, code, errOut)
	}
	// Every report-card row: diagnose's difference (recommended −
	// reference) is ab's B − A, digit for digit.
	diffs := func(text string, col int) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(text, "\n") {
			f := strings.Fields(l)
			if len(f) <= col+2 || f[col+1] != "±" {
				continue
			}
			// ab writes a zero difference unsigned, diagnose "+0.0".
			mean, err1 := strconv.ParseFloat(f[col], 64)
			half, err2 := strconv.ParseFloat(f[col+2], 64)
			if err1 == nil && err2 == nil {
				if mean == 0 {
					mean = 0 // no "-0"
				}
				m[f[0]] = fmt.Sprintf("%g ± %g", mean, half)
			}
		}
		return m
	}
	// From the report card's table on: the steps above it quote
	// differences too.
	card := regexp.MustCompile(`(?m)^ +report card +reference`).FindStringIndex(out)
	if card == nil {
		t.Fatalf("no report card table in:\n%s", out)
	}
	dg, ab := diffs(out[card[0]:], 7), diffs(abOut, 7)
	if len(dg) < 10 {
		t.Fatalf("read %d report-card rows of diagnose:\n%s", len(dg), out)
	}
	for name, want := range dg {
		if got, ok := ab[name]; !ok || got != want {
			t.Errorf("%s: diagnose says %s, %s says %q", name, want, cmd, got)
		}
	}
}

// shellWords splits a command line as a POSIX shell does for words that
// are plain or in single quotes.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == ' ':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case c == '"' || c == '\\' || c == '$':
			t.Fatalf("the command %q needs more than single quotes", s)
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if in {
		words = append(words, w.String())
	}
	return words
}
