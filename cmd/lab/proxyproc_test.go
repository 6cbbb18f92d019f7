package main

import (
	"bufio"
	"bytes"
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
