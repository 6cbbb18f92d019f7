package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"jitterlab/internal/testmem"
	"jitterlab/metrics"
)

// TestMain lets a test run the real command in a child process (to send it
// signals): with JITTERLAB_LAB_MAIN=1 the test binary is 'lab'.
func TestMain(m *testing.M) {
	if os.Getenv("JITTERLAB_LAB_MAIN") == "1" {
		code := realMain(os.Args[1:], os.Stdout, os.Stderr)
		testmem.ReportPeakRSS() // when asked to (labLimited)
		os.Exit(code)
	}
	// Most of the package's parallel tests wait on the wall clock (relays,
	// child processes, tmux), not on the CPU: twice as many as cores run at
	// once unless -test.parallel says otherwise.
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	code := m.Run()
	if builtLab.binDir != "" {
		os.RemoveAll(builtLab.binDir)
	}
	os.Exit(code)
}

// labProcess starts 'lab args…' as a child process that a minute's deadline
// kills, so a hang fails the test.
func labProcess(t *testing.T, args ...string) (*exec.Cmd, io.Reader, *strings.Builder) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "JITTERLAB_LAB_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, &stderr
}

// TestInterruptFinishesRun (issue 8 item 11, issue 15 item 12): Ctrl-C,
// SIGTERM or SIGHUP during a long 'lab run --csv --record' finishes the row,
// flushes the CSV, closes the recording with its summary, prints the
// summary so far and exits 128 + the signal.
func TestInterruptFinishesRun(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "long.jlrec")
			cmd, stdout, stderr := labProcess(t, "run", "--duration", "1000h", "--csv", "-", "--record", rec)
			lines := bufio.NewScanner(stdout)
			if !lines.Scan() || !strings.HasPrefix(lines.Text(), "t_s,") {
				t.Fatalf("no CSV header: %q %s", lines.Text(), stderr)
			}
			cmd.Process.Signal(c.sig)
			rows := 0
			for lines.Scan() {
				if n := strings.Count(lines.Text(), ",") + 1; n != len(metrics.Columns) {
					t.Fatalf("row %d has %d fields, want %d: %q", rows+1, n, len(metrics.Columns), lines.Text())
				}
				rows++
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != c.code {
				t.Fatalf("exit %v, want status %d; stderr %s", err, c.code, stderr)
			}
			for _, want := range []string{"judder", "simulation speed", "stopped at"} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			code, out, errOut := runLab(t, "replay", rec, "--verify")
			if code != 0 || strings.Contains(out, "not closed") || strings.Contains(out, "truncated") || !strings.Contains(out, "summary identical") {
				t.Fatalf("the recording was not closed whole: %d %s %s", code, out, errOut)
			}
			if !strings.Contains(out, fmt.Sprintf("verified: %d samples", rows)) {
				t.Errorf("the recording and the CSV disagree: %d CSV rows\n%s", rows, out)
			}
		})
	}
}

// Ctrl-C during 'lab diagnose' cancels the runs not started and says what
// was cancelled, exit 130; piped, stderr shows no progress line.
func TestInterruptCancelsDiagnosis(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	cmd, stdout, stderr := labProcess(t, "diagnose", "--scenario", "jitter-fix", "--duration", "10m")
	time.Sleep(500 * time.Millisecond) // started; it runs for many seconds more
	cmd.Process.Signal(syscall.SIGINT)
	out, _ := io.ReadAll(stdout)
	err := cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit %v, want status 130; stderr %s", err, stderr)
	}
	msg := stderr.String()
	if !strings.Contains(msg, "interrupt: canceled after ") || !strings.Contains(msg, " runs queued so far for jitter-fix; nothing is reported") {
		t.Errorf("stderr does not say what was cancelled:\n%s", msg)
	}
	if strings.Contains(msg, "\r") || len(out) > 0 {
		t.Errorf("piped: a progress line on stderr (%q) or output on stdout (%q)", msg, out)
	}
}
