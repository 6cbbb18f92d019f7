package main

import (
	"strings"
	"testing"

	"jitterlab/lab"
)

// lab proxy -h ends with examples (--flow and --control among them), states
// the proxy's own --every range rather than the model's, lists only the
// keys --set takes on the proxy (link keys and sim.seed), and gives
// --duration's default once.
func TestProxyHelpStatesItsOwnRangesAndKeys(t *testing.T) {
	code, out, _ := runLab(t, "proxy", "-h")
	if code != 0 {
		t.Fatalf("lab proxy -h: exit %d", code)
	}
	_, examples, ok := strings.Cut(out, "\nexamples:\n")
	lines := strings.Split(strings.TrimRight(examples, "\n"), "\n")
	if !ok || len(lines) < 2 || len(lines) > 3 || !strings.Contains(examples, "--flow ") || !strings.Contains(examples, "--control ") {
		t.Errorf("want 2–3 examples, --flow and --control among them; got %q", examples)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "  lab proxy ") {
			t.Errorf("example %q is not a lab proxy command line", l)
		}
	}
	_, everyHelp, _ := strings.Cut(out, "\n  -every duration\n")
	everyHelp, _, _ = strings.Cut(everyHelp, "\n")
	if strings.Contains(everyHelp, "100µs") || !strings.Contains(out, "--every takes 100ms up to the --duration") {
		t.Errorf("want the proxy's --every range (100ms up to --duration), not the model's:\n%s", out)
	}
	for _, p := range lab.Params() {
		key := p.Key
		if k, ok := strings.CutPrefix(key, "up."); ok {
			key = "up|down." + k
		}
		listed := strings.Contains(out, "\n  "+key+" ")
		takes := strings.HasPrefix(p.Key, "up.") || p.Key == "sim.seed"
		switch {
		case takes && !listed:
			t.Errorf("the proxy takes %s but -h does not list it", key)
		case !takes && listed && !strings.HasPrefix(p.Key, "down.") && !strings.HasPrefix(p.Key, "link."):
			t.Errorf("-h lists %s, which the proxy does not take", key)
		}
	}
	if n := strings.Count(out, "(default"); strings.Contains(out, "(default: run until interrupted) (default") || !strings.Contains(out, "(default: run until interrupted)") {
		t.Errorf("--duration's default: want only \"(default: run until interrupted)\" (%d defaults in all):\n%s", n, out)
	}
}
