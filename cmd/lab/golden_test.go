package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"jitterlab/internal/golden"
)

// -update (package golden's flag) rewrites the goldens: testdata/golden,
// the README's example outputs and docs/reference.

// goldenRuns are reference runs whose every output byte is kept in
// testdata/golden: the same seed must give the same bytes on every machine
// and architecture (CI runs this test on amd64, amd64 v3 and arm64 under
// qemu). Together they use every jitter distribution, correlation, bursty
// loss, a blackout, clock drift and wander, the random input script and both
// smoothing variants. Regenerate after an intended change of the model or of
// an output format with: go test ./cmd/lab -run Golden -update
var goldenRuns = []struct {
	name    string
	args    []string
	packets bool // also pin --packets (short runs only: one row per packet)
}{
	{"jitter-fix-2m", []string{"--scenario", "jitter-fix", "--duration", "2m", "--every", "1s"}, false},
	{"mobile-4g-10s", []string{"--scenario", "mobile-4g", "--duration", "10s"}, true},
	{"drift-60s", []string{"--scenario", "drift", "--duration", "60s", "--every", "500ms"}, false},
	{"handover-30s", []string{"--scenario", "handover", "--duration", "30s", "--every", "250ms"}, false},
	{"tails-10s", []string{"--duration", "10s", "--seed", "3", "--every", "200ms",
		"--set", "link.latency=40ms", "--set", "link.jitter=15ms", "--set", "link.jitter_corr=0.6",
		"--set", "up.jitter_dist=pareto", "--set", "down.jitter_dist=exponential",
		"--set", "link.loss=3%", "--set", "link.loss_burst=3", "--set", "link.duplicate=2%",
		"--set", "input.script=random", "--set", "client.wander_ppm=40ppm", "--set", "server.drift_ppm=-30ppm",
		"--set", "client.smoothing=movetowards", "--set", "client.corrector=proportional"}, true},
	{"paretonormal-10s", []string{"--duration", "10s", "--seed", "5", "--every", "200ms",
		"--set", "link.latency=60ms", "--set", "link.jitter=25ms", "--set", "link.jitter_dist=paretonormal",
		"--set", "up.reorder=10%", "--set", "up.reorder_gap=3", "--set", "input.script=zigzag",
		"--set", "client.replay=single", "--set", "server.inputs=queue"}, false},
}

func TestGoldenRunsAreTheSameOnEveryMachine(t *testing.T) {
	dir := t.TempDir()
	for _, g := range goldenRuns {
		outputs := map[string]string{".csv": filepath.Join(dir, g.name+".csv")}
		args := append([]string{"run", "--json", "--csv", outputs[".csv"]}, g.args...)
		if g.packets {
			outputs[".packets.csv"] = filepath.Join(dir, g.name+".packets.csv")
			args = append(args, "--packets", outputs[".packets.csv"])
		}
		code, stdout, stderr := runLab(t, args...)
		if code != 0 {
			t.Fatalf("%s: lab %s: exit %d: %s", g.name, strings.Join(args, " "), code, stderr)
		}
		got := map[string][]byte{".json": []byte(stdout)}
		for ext, path := range outputs {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got[ext] = b
		}
		for ext, b := range got {
			if !golden.Check(t, filepath.Join("testdata", "golden", g.name+ext), b) {
				t.Logf("made by: lab %s (if the change is intended: go test ./cmd/lab -run Golden -update)", strings.Join(args, " "))
			}
		}
	}
}
