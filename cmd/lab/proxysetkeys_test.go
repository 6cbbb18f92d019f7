package main

import (
	"strings"
	"testing"
)

// --set on the proxy takes link keys and sim.seed only: sim.duration (the
// model's simulated time) is refused by name, pointing at --duration,
// never accepted and ignored.
func TestProxySetRefusesSimDuration(t *testing.T) {
	for _, c := range []struct {
		set  string
		want []string
	}{
		{"sim.duration=10s", []string{"--set sim.duration=10s: ", "sim.duration", "give --duration"}},
		{"input.script=zigzag", []string{"--set input.script=zigzag", "input.script is not a link setting"}},
		{"view.interp=fixed", []string{"--set view.interp=fixed", "view.interp is not a link setting"}},
	} {
		code, _, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "100ms", "--no-tui", "--set", c.set)
		if code != 2 {
			t.Errorf("--set %s: exit %d, %q; want exit 2", c.set, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("--set %s: %q lacks %q", c.set, errOut, w)
			}
		}
	}
	if code, _, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "100ms", "--no-tui", "--set", "sim.seed=7"); code != 0 {
		t.Errorf("--set sim.seed=7: exit %d, %q; want it taken", code, errOut)
	}
}

// A --control address that is not loopback is a bad command line: exit 2,
// as every other bad flag.
func TestProxyControlNotLoopbackExits2(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:29001", "9000", "no-such-host.invalid:9000"} {
		code, _, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "100ms", "--no-tui", "--control", addr)
		if code != 2 || !strings.Contains(errOut, "--control") {
			t.Errorf("--control %s: exit %d, %q; want exit 2 naming --control", addr, code, errOut)
		}
	}
}
