package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	proxyctl "jitterlab/proxy/control"
	"jitterlab/proxy/live"
	"jitterlab/scenarios"
	"jitterlab/tui/proxyscreen"
)

// freePort is a loopback UDP port nobody listens on (free when it returns).
func freePort(t *testing.T) int {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

func loopback(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// The counter period is bounded (8.1): a clear error naming the flag, the
// value and the range, never a panic.
func TestProxyEveryOutOfRange(t *testing.T) {
	for _, c := range []struct {
		every string
		code  int
		want  string
	}{
		// The counter line's own rule, not the simulator's 1ms (issue 12.5).
		{"0", 2, `--every "0": allowed the counter line's period from 100ms up to the run's --duration`},
		{"-1s", 2, `--every "-1s": allowed the counter line's period from 100ms`},
		{"1ns", 2, `--every "1ns": allowed the counter line's period from 100ms`},
		{"50ms", 2, `--every "50ms": allowed the counter line's period from 100ms`},
		{"fast", 2, `--every "fast": allowed the counter line's period from 100ms`},
		{"2s", 2, "--every 2s: allowed the counter line's period from 100ms up to the run's --duration (without one, up to 1000h); here --duration is 1s"},
	} {
		args := []string{"proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "1s", "--every", c.every}
		if code, _, errOut := runLab(t, args...); code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("--every %s: code %d, stderr %q; want %d and %q", c.every, code, errOut, c.code, c.want)
		}
	}
}

// lab proxy --every 0 says what the proxy allows (issue 12.5): one line
// naming the flag, the value, the counter line's range and an example,
// and nothing of the simulator's duration rule.
func TestProxyEveryZeroHasItsOwnRule(t *testing.T) {
	code, out, errOut := runLab(t, "proxy", "--to", "127.0.0.1:9", "--every", "0")
	want := `lab proxy: --every "0": allowed the counter line's period from 100ms up to the run's --duration (without one, up to 1000h), e.g. --every 1s`
	if code != 2 || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 || strings.Contains(errOut, "1ms") {
		t.Errorf("code %d, stdout %q, stderr %q; want 2 and stderr starting %q, without the simulator's 1ms rule", code, out, errOut, want)
	}
}

// Every limit flag is checked before anything starts.
func TestProxyLimitFlagsOutOfRange(t *testing.T) {
	for _, c := range [][2]string{
		{"--max-clients", "0"}, {"--max-clients", "5000"},
		{"--idle-timeout", "1ms"}, {"--idle-timeout", "48h"},
		{"--inflight-packets", "0"}, {"--inflight-bytes", "100"},
		{"--duration", "0s"},
	} {
		args := []string{"proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", c[0], c[1]}
		if code, _, errOut := runLab(t, args...); code != 2 || !strings.Contains(errOut, c[0]+" ") || !strings.Contains(errOut, "allowed") {
			t.Errorf("%s %s: code %d, stderr %q", c[0], c[1], code, errOut)
		}
	}
}

// -h says the proxy runs until interrupted (8.4), and nothing else about
// --duration's default.
func TestProxyHelpSaysUntilInterrupted(t *testing.T) {
	code, help, _ := runLab(t, "proxy", "-h")
	lines := strings.Split(string(help), "\n")
	var durationHelp string
	for i, line := range lines[:len(lines)-1] {
		if strings.TrimSpace(line) == "-duration duration" {
			durationHelp = lines[i+1] // the flag package's layout: name, then usage
		}
	}
	if code != 0 || !strings.Contains(durationHelp, "until interrupted") || strings.Contains(durationHelp, "(default 1m0s)") {
		t.Fatalf("--duration's help: %q", durationHelp)
	}
}

// --listen X --to X is refused; an unknown host is a lookup failure (8.20).
func TestProxyRefusesLoopAndNamesLookupFailures(t *testing.T) {
	self := loopback(freePort(t))
	// --duration: a relay that accepts the loop stops instead of hanging the test.
	if code, _, errOut := runLab(t, "proxy", "--listen", self, "--to", self, "--duration", "1s"); code != 1 || !strings.Contains(errOut, "itself") {
		t.Errorf("--listen %s --to %s: code %d, %q", self, self, code, errOut)
	}
	code, _, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "nosuchhost.invalid:1", "--duration", "1s")
	if code != 1 || !strings.Contains(errOut, "DNS") || strings.Contains(errOut, "want") {
		t.Errorf("--to nosuchhost.invalid:1: code %d, %q", code, errOut)
	}
}

// A scenario's timeline applies in wall time from the start, each change
// printed as it applies (8.3); latency-spike's spike is in it.
func TestProxyTimelineAppliesInWallTime(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	file := filepath.Join(t.TempDir(), "spike.toml")
	os.WriteFile(file, []byte(`base = "home-cable"
[[timeline]]
at = "100ms"
link.latency = "300ms"
[[timeline]]
at = "200ms"
link.latency = "25ms"
client.fps = 30
`), 0o644)
	code, out, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--scenario", file, "--duration", "400ms", "--every", "100ms")
	if code != 0 {
		t.Fatal(errOut)
	}
	first := strings.Index(out, "change at 100ms: link.latency=300ms\n")
	second := strings.Index(out, "change at 200ms: link.latency=25ms client.fps=30 (not a link setting: ignored)\n")
	if first < 0 || second < first || strings.Index(out, "summary") < second {
		t.Fatalf("changes not printed in order as they apply:\n%s", out)
	}

	var o runOptions
	o.register(newFlagSet("proxy", "", io.Discard, nil))
	o.scenario = "latency-spike"
	cfg, sc, err := o.config()
	if err != nil {
		t.Fatal(err)
	}
	tl, _, err := live.Timeline(cfg, sc, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl) != 2 || tl[0].After != 20*time.Second || proxyctl.Describe(tl[0].Set) != "link.latency=300ms" ||
		tl[1].After != 22*time.Second || proxyctl.Describe(tl[1].Set) != "link.latency=25ms" {
		t.Fatalf("latency-spike on the proxy: %+v", tl)
	}
}

// SIGINT, SIGTERM and SIGHUP stop the proxy cleanly with its summary
// (15.12, 8.20), in a real process, and it exits as every lab command a
// signal stops does (lab -h; issue 12, proxyscreen 3): 128 + the signal,
// after its summary and audit, with one line on stderr naming the signal;
// so a script tells its own stop (130, 143, 129) from a failure (1) and
// from a run that reached its --duration (0).
func TestProxyExitsWithSignalStatus(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}, {syscall.SIGHUP, 129}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			cmd, stdout, stderr := labProcess(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--pcap", filepath.Join(t.TempDir(), "p.pcapng"))
			sc := bufio.NewScanner(stdout)
			if !sc.Scan() || !strings.HasPrefix(sc.Text(), "relaying ") {
				cmd.Process.Kill()
				t.Fatalf("did not start: %q %s", sc.Text(), stderr)
			}
			cmd.Process.Signal(c.sig)
			var rest strings.Builder
			for sc.Scan() {
				rest.WriteString(sc.Text() + "\n")
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != c.code {
				t.Fatalf("exit %v, want status %d; stderr %s", err, c.code, stderr)
			}
			if !strings.Contains(rest.String(), "summary after ") || !strings.Contains(rest.String(), "audit over ") {
				t.Errorf("no summary and audit before the exit:\n%s", rest.String())
			}
			if want := "lab proxy: " + c.sig.String() + ": stopped after "; !strings.HasPrefix(stderr.String(), want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q, want one line starting %q", stderr, want)
			}
		})
	}
	// Its --duration reached, the proxy exits 0.
	if code, out, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "200ms", "--no-tui"); code != 0 || !strings.Contains(out, "summary after ") {
		t.Errorf("--duration 200ms: exit %d, stderr %q", code, errOut)
	}
}

// A timeline change --duration does not reach is applied by 'lab run'
// (it just never comes): the proxy applies the changes within the run and
// warns of the others, naming each (QA b).
func TestProxyTimelineBeyondDuration(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	code, out, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--scenario", "latency-spike", "--duration", "300ms", "--no-tui")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, at := range []string{"20s (link.latency=300ms)", "22s (link.latency=25ms)"} {
		if !strings.Contains(errOut, "timeline change at "+at+" not reached: --duration 300ms stops the proxy first") {
			t.Errorf("no warning for the change at %s:\n%s", at, errOut)
		}
	}
	if !strings.Contains(out, "\nsummary after ") {
		t.Fatalf("no summary:\n%s", out)
	}
}

// The proxy schedules what 'lab run' schedules: the scenario's timeline
// and the changes its oscillators and flaps make (starlink), in time
// order, changes at one time together (QA c).
func TestProxySchedulesGeneratedChanges(t *testing.T) {
	var o runOptions
	fs := newFlagSet("proxy", "", io.Discard, nil)
	o.register(fs)
	if err := fs.Parse([]string{"--scenario", "starlink", "--duration", "30s"}); err != nil {
		t.Fatal(err)
	}
	cfg, sc, err := o.config()
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Oscillators)+len(sc.Flaps) == 0 {
		t.Fatal("starlink has no oscillators or flaps: pick a scenario that does")
	}
	tl, warn, err := live.Timeline(cfg, sc, o.duration)
	if err != nil || len(warn) != 0 {
		t.Fatalf("%v %q", err, warn)
	}
	want, _, err := scenarios.TimelineOf(sc, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var got, wanted []string
	for _, c := range tl {
		for _, a := range c.Set {
			got = append(got, fmt.Sprintf("%v %s=%s", c.After, a.Key, a.Value))
		}
	}
	for _, c := range want {
		for _, a := range c.Set {
			if c.At < 30*time.Second && proxyctl.IsLinkKey(a.Key) {
				wanted = append(wanted, fmt.Sprintf("%v %s=%s", c.At, a.Key, a.Value))
			}
		}
	}
	if len(wanted) <= len(sc.Timeline) || !slices.Equal(got, wanted) {
		t.Fatalf("the proxy schedules\n%s\n'lab run' schedules\n%s", strings.Join(got, "\n"), strings.Join(wanted, "\n"))
	}
	for i := 1; i < len(tl); i++ {
		if tl[i].After <= tl[i-1].After {
			t.Fatalf("changes at %v then %v: want one per time, in order", tl[i-1].After, tl[i].After)
		}
	}
}

// --set of a model key that is not the link's (client.*, server.*) is
// refused naming the key, exit 2: the proxy relays a real game's packets
// (QA a). So are a missing --to and a --listen that is not host:port.
func TestProxyRefusesModelKeys(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "127.0.0.1:9", "--set", "client.fps=30"}, "--set client.fps=30: client.fps is not a link setting"},
		{[]string{"--to", "127.0.0.1:9", "--set", "server.drift_ppm=0"}, "server.drift_ppm is not a link setting"},
		{nil, "--to: name the game server"},
		{[]string{"--to", "127.0.0.1:9", "--listen", "7777"}, `--listen "7777": want host:port`},
		{[]string{"--to", "127.0.0.1:9", "--listen", "127.0.0.1:http"}, `--listen "127.0.0.1:http": port "http"`},
	} {
		args := append([]string{"proxy", "--listen", "127.0.0.1:0", "--duration", "100ms", "--no-tui"}, c.args...)
		code, _, errOut := runLab(t, args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// lab proxy -h lists the live screen's keys (QA d).
func TestProxyHelpListsScreenKeys(t *testing.T) {
	_, out, errOut := runLab(t, "proxy", "-h")
	for _, line := range strings.Split(strings.TrimSpace(proxyscreen.KeyHelp()), "\n") {
		if !strings.Contains(out+errOut, line) {
			t.Fatalf("lab proxy -h lacks the screen's key line %q", line)
		}
	}
}

// TestProxyCaptureToStandardOutputIsABadCommandLine: --pcap - and --record -
// are refused as a bad command line (exit 2) naming the flag, before the
// relay binds its port.
func TestProxyCaptureToStandardOutputIsABadCommandLine(t *testing.T) {
	for _, flag := range []string{"--pcap", "--record"} {
		code, _, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", flag, "-", "--duration", "1s", "--no-tui")
		if code != 2 || !strings.Contains(errOut, flag+" -") {
			t.Errorf("%s -: exit %d, %q; want exit 2 naming %s -", flag, code, errOut, flag)
		}
	}
}

// A terminal that goes away sends a hangup to every process on it, often
// twice (the kernel, then the shell as it dies): a second SIGHUP while the
// proxy finishes must not kill it before its recording is closed; it
// exits 129, as a hangup stops every lab command, with the recording
// whole (issue 12.4).
func TestProxyRepeatedHangupClosesTheRecording(t *testing.T) {
	t.Parallel() // long and independent of the others
	exe := buildLab(t)
	for i := range 5 {
		rec := filepath.Join(t.TempDir(), "hup.jlrec")
		cmd := exec.Command(exe, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--no-tui", "--record", rec)
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		if !sc.Scan() || !strings.HasPrefix(sc.Text(), "relaying ") {
			cmd.Process.Kill()
			t.Fatalf("did not start: %q", sc.Text())
		}
		go io.Copy(io.Discard, stdout)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
	hangups:
		for {
			cmd.Process.Signal(syscall.SIGHUP)
			select {
			case err = <-exited:
				break hangups
			case <-time.After(200 * time.Microsecond):
			}
		}
		if code := cmd.ProcessState.ExitCode(); code != 129 {
			t.Fatalf("run %d: hangups ended the proxy with %v; want exit status 129", i, err)
		}
		if code, out, _ := runLab(t, "replay", rec); code != 0 || strings.Contains(out, "not closed") {
			t.Fatalf("run %d: the recording after hangups (exit %d):\n%s", i, code, out)
		}
	}
}

// tmuxProxy runs 'lab proxy --listen 127.0.0.1:0 --to 127.0.0.1:9 args…'
// (this test binary as 'lab') on an 80×24 tmux terminal until the screen
// shows; run is tmux on its server, exited waits for the exit status and
// returns it with the proxy's stderr. The pane's shell ignores a hangup
// so that it lives to note the exit status.
func tmuxProxy(t *testing.T, name string, args ...string) (run func(args ...string) string, exited func() (code, stderr string)) {
	t.Helper()
	run, exited, _ = tmuxProxyPID(t, name, args...)
	return run, exited
}

// tmuxProxyPID is tmuxProxy that also gives the proxy's process id.
func tmuxProxyPID(t *testing.T, name string, args ...string) (run func(args ...string) string, exited func() (code, stderr string), pid int) {
	t.Helper()
	tmux := testtool.Need(t, "tmux", "tmux")
	dir := t.TempDir()
	socket := fmt.Sprintf("jl-proxy-%s-%d", name, os.Getpid())
	status, errFile, pidFile := filepath.Join(dir, "status"), filepath.Join(dir, "stderr"), filepath.Join(dir, "pid")
	// The inner shell notes its pid and becomes the proxy.
	script := "trap '' HUP; sh -c 'echo $$ > " + pidFile + "; exec env JITTERLAB_LAB_MAIN=1 TERM=xterm-256color " + os.Args[0] +
		" proxy --listen 127.0.0.1:0 --to 127.0.0.1:9 " + strings.Join(args, " ") + "' 2>" + errFile + "; echo $? > " + status + "; sleep 30"
	run = func(args ...string) string {
		out, _ := exec.Command(tmux, append([]string{"-L", socket}, args...)...).CombinedOutput()
		return string(out)
	}
	run("new-session", "-d", "-s", "p", "-x", "80", "-y", "24", "sh", "-c", script)
	t.Cleanup(func() { run("kill-server") })
	waitUntil := func(what string, ok func() bool) {
		for range 300 {
			if ok() {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("no %s after 30 s", what)
	}
	waitUntil("proxy screen", func() bool { return strings.Contains(run("capture-pane", "-p", "-t", "p"), "jitterlab proxy") })
	b, _ := os.ReadFile(pidFile)
	pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	exited = func() (string, string) {
		var code []byte
		waitUntil("exit status", func() bool { code, _ = os.ReadFile(status); return len(code) > 0 })
		stderr, _ := os.ReadFile(errFile)
		return strings.TrimSpace(string(code)), string(stderr)
	}
	return run, exited, pid
}

// On its screen too, the proxy a signal stops exits 128 + the signal
// after its summary, as in line mode (issue 12, proxyscreen 3), and q
// exits 0.
func TestProxyScreenExitsWithSignalStatus(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	for _, c := range []struct {
		sig  syscall.Signal
		code string
	}{{syscall.SIGTERM, "143"}, {syscall.SIGINT, "130"}} {
		run, exited, pid := tmuxProxyPID(t, "sig"+c.code)
		if pid == 0 {
			t.Fatal("no pid")
		}
		syscall.Kill(pid, c.sig)
		code, stderr := exited()
		out := strings.Join(strings.Fields(run("capture-pane", "-p", "-J", "-S", "-", "-t", "p")), " ")
		if code != c.code || !strings.Contains(stderr, c.sig.String()+": stopped after ") || !strings.Contains(out, "audit over ") {
			t.Errorf("%v on the screen: exit %s, stderr %q; want %s, the signal named and the audit:\n%s", c.sig, code, stderr, c.code, out)
		}
	}
	run, exited := tmuxProxy(t, "sigq")
	run("send-keys", "-t", "p", "q")
	if code, stderr := exited(); code != "0" {
		t.Errorf("q: exit %s, stderr %q; want 0", code, stderr)
	}
}

// The proxy's screen on a terminal that goes away (the tmux session or
// the ssh connection closed) stops the relay as a hangup does: exit 129,
// its recording closed, no "EOF" error (issue 12.1).
func TestProxyScreenSurvivesItsTerminalGoingAway(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "r.jlrec")
	run, exited := tmuxProxy(t, "gone", "--record", rec)
	run("kill-server")
	code, stderr := exited()
	if code != "129" || strings.Contains(stderr, "EOF") {
		t.Errorf("the terminal went away: exit %s, stderr %q; want exit 129 as for a hangup", code, stderr)
	}
	if c, out, _ := runLab(t, "replay", rec); c != 0 || strings.Contains(out, "not closed") {
		t.Errorf("the recording (exit %d):\n%s", c, out)
	}
}

// After the screen, the summary and the audit give the run one length:
// the relay's, not the summary's the time the screen took to notice the
// end of --duration (issue 12.5).
func TestProxyScreenSummaryAndAuditAgreeOnTheRunLength(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	run, exited := tmuxProxy(t, "length", "--duration", "1s")
	if code, stderr := exited(); code != "0" {
		t.Fatalf("exit %s: %s", code, stderr)
	}
	out := strings.Join(strings.Fields(run("capture-pane", "-p", "-J", "-S", "-", "-t", "p")), " ")
	summary := regexp.MustCompile(`summary after (\S+):`).FindStringSubmatch(out)
	audit := regexp.MustCompile(`audit over (\S+):`).FindStringSubmatch(out)
	if summary == nil || audit == nil || summary[1] != audit[1] {
		t.Fatalf("summary after %v, audit over %v; want one length:\n%s", summary, audit, out)
	}
}

// A proxy whose standard output is a pipe its reader closed (… | head, a
// log shipper that died) stops the relay as a signal does, closing its
// recording, and exits quietly with a closed pipe's status, 141, instead
// of being killed by SIGPIPE with the recording unfinished (issue 12.4).
func TestProxyOutputPipeClosedClosesTheRecording(t *testing.T) {
	t.Parallel() // long and independent of the others
	exe := buildLab(t)
	rec := filepath.Join(t.TempDir(), "pipe.jlrec")
	cmd := exec.Command(exe, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--every", "100ms", "--record", rec, "--duration", "30s")
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "relaying ") {
		cmd.Process.Kill()
		t.Fatalf("did not start: %q", sc.Text())
	}
	stdout.Close() // the reader goes away
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitClosedPipe {
		t.Errorf("exit %d (%v), stderr %q; want %d, quietly", code, err, stderr.String(), exitClosedPipe)
	}
	if c, out, _ := runLab(t, "replay", rec); c != 0 || strings.Contains(out, "not closed") {
		t.Errorf("the recording (exit %d):\n%s", c, out)
	}
}
