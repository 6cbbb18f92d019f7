package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
