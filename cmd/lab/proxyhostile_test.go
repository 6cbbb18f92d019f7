package main

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	proxyctl "jitterlab/proxy/control"
)

// fds is how many file descriptors process pid holds.
func fds(t *testing.T, pid int) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	return len(ents)
}

// Idle connections to the control API never starve the relay (issue
// 27.7): with 160 file descriptors in all, 400 idle connections to the
// API leave the relay the sockets it opens for new game clients (one
// each, to the server), and the API answers again once they close.
func TestControlAPIConnectionsDoNotStarveTheRelay(t *testing.T) {
	const limit = 160
	limited := filepath.Join(t.TempDir(), "lab-limited")
	script := fmt.Sprintf("#!/bin/sh\nulimit -n %d || exit 99\nexec %s \"$@\"\n", limit, buildLab(t))
	if err := os.WriteFile(limited, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, limited, "--to", echoServer(t))
	pid := p.cmd.Process.Pid
	api, _ := url.Parse(p.api)
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range 400 {
		c, err := net.Dial("tcp", api.Host)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	// The proxy has taken what it will take of them: every place the API
	// has (before the fix, every descriptor it could get).
	for fds(t, pid) < proxyctl.MaxConns {
		time.Sleep(time.Millisecond)
	}
	for i := range 3 {
		if got := testtool.Echoes(p.client(t), 5, 10*time.Second); got != 5 {
			t.Fatalf("game client %d: %d/5 echoes with 400 idle API connections (the proxy holds %d descriptors of %d)", i, got, fds(t, pid), limit)
		}
	}
	n := fds(t, pid)
	if n >= limit-8 {
		t.Errorf("the proxy holds %d descriptors of %d", n, limit)
	}
	t.Logf("with 400 idle API connections the proxy holds %d descriptors of %d", n, limit)
	for _, c := range idle {
		c.Close()
	}
	idle = nil
	// The server sees the closes as it gets to them: the API answers again
	// once it has (503 "holds 64 connections" until then).
	code, body := p.call(t, "GET", "/counters", "")
	for deadline := time.Now().Add(20 * time.Second); code == 503 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		code, body = p.call(t, "GET", "/counters", "")
	}
	if code != 200 {
		t.Fatalf("GET /counters after the idle connections closed: %d %s", code, body)
	}
	p.stop(t)
}

// The repro (27.3): one request with a 500 KB value, refused with
// 400, reaches the proxy's screen; the screen goes on drawing, SIGTERM
// stops the proxy with 143 and its recording is closed.
func TestProxyScreenSurvivesAHugeRequest(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	rec := filepath.Join(t.TempDir(), "r.jlrec")
	api := loopback(freePort(t))
	run, exited, pid := tmuxProxyPID(t, "huge", "--control", api, "--record", rec)
	body := `{"up.latency": "` + strings.Repeat("9", 500_000) + `ms"}`
	req, _ := http.NewRequest("PUT", "http://"+api+"/params", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("PUT of a 500 KB value: %d; want 400", resp.StatusCode)
	}
	for !strings.Contains(run("capture-pane", "-p", "-t", "p"), "API refused") { // the screen shows it (the test's timeout bounds the wait)
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGTERM)
	if code, stderr := exited(); code != "143" {
		t.Fatalf("SIGTERM after a huge request: exit %s, stderr %q; want 143", code, stderr)
	}
	if code, out, _ := runLab(t, "replay", rec); code != 0 || strings.Contains(out, "not closed") {
		t.Fatalf("the recording (exit %d):\n%s", code, out)
	}
}
