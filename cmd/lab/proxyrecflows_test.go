package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	proxyctl "jitterlab/proxy/control"
)

// proxyProc is a lab proxy running as a process of its own, driven as a
// game's CI script would: its relay and control API addresses, and its
// standard output after the first lines.
type proxyProc struct {
	cmd         *exec.Cmd
	listen, api string
	rest        chan string
	stderr      bytes.Buffer
	head        string // the lines up to the control API's
	relay       *net.UDPAddr
	httpClient  *http.Client
	stopped     bool
}

// builtLab is the lab binary the tests run as a child process, built once
// per test binary (a link of the whole command takes seconds) into binDir,
// which TestMain removes.
var builtLab struct {
	once   sync.Once
	binDir string
	exe    string
	err    error
}

// buildLab builds the lab binary once and returns its path.
func buildLab(t *testing.T) string {
	t.Helper()
	b := &builtLab
	b.once.Do(func() {
		if b.binDir, b.err = os.MkdirTemp("", "jitterlab-lab-"); b.err != nil {
			return
		}
		exe := filepath.Join(b.binDir, "lab")
		if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		b.exe = exe
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.exe
}

// startProxy runs exe proxy --listen 127.0.0.1:0 --control 127.0.0.1:0
// with args and waits for it to print its addresses.
func startProxy(t *testing.T, exe string, args ...string) *proxyProc {
	t.Helper()
	p := &proxyProc{rest: make(chan string, 1), httpClient: &http.Client{Timeout: 10 * time.Second}}
	p.cmd = exec.Command(exe, append([]string{"proxy", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--no-tui"}, args...)...)
	stdout, _ := p.cmd.StdoutPipe()
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !p.stopped {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	lines := bufio.NewScanner(stdout)
	var head strings.Builder
	for p.api == "" && lines.Scan() {
		head.WriteString(lines.Text() + "\n")
		if m := regexp.MustCompile(`^relaying (\S+) →`).FindStringSubmatch(lines.Text()); m != nil {
			p.listen = m[1]
		}
		if m := regexp.MustCompile(`^control API on (http://\S+)`).FindStringSubmatch(lines.Text()); m != nil {
			p.api = m[1]
		}
	}
	p.head = head.String()
	if p.listen == "" || p.api == "" {
		t.Fatalf("no relay or API address printed:\n%s\nstderr %s", p.head, p.stderr.String())
	}
	go func() {
		var b strings.Builder
		for lines.Scan() {
			b.WriteString(lines.Text() + "\n")
		}
		p.rest <- b.String()
	}()
	p.relay, _ = net.ResolveUDPAddr("udp", p.listen)
	return p
}

// call makes one request of the control API.
func (p *proxyProc) call(t *testing.T, method, path, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, p.api+path, strings.NewReader(body))
	req.Header.Set("Content-Type", proxyctl.MediaType(method, req.URL.Path))
	resp, err := p.httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// must is call expecting 200.
func (p *proxyProc) must(t *testing.T, method, path, body string) {
	t.Helper()
	if code, b := p.call(t, method, path, body); code != 200 {
		t.Fatalf("%s %s: %d %s", method, path, code, b)
	}
}

// client is a UDP socket to the relay from a port of its own.
func (p *proxyProc) client(t *testing.T) *net.UDPConn {
	t.Helper()
	c, err := net.DialUDP("udp", nil, p.relay)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// stop sends SIGTERM and returns what the proxy printed after its start;
// the proxy exits 143, as a command SIGTERM stops does.
func (p *proxyProc) stop(t *testing.T) string {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	out := <-p.rest
	p.stopped = true
	if err := p.cmd.Wait(); p.cmd.ProcessState == nil || p.cmd.ProcessState.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit: %v, want status 143\n%s", err, p.stderr.String())
	}
	return out
}

// recordedProxyRun relays two clients through a recorded proxy while a
// script changes the links: one client has its own settings from --flow,
// the other gets its own through the API, the defaults change through
// PUT /params and POST /timeline, and the first client is put back on
// the defaults. It returns the recording and both clients' addresses.
func recordedProxyRun(t *testing.T) (rec, flowAddr, apiAddr, out string) {
	t.Helper()
	exe := buildLab(t)
	server := echoServer(t)
	own, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	flowAddr = own.LocalAddr().String()
	own.Close() // free the port --flow names
	rec = filepath.Join(t.TempDir(), "relay.jlrec")
	p := startProxy(t, exe, "--to", server, "--record", rec, "--set", "link.latency=1ms", "--flow", flowAddr+" up.loss=100%")
	mine, err := net.DialUDP("udp", own.LocalAddr().(*net.UDPAddr), p.relay)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	plain := p.client(t)
	apiAddr = plain.LocalAddr().String()
	if got := echoes(t, plain, 5, 10*time.Second); got != 5 {
		t.Fatalf("default client: %d/5 echoes", got)
	}
	echoes(t, mine, 3, 100*time.Millisecond)
	p.must(t, "PUT", "/params?flow="+apiAddr, `{"down.latency": "5ms"}`)
	p.must(t, "PUT", "/params", `{"up.jitter": "2ms"}`)
	p.must(t, "POST", "/timeline", "[[timeline]]\nat = \"50ms\"\nup.duplicate = \"1%\"\n")
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, b := p.call(t, "GET", "/params", "")
		if regexp.MustCompile(`"up.duplicate":\s*"1%"`).Match(b) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scheduled change never applied: %s", b)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.must(t, "DELETE", "/params?flow="+flowAddr, "")
	if got := echoes(t, mine, 5, 10*time.Second); got != 5 {
		t.Fatalf("client back on the defaults: %d/5 echoes", got)
	}
	echoes(t, plain, 5, 10*time.Second)
	return rec, flowAddr, apiAddr, p.stop(t)
}

// A proxy recording keeps every change of the links, whoever made it —
// --flow at the start, the control API's PUT and DELETE /params (for
// everybody or one client), POST /timeline — at the wall time it applied
// and for whom, and the client address of each flow: replay lists them
// and export --changes writes them as CSV (issue 12.1).
func TestProxyRecordingKeepsAPIAndFlowSettings(t *testing.T) {
	t.Parallel() // long and independent of the others
	rec, flowAddr, apiAddr, _ := recordedProxyRun(t)
	code, replay, errOut := runLab(t, "replay", rec)
	if code != 0 {
		t.Fatal(errOut)
	}
	at := `  at \d\d:\d\d:\d\d\.\d{3}  `
	for _, want := range []string{
		at + `client ` + regexp.QuoteMeta(flowAddr) + ` up\.loss = 100%\n`,
		at + `client ` + regexp.QuoteMeta(apiAddr) + ` down\.latency = 5ms\n`,
		at + `up\.jitter = 2ms\n`,
		at + `up\.duplicate = 1%\n`,
		at + `client ` + regexp.QuoteMeta(flowAddr) + ` back on everybody's settings\n`,
		`(?m)^  flow 1  ` + regexp.QuoteMeta(apiAddr) + `  from \d\d:\d\d:\d\d\.\d{3}$`,
		`(?m)^  flow 2  ` + regexp.QuoteMeta(flowAddr) + `  from \d\d:\d\d:\d\d\.\d{3}$`,
	} {
		if !regexp.MustCompile(want).MatchString(replay) {
			t.Errorf("replay lacks %q:\n%s", want, replay)
		}
	}
	if i, j := strings.Index(replay, "up.jitter = 2ms"), strings.Index(replay, "up.duplicate = 1%"); i < 0 || j < i {
		t.Errorf("replay lists the changes out of order:\n%s", replay)
	}

	code, out, errOut := runLab(t, "export", rec, "--changes", "-")
	if code != 0 {
		t.Fatal(errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "t_s,client,flow,key,value" {
		t.Fatalf("export --changes header %v", rows[0])
	}
	got := map[string]bool{}
	last := ""
	for _, r := range rows[1:] {
		if r[0] < last {
			t.Errorf("export --changes goes back in time: %v after %s", r, last)
		}
		last = r[0]
		got[strings.Join(r[1:], " ")] = true
	}
	for _, want := range []string{flowAddr + "  up.loss 100%", apiAddr + " 1 down.latency 5ms", "all  up.jitter 2ms",
		"all  up.duplicate 1%", flowAddr + " 2 own settings cleared", apiAddr + " 1 flow started", flowAddr + " 2 flow started"} {
		if !got[want] {
			t.Errorf("export --changes lacks the row %q:\n%s", want, out)
		}
	}
}

// The end-of-run audit does not compare the whole run with the settings
// at the end (issue 12.3): a row whose setting changed says how often and
// its last value, and the audit per period of constant settings gives each
// client its own configured link — its --flow or API settings — beside
// what its packets met in that period.
func TestProxyAuditPerClientAndPeriod(t *testing.T) {
	t.Parallel() // long and independent of the others
	_, flowAddr, apiAddr, out := recordedProxyRun(t)
	_, audit, ok := strings.Cut(out, "\naudit over ")
	if !ok {
		t.Fatalf("no audit:\n%s", out)
	}
	for _, want := range []string{
		`(?m)^jitter \(RFC 3550\)\s+changed 1 time; last: 2ms uniform, J ≈ 1\.125ms\s`,
		`(?m)^duplicated\s+changed 1 time; last: 1%\s`,
		`(?m)^period 1: \+0\.000s to \+\d+\.\d{3}s \(\d+\.\d{3}s\), the start$`,
		`(?m)^period 2: .*, after client ` + regexp.QuoteMeta(apiAddr) + ` down\.latency=5ms$`,
		`(?m)^period 3: .*, after up\.jitter=2ms$`,
		`(?m)^period 4: .*, after up\.duplicate=1%$`,
		`(?m)^period 5: .*, after client ` + regexp.QuoteMeta(flowAddr) + ` back on everybody's settings$`,
		// Period 1: the --flow client loses everything up, by its own settings.
		`(?m)^  ` + regexp.QuoteMeta(flowAddr) + `\s+up\s+set 1ms, loss 100%.*\n\s+real .*lost [1-9]\d* of [1-9]\d* \(100\.0 %\)`,
		// Period 5: it is back on everybody's: no loss, the jitter and duplicates of the defaults.
		`(?s)period 5: .*\n  ` + regexp.QuoteMeta(flowAddr) + `\s+up\s+set 1ms ± 2ms uniform, loss 0%, duplicate 1%`,
	} {
		if !regexp.MustCompile(want).MatchString(audit) {
			t.Errorf("the audit lacks %q:\n%s", want, audit)
		}
	}
}
