package main

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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
		if got := echoes(t, p.client(t), 5, 10*time.Second); got != 5 {
			t.Fatalf("game client %d: %d/5 echoes with 400 idle API connections (the proxy holds %d descriptors of %d)", i, got, fds(t, pid), limit)
		}
	}
	if n := fds(t, pid); n >= limit-8 {
		t.Errorf("the proxy holds %d descriptors of %d", n, limit)
	}
	for _, c := range idle {
		c.Close()
	}
	idle = nil
	p.must(t, "GET", "/counters", "")
	p.stop(t)
}
