package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"jitterlab/lab"
	"jitterlab/metrics"
)

func runLab(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = realMain(args, &o, &e)
	return code, o.String(), e.String()
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}} {
		code, out, _ := runLab(t, args...)
		if code != 0 || !strings.Contains(out, "  run ") {
			t.Fatalf("%v: code %d out %q", args, code, out)
		}
	}
	if code, _, errOut := runLab(t, "nosuch"); code != 2 || !strings.Contains(errOut, `unknown command "nosuch"`) {
		t.Fatalf("unknown command: %d %q", code, errOut)
	}
}

func TestRunBadInputIsOneLineError(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--set", "up.jiter=5ms"}, 2, `"up.jiter"`},
		{[]string{"run", "--set", "up.latency=-5ms"}, 2, `up.latency: bad value "-5ms"`},
		{[]string{"run", "--set", "client.sender=sometimes"}, 2, "client.sender"},
		{[]string{"run", "--set", "nokeyvalue"}, 2, "key=value"},
		{[]string{"run", "--bogus"}, 2, "-bogus"},
		{[]string{"run", "--duration", "-1s"}, 2, "--duration"},
		{[]string{"run", "extra"}, 2, `"extra"`},
	}
	for _, c := range cases {
		code, out, errOut := runLab(t, c.args...)
		if code != c.code || out != "" || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: code %d, stdout %q, stderr %q; want code %d and one line naming %s", c.args, code, out, errOut, c.code, c.want)
		}
	}
}

func TestRunWritesDeterministicCSVAndJSON(t *testing.T) {
	dir := t.TempDir()
	args := func(name string, seed string) []string {
		return []string{"run", "--duration", "15s", "--seed", seed, "--json",
			"--set", "link.latency=40ms", "--set", "link.jitter=20ms", "--set", "link.loss=2%", "--set", "link.duplicate=1%",
			"--csv", filepath.Join(dir, name+".csv"), "--packets", filepath.Join(dir, name+".packets.csv")}
	}
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	_, j1, _ := runLab(t, args("a", "7")...)
	_, j2, _ := runLab(t, args("b", "7")...)
	_, j3, _ := runLab(t, args("c", "8")...)
	if j1 != j2 || !bytes.Equal(read("a.csv"), read("b.csv")) || !bytes.Equal(read("a.packets.csv"), read("b.packets.csv")) {
		t.Fatal("same seed and --set list gave different output")
	}
	if bytes.Equal(read("a.csv"), read("c.csv")) || j1 == j3 {
		t.Fatal("a different seed gave the same output")
	}
	var sum map[string]any
	if err := json.Unmarshal([]byte(j1), &sum); err != nil {
		t.Fatalf("--json output is not JSON: %v", err)
	}
	for _, k := range []string{"judder_mps", "visible_error_m", "rtt_ms", "up", "down", "starved", "latch_flips"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("summary JSON lacks %s", k)
		}
	}
	rows, err := csv.NewReader(bytes.NewReader(read("a.csv"))).ReadAll()
	if err != nil || strings.Join(rows[0], ",") != strings.Join(metrics.Columns, ",") || len(rows) != 301 {
		t.Fatalf("timeline CSV: %d rows, header %v, err %v", len(rows), rows[0], err)
	}
	pk, err := csv.NewReader(bytes.NewReader(read("a.packets.csv"))).ReadAll()
	if err != nil || len(pk) < 500 {
		t.Fatalf("packets CSV: %d rows, err %v", len(pk), err)
	}
	statuses := map[string]int{}
	for _, r := range pk[1:] {
		statuses[r[4]]++
	}
	if statuses["delivered"] == 0 || statuses["lost"] == 0 {
		t.Fatalf("packet statuses %v: want delivered and lost rows", statuses)
	}
}

func TestRunTextSummary(t *testing.T) {
	code, out, errOut := runLab(t, "run", "--duration", "5s")
	if code != 0 || errOut != "" {
		t.Fatalf("code %d stderr %q", code, errOut)
	}
	for _, want := range []string{"judder", "visible error (m)", "rtt (ms)", "latch flips", "late-dropped", "simulation speed"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// Every key and command is documented in README.md or a page under docs/;
// the README itself names the two commands (the CI hook greps for them).
func TestREADMEDocumentsEveryKeyAndCommand(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	docs := docsText(t)
	for _, p := range lab.Params() {
		if !strings.Contains(docs, "`"+p.Key+"`") {
			t.Errorf("neither the README nor docs/ documents %s", p.Key)
		}
	}
	for _, c := range commands() {
		if !strings.Contains(docs, "lab "+c.name) {
			t.Errorf("neither the README nor docs/ shows 'lab %s'", c.name)
		}
	}
	for _, cmd := range []string{"go run ./cmd/lab", "go test ./..."} {
		if !strings.Contains(readme, cmd) {
			t.Errorf("README lacks %q", cmd)
		}
	}
}

func TestScenariosListsNamesDescriptionsAndSources(t *testing.T) {
	code, out, _ := runLab(t, "scenarios")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	for _, want := range []string{"mobile-4g", "Mobile 4G", "NetworkSimulatorPresets.Mobile4G", "unreal-bad", "lightyear-poor", "handover", "jitter-fix", "source:"} {
		if !strings.Contains(out, want) {
			t.Errorf("'lab scenarios' lacks %q", want)
		}
	}
	if _, out, _ := runLab(t, "scenarios", "-v"); !strings.Contains(out, "at 20s: link.latency=300ms") {
		t.Errorf("'lab scenarios -v' does not show the latency-spike timeline")
	}
	// --show prints TOML that loads as a scenario file of its own.
	code, out, _ = runLab(t, "scenarios", "--show", "handover")
	path := filepath.Join(t.TempDir(), "mine.toml")
	os.WriteFile(path, []byte(out), 0o644)
	if code != 0 || !strings.Contains(out, `base = "mobile-4g"`) {
		t.Fatalf("--show: %d\n%s", code, out)
	}
	if code, _, errOut := runLab(t, "run", "--scenario", path, "--duration", "5s"); code != 0 {
		t.Fatalf("the shown TOML does not run: %s", errOut)
	}
	if code, _, errOut := runLab(t, "scenarios", "--show", "atlantis"); code != 2 || !strings.Contains(errOut, `"atlantis"`) {
		t.Fatalf("--show unknown: %d %q", code, errOut)
	}
}

func TestRunScenarioWithOverrides(t *testing.T) {
	// The scenario sets 120 s and seed 1 implicitly; --duration wins, and
	// --set applies on top of the scenario.
	code, out, errOut := runLab(t, "run", "--scenario", "jitter-fix", "--duration", "10s", "--set", "server.inputs=queue", "--json")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	var sum struct {
		SimS        float64 `json:"sim_s"`
		Overwritten int     `json:"overwritten"`
		RTT         struct {
			P50 float64 `json:"p50"`
		} `json:"rtt_ms"`
	}
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.SimS != 10 || sum.Overwritten != 0 || sum.RTT.P50 < 60 {
		t.Fatalf("summary %+v: want 10 s, the queue server, and the scenario's 50 ms links", sum)
	}
	code, _, errOut = runLab(t, "run", "--scenario", "nowhere-5g")
	if code != 2 || !strings.Contains(errOut, `"nowhere-5g"`) {
		t.Fatalf("unknown scenario: %d %q", code, errOut)
	}
	for _, f := range []string{"wifi-handover", "bursty-mobile", "clock-drift"} {
		if code, _, errOut := runLab(t, "run", "--scenario", "../../scenarios/examples/"+f+".toml", "--duration", "5s"); code != 0 {
			t.Errorf("example %s: %s", f, errOut)
		}
	}
}

func TestRecordReplayVerifyExport(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "s.jlrec")
	if code, _, errOut := runLab(t, "run", "--scenario", "latency-spike", "--duration", "25s", "--record", rec, "--csv", filepath.Join(dir, "run.csv")); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := runLab(t, "replay", rec, "--verify")
	if code != 0 {
		t.Fatalf("replay --verify: %s", errOut)
	}
	for _, want := range []string{"scenario   latency-spike", "at 00:00:20.000  link.latency = 300ms", "verified: 500 samples identical", "summary identical"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay output lacks %q:\n%s", want, out)
		}
	}
	// export of the whole recording equals the CSV written by the run.
	exp := filepath.Join(dir, "export.csv")
	if code, _, errOut := runLab(t, "export", rec, "--csv", exp); code != 0 {
		t.Fatal(errOut)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "run.csv"))
	b, _ := os.ReadFile(exp)
	if !bytes.Equal(a, b) {
		t.Fatal("exporting the recording does not give the run's CSV")
	}
	// A seeked window.
	_, out, _ = runLab(t, "export", rec, "--from", "20s", "--to", "21s")
	if rows := strings.Count(out, "\n"); rows != 1+21 || !strings.Contains(out, "\n20.000,") {
		t.Fatalf("window 20–21 s: %d lines\n%s", rows, out)
	}
	// A truncated file (a crash) still replays up to its last whole frame,
	// with exit status 5: data was lost (TestCutRecordingEndsWithStatus5).
	whole, _ := os.ReadFile(rec)
	cut := filepath.Join(dir, "cut.jlrec")
	os.WriteFile(cut, whole[:len(whole)*2/3], 0o644)
	code, out, errOut = runLab(t, "replay", cut)
	if code != exitDataLost || !strings.Contains(out, "truncated at byte") {
		t.Fatalf("truncated: %d %s %s", code, out, errOut)
	}
	code, _, errOut = runLab(t, "replay", filepath.Join(dir, "run.csv"))
	if code != 1 || !strings.Contains(errOut, "not a jitterlab recording") {
		t.Fatalf("a CSV as a recording: %d %q", code, errOut)
	}
	if code, _, errOut := runLab(t, "replay"); code != 2 || !strings.Contains(errOut, "want one recording FILE") {
		t.Fatalf("no file: %d %q", code, errOut)
	}
}

func TestABAndSweep(t *testing.T) {
	code, out, errOut := runLab(t, "ab", "--scenario", "jitter-fix", "--duration", "1m", "--seeds", "1-3", "--b", "server.inputs=queue")
	if code != 0 {
		t.Fatal(errOut)
	}
	for _, want := range []string{"B: server.inputs=queue", "overwritten", "mean_visible_speed_mps", "server_input_delay_p50_ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("ab output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "6 runs") {
		t.Errorf("ab's standard error lacks the number of runs: %q", errOut)
	}
	// The same command twice prints the same table (runs are independent
	// and deterministic even when they run in parallel).
	_, again, _ := runLab(t, "ab", "--scenario", "jitter-fix", "--duration", "1m", "--seeds", "1-3", "--b", "server.inputs=queue")
	if out != again {
		t.Fatal("ab is not repeatable")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ab"}, "--b"},
		{[]string{"ab", "--b", "server.inputz=queue"}, `"server.inputz"`},
		{[]string{"ab", "--b", "server.inputs=queue", "--seeds", "5-1"}, "--seeds"},
		{[]string{"sweep", "--over", "link.jitter"}, "--over"},
		{[]string{"sweep", "--over", "link.jitter=5ms,fast"}, `"fast"`},
	} {
		if code, _, errOut := runLab(t, c.args...); code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q, want it to name %s", c.args, code, errOut, c.want)
		}
	}
	csvPath := filepath.Join(t.TempDir(), "sweep.csv")
	code, out, errOut = runLab(t, "sweep", "--over", "link.loss=0%,5%", "--seeds", "1,2", "--duration", "30s", "--csv", csvPath)
	if code != 0 || !strings.Contains(out, "link.loss") {
		t.Fatalf("sweep: %s %s", out, errOut)
	}
	f, _ := os.Open(csvPath)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 1+2*2 || rows[1][0] != "0%" || rows[4][1] != "2" {
		t.Fatalf("sweep CSV %v %v", rows, err)
	}
}

func TestPlot(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.png")
	code, stdout, errOut := runLab(t, "plot", "../../recordings/examples/jitter-fix.jlrec", "--from", "10s", "--to", "20s", "--out", out, "--width", "640")
	if code != 0 || !strings.Contains(stdout, "201 samples from 10.00 s to 20.00 s") {
		t.Fatalf("plot a recording: %d %s %s", code, stdout, errOut)
	}
	f, _ := os.Open(out)
	cfg, err := png.DecodeConfig(f)
	f.Close()
	if err != nil || cfg.Width != 640 {
		t.Fatalf("not a 640 px PNG: %+v %v", cfg, err)
	}
	if code, _, errOut := runLab(t, "plot", "--scenario", "drift", "--duration", "5s", "--out", filepath.Join(dir, "d.png")); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, errOut := runLab(t, "plot", "--duration", "5s"); code != 2 || !strings.Contains(errOut, "--out") { // a bad command line
		t.Fatalf("no --out: %d %q", code, errOut)
	}
}

func TestProxyBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"proxy"}, "--to", 2}, // the proxy's own flags: a bad command line too
		{[]string{"proxy", "--to", "nohost"}, "--to", 2},
		{[]string{"proxy", "--to", "127.0.0.1:9", "--listen", "300.0.0.1:1"}, "--listen", 2},
		{[]string{"proxy", "--to", "127.0.0.1:9", "--set", "up.loss=2"}, "up.loss", 2}, // a bad --set: a bad command line
	} {
		if code, _, errOut := runLab(t, c.args...); code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d stderr %q, want it to name %s", c.args, code, errOut, c.want)
		}
	}
	// A short run with no traffic starts, prints its counters and stops.
	code, out, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "300ms", "--every", "100ms")
	if code != 0 || !strings.Contains(out, "relaying 127.0.0.1:") || !strings.Contains(out, "clients 0") {
		t.Fatalf("proxy: %d %q %q", code, out, errOut)
	}
}
