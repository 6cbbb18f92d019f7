package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every file a user names is refused at once when it is a named pipe
// (issue 15 item 14, for the inputs added since): a capture to fit, a shard
// to merge, a trace. None of them waits for a writer.
func TestUserFilesRefuseFIFOs(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for _, args := range [][]string{
		{"fit", fifo},
		{"merge", fifo},
		{"run", "--duration", "1s", "--set", "up.trace=" + fifo},
	} {
		done := make(chan [2]string, 1)
		go func() {
			code, _, errOut := runLab(t, args...)
			done <- [2]string{strings.Repeat("x", code), errOut}
		}()
		select {
		case r := <-done:
			if r[0] == "" || !strings.Contains(r[1], "named pipe") {
				t.Errorf("lab %s: exit %d, stderr %q: want a refusal naming the named pipe", strings.Join(args, " "), len(r[0]), r[1])
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("lab %s still waits for a writer on the named pipe", strings.Join(args, " "))
		}
	}
}
