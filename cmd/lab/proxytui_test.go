package main

import (
	"strings"
	"testing"
)

// Off a terminal, and with --no-tui anywhere, 'lab proxy' prints its
// counter lines and the summary, as before the screen.
func TestProxyNoTUIKeepsTheLines(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	for _, extra := range [][]string{nil, {"--no-tui"}} {
		args := append([]string{"proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "250ms", "--every", "100ms"}, extra...)
		code, out, errOut := runLab(t, args...)
		if code != 0 || !strings.Contains(out, "clients 0  up in 0") || !strings.Contains(out, "\nsummary after ") {
			t.Fatalf("%v: exit %d, %q, %q", extra, code, out, errOut)
		}
	}
}
