package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/lab"
)

// tmuxLab is the real lab (this test binary as 'lab') in an 80×24 tmux
// session of its own, writing into dir.
type tmuxLab struct {
	t                         *testing.T
	tmux, socket              string
	dir, status, pid, errFile string
}

// startTmuxLab starts 'lab --dir DIR args…' in tmux; the session ends with
// the test.
func startTmuxLab(t *testing.T, name string, args ...string) *tmuxLab {
	t.Helper()
	tmux := testtool.Need(t, "tmux", "tmux")
	dir := t.TempDir()
	l := &tmuxLab{t: t, tmux: tmux, socket: fmt.Sprintf("jl-%s-%d-%s", name, os.Getpid(), filepath.Base(filepath.Dir(dir))), dir: dir,
		status: filepath.Join(dir, "status"), pid: filepath.Join(dir, "pid"), errFile: filepath.Join(dir, "stderr")}
	// The inner shell notes its pid and becomes the lab; the pane's shell
	// then records the lab's exit status.
	script := "sh -c 'echo $$ > " + l.pid + "; exec env JITTERLAB_LAB_MAIN=1 TERM=xterm-256color " + os.Args[0] +
		" --dir " + dir + " " + strings.Join(args, " ") + " 2>" + l.errFile + "'; echo $? > " + l.status + "; sleep 30"
	l.run("new-session", "-d", "-s", "lab", "-x", "80", "-y", "24", script)
	t.Cleanup(func() { exec.Command(tmux, "-L", l.socket, "kill-server").Run() })
	l.waitFor("tick offset")
	return l
}

func (l *tmuxLab) run(args ...string) string {
	l.t.Helper()
	out, err := exec.Command(l.tmux, append([]string{"-L", l.socket}, args...)...).CombinedOutput()
	if err != nil {
		l.t.Fatalf("tmux %v: %v %s", args, err, out)
	}
	return string(out)
}

func (l *tmuxLab) screen() string   { return l.run("capture-pane", "-p", "-t", "lab") }
func (l *tmuxLab) keys(k ...string) { l.run(append([]string{"send-keys", "-t", "lab"}, k...)...) }

// waitUntil polls ok for 30 s.
func (l *tmuxLab) waitUntil(what string, ok func() bool) {
	l.t.Helper()
	for range 300 {
		if ok() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	stderr, _ := os.ReadFile(l.errFile)
	l.t.Fatalf("no %s after 30 s; screen:\n%s\nstderr: %s", what, l.screen(), stderr)
}

// waitFor waits until the screen shows text.
func (l *tmuxLab) waitFor(text string) {
	l.t.Helper()
	l.waitUntil(fmt.Sprintf("%q on screen", text), func() bool { return strings.Contains(l.screen(), text) })
}

// exited waits for the lab's exit status and returns it with its stderr.
func (l *tmuxLab) exited() (status, stderr string) {
	l.t.Helper()
	var b []byte
	l.waitUntil("exit status", func() bool { b, _ = os.ReadFile(l.status); return len(b) > 0 })
	e, _ := os.ReadFile(l.errFile)
	return strings.TrimSpace(string(b)), string(e)
}

// TestLabExitsWithSignalStatus (QA defect 3): the lab follows 'lab run”s
// rule: stopped by SIGTERM, SIGHUP or SIGINT it closes the recording,
// restores the terminal and exits 128 + the signal; q exits 0.
func TestLabExitsWithSignalStatus(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	for _, c := range []struct {
		name string
		stop string // a key to press, or a signal to send
		code string
	}{{"q", "q", "0"}, {"SIGTERM", "TERM", "143"}, {"SIGHUP", "HUP", "129"}, {"SIGINT", "INT", "130"}} {
		t.Run(c.name, func(t *testing.T) {
			l := startTmuxLab(t, "signal-"+c.name)
			l.keys("R")
			l.waitFor("● REC")
			if c.stop == "q" {
				l.keys("q")
			} else {
				pid, _ := os.ReadFile(l.pid)
				l.run("run-shell", "kill -"+c.stop+" "+strings.TrimSpace(string(pid)))
			}
			status, stderr := l.exited()
			if status != c.code {
				t.Fatalf("exit status %s, want %s; stderr %s", status, c.code, stderr)
			}
			if c.stop != "q" && !strings.Contains(stderr, ": stopped at t ") {
				t.Errorf("stderr does not say the signal stopped the lab and when: %s", stderr)
			}
			if recs, _ := filepath.Glob(filepath.Join(l.dir, "*.jlrec")); len(recs) != 1 || !strings.Contains(stderr, "recorded "+recs[0]) {
				t.Fatalf("the recording was not closed and named: %v; stderr %s", recs, stderr)
			}
		})
	}
}

// TestLabStopsAtTheDuration (QA defect 2): the lab stops, paused with a
// message, at the scenario's duration (latency-spike: 40 s) or at
// --duration; the status line says which.
func TestLabStopsAtTheDuration(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	for _, c := range []struct {
		args       []string
		end, cause string
	}{
		{[]string{"--scenario", "latency-spike"}, "t 00:00:40.000", "latency-spike's duration"},
		{[]string{"--scenario", "latency-spike", "--duration", "5s"}, "t 00:00:05.000", "--duration"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			l := startTmuxLab(t, "duration", c.args...)
			l.keys(">", ">", ">", ">") // 100×
			l.waitFor("end of the run")
			screen := l.screen()
			if !strings.Contains(screen, c.end) || !strings.Contains(strings.Join(strings.Fields(screen), " "), c.cause) {
				t.Fatalf("want the lab paused at %s by %s:\n%s", c.end, c.cause, screen)
			}
			l.keys("q")
			if status, stderr := l.exited(); status != "0" {
				t.Fatalf("q at the end: exit %s %s", status, stderr)
			}
		})
	}
}

// TestLabRunsUntilQuitWithoutADuration (QA defect 2): without --duration
// and with a scenario that sets none, the lab has no end short of the
// longest run the model takes.
func TestLabRunsUntilQuitWithoutADuration(t *testing.T) {
	file := filepath.Join(t.TempDir(), "no-end.toml")
	os.WriteFile(file, []byte("name = \"no-end\"\ndescription = \"no duration\"\nsource = \"test\"\n"), 0o644)
	for _, c := range []struct {
		args  []string
		want  time.Duration
		cause string
	}{
		{[]string{"--scenario", file}, lab.MaxDuration, ""},
		{[]string{"--scenario", "latency-spike"}, 40 * time.Second, "latency-spike's duration"},
		{[]string{"--scenario", file, "--duration", "5s"}, 5 * time.Second, "--duration"},
		{[]string{"--set", "sim.duration=7s"}, 7 * time.Second, "--set sim.duration"},
	} {
		fs, o := newTUIFlags(io.Discard)
		if err := parseFlags(fs, c.args, io.Discard); err != nil {
			t.Fatal(err)
		}
		cfg, sc, err := o.config()
		if err != nil {
			t.Fatal(err)
		}
		cause := o.end(&cfg, sc)
		if cfg.Duration != c.want || cause != c.cause {
			t.Errorf("%v: the lab ends at %v (%q), want %v (%q)", c.args, cfg.Duration, cause, c.want, c.cause)
		}
	}
}
