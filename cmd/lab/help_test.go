package main

import (
	"runtime"
	"strings"
	"testing"
)

// TestVersion (issue 8 item 21): --version names the module, the VCS
// revision (or says it is unknown), the Go version and the OS/arch.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "-version", "version"} {
		code, out, errOut := runLab(t, arg)
		if code != 0 || errOut != "" {
			t.Fatalf("%s: exit %d, stderr %q", arg, code, errOut)
		}
		for _, want := range []string{"jitterlab", "revision", runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", arg, want, out)
			}
		}
	}
}

// TestEveryHelpEndsWithExamples (issue 8 item 21): 'lab -h' and every
// command's -h, on standard output, end with two or three example lines.
func TestEveryHelpEndsWithExamples(t *testing.T) {
	helps := [][]string{{"-h"}}
	for _, c := range commands() {
		helps = append(helps, []string{c.name, "-h"})
	}
	for _, args := range helps {
		code, out, _ := runLab(t, args...)
		_, examples, ok := strings.Cut(out, "\nexamples:\n")
		lines := strings.Split(strings.TrimRight(examples, "\n"), "\n")
		if code != 0 || !ok || len(lines) < 2 || len(lines) > 3 {
			t.Errorf("%v: exit %d; want help on stdout ending with 2–3 examples, got examples %q", args, code, examples)
			continue
		}
		if args[0] == "run" && (!strings.Contains(out, "kbps") || !strings.Contains(out, "BYTES per second")) {
			t.Errorf("run -h does not say that mbps is bytes, as in tc (issue 8 item 9):\n%s", out)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "  lab ") {
				t.Errorf("%v: example %q is not a lab command line", args, l)
			}
		}
	}
}
