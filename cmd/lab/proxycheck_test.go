package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"jitterlab/check"
)

// lab proxy --check (issue 25.6): the reference game through the proxy
// with telemetry, its report card judged at the end of the run by a
// gate's [[assert]] entries, one run against each bound, with lab check's
// outputs and exit status. The bounds are chosen so that any run decides
// them: judder can be no more than 100 m/s, hesitations (each at least
// 100 ms) no more than 600 a minute, and a 2 s client cannot answer a
// throttle step it never makes. Nothing here asserts a duration.
func TestProxyCheckGatesTheGame(t *testing.T) {
	t.Parallel() // seconds of wall time, independent of the others
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate.toml")
	os.WriteFile(gate, []byte(`seeds = "1-20"   # lab check's: one run has none

[[assert]]
metric = "judder_mps"
max = "100m/s"

[[assert]]
metric = "hesitations_per_min"
min = 1000

[[assert]]
metric = "local_response_p50_ms"
max = 100
`), 0o644)
	junit := filepath.Join(dir, "check.xml")
	serverPort, proxyPort, telPort := freePort(t), freePort(t), freePort(t)
	tel := loopback(telPort)
	proxy := goLab(t, "proxy", "--listen", loopback(proxyPort), "--to", loopback(serverPort), "--telemetry", tel, "--duration", "5s", "--every", "5s",
		"--check", gate, "--junit", junit)
	server := goLab(t, "game", "server", "--listen", loopback(serverPort), "--duration", "5s")
	waitBound(t, telPort, proxy)
	waitBound(t, proxyPort, proxy)
	waitBound(t, serverPort, server)
	if code, out, errOut := runLab(t, "game", "client", "--to", loopback(proxyPort), "--telemetry", tel, "--duration", "2s"); code != 0 {
		t.Fatalf("client: exit %d\n%s\n%s", code, out, errOut)
	}
	p := <-proxy
	<-server
	if p.code != exitCheckFailed {
		t.Fatalf("proxy: exit %d, want %d (an assertion failed)\n%s\n%s", p.code, exitCheckFailed, p.out, p.err)
	}
	for _, want := range []string{
		gate + ": the game's report card, one proxy run of ",
		"  judder_mps ≤ 100 m/s ", "pass\n",
		"  hesitations_per_min ≥ 1000/min ", "FAIL\n",
		"  local_response_p50_ms ≤ 100 ms                 -                          inconclusive: no data: the run's frames did not measure it\n",
		check.GameRule,
		"1 scenario, 3 assertions: 1 pass, 1 fail, 1 inconclusive; check FAILED\n",
	} {
		if !strings.Contains(p.out, want) {
			t.Errorf("the proxy's output lacks %q:\n%s", want, p.out)
		}
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := check.ParseJUnit(data); err != nil || s.Tests != 3 || s.Failures != 1 {
		t.Errorf("--junit: %+v, %v; want 3 tests, 1 failure", s, err)
	}
}

// --check needs the game's telemetry, --strict, --junit and --summary
// need --check, and a gate asking for a figure telemetry cannot give is
// refused before the relay starts: one line each, exit 2.
func TestProxyCheckCommandLine(t *testing.T) {
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate.toml")
	os.WriteFile(gate, []byte("[[assert]]\nmetric = \"judder_mps\"\nmax = 1\n"), 0o644)
	inside := filepath.Join(dir, "inside.toml")
	os.WriteFile(inside, []byte("[[assert]]\nmetric = \"corrections_over_10cm_per_min\"\nmax = 1\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--check", gate}, "--check " + gate + ": the gate judges the game's report card, which comes from its telemetry: give --telemetry HOST:PORT too"},
		{[]string{"--strict"}, "--strict: give --check FILE"},
		{[]string{"--telemetry", "127.0.0.1:0", "--summary", "s.md"}, "--summary: give --check FILE"},
		{[]string{"--telemetry", "127.0.0.1:0", "--check", inside}, `--check: ` + inside + `:2: metric "corrections_over_10cm_per_min": a game's telemetry cannot give it: what reconciliation corrected happens inside the client`},
		{[]string{"--telemetry", "127.0.0.1:0", "--check", gate, "--junit", gate}, "gate.toml"},
	} {
		code, _, errOut := runLab(t, append([]string{"proxy", "--to", "127.0.0.1:1", "--duration", "1s"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
