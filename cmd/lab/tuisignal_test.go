package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
)

// TestLabExitsWithSignalStatus (issue 7 follow-up, QA defect 3): the lab
// follows 'lab run”s rule: stopped by SIGTERM, SIGHUP or SIGINT it closes
// the recording, restores the terminal and exits 128 + the signal; q exits
// 0. The real binary runs in an 80×24 tmux session.
func TestLabExitsWithSignalStatus(t *testing.T) {
	tmux := testtool.Need(t, "tmux", "tmux")
	for _, c := range []struct {
		name string
		stop string // a key to press, or a signal to send
		code string
	}{{"q", "q", "0"}, {"SIGTERM", "TERM", "143"}, {"SIGHUP", "HUP", "129"}, {"SIGINT", "INT", "130"}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			session := fmt.Sprintf("jl-signal-%s-%d", c.name, os.Getpid())
			statusFile, pidFile, errFile := filepath.Join(dir, "status"), filepath.Join(dir, "pid"), filepath.Join(dir, "stderr")
			// The shell replaces itself with the lab after noting its pid,
			// then a second shell (the pane's) records the status.
			script := "sh -c 'echo $$ > " + pidFile + "; exec env JITTERLAB_LAB_MAIN=1 TERM=xterm-256color " + os.Args[0] + " --dir " + dir + " 2>" + errFile + "'; echo $? > " + statusFile + "; sleep 30"
			run := func(args ...string) {
				t.Helper()
				if out, err := exec.Command(tmux, append([]string{"-L", session}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("tmux %v: %v %s", args, err, out)
				}
			}
			run("new-session", "-d", "-s", session, "-x", "80", "-y", "24", script)
			t.Cleanup(func() { exec.Command(tmux, "-L", session, "kill-server").Run() })
			waitFor := func(what string, ok func() bool) {
				t.Helper()
				for range 300 {
					if ok() {
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
				t.Fatalf("no %s after 30 s", what)
			}
			waitFor("chart titles", func() bool {
				out, _ := exec.Command(tmux, "-L", session, "capture-pane", "-p", "-t", session).Output()
				return strings.Contains(string(out), "tick offset")
			})
			run("send-keys", "-t", session, "R")
			waitFor("recording", func() bool {
				out, _ := exec.Command(tmux, "-L", session, "capture-pane", "-p", "-t", session).Output()
				return strings.Contains(string(out), "● REC")
			})
			if c.stop == "q" {
				run("send-keys", "-t", session, "q")
			} else {
				pid, _ := os.ReadFile(pidFile)
				run("run-shell", "kill -"+c.stop+" "+strings.TrimSpace(string(pid)))
			}
			var status []byte
			waitFor("exit status", func() bool { status, _ = os.ReadFile(statusFile); return len(status) > 0 })
			stderr, _ := os.ReadFile(errFile)
			if got := strings.TrimSpace(string(status)); got != c.code {
				t.Fatalf("exit status %s, want %s; stderr %s", got, c.code, stderr)
			}
			if c.stop != "q" && !strings.Contains(string(stderr), "lab: "+strings.ToLower(c.name[3:])) && !strings.Contains(string(stderr), ": stopped at t ") {
				t.Errorf("stderr does not say which signal stopped the lab at what time: %s", stderr)
			}
			if recs, _ := filepath.Glob(filepath.Join(dir, "*.jlrec")); len(recs) != 1 || !strings.Contains(string(stderr), "recorded "+recs[0]) {
				t.Fatalf("the recording was not closed and named: %v; stderr %s", recs, stderr)
			}
		})
	}
}
