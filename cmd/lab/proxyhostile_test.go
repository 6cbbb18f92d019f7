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
	"testing/synctest"
	"time"

	"github.com/gdamore/tcell/v2"

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

// frozenView is a screen whose draw never ends: Run returns only once
// Stop is called (which a real frozen screen would not even do).
type frozenView struct{ stopped chan struct{} }

func (f *frozenView) Run(tcell.Screen) error { <-f.stopped; return nil }
func (f *frozenView) Signal() os.Signal      { return nil }
func (f *frozenView) Stop()                  { close(f.stopped) }

// Signals stop the proxy whatever the screen does (issue 27.3): the relay
// stops on a signal by itself, and once it has, a screen that has not
// closed within screenGrace (a draw that never ends) is left behind, so
// the proxy goes on to close its files and print its summary. synctest's
// clock.
func TestProxyStopsWhenItsScreenIsFrozen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		view := &frozenView{stopped: make(chan struct{})}
		done := make(chan error, 1)
		var stderr strings.Builder
		stopped := false
		returned := make(chan struct{})
		start := time.Now()
		go func() {
			runScreen(view, &relaySource{}, &screenRecorder{}, func() { stopped = true }, done, make(chan appliedChange), &stderr)
			close(returned)
		}()
		synctest.Wait()
		done <- nil // the relay stopped: a signal cancelled its context
		<-returned
		if waited := time.Since(start); waited != screenGrace {
			t.Errorf("returned after %v; want screenGrace, %v", waited, screenGrace)
		}
		if !stopped || !strings.Contains(stderr.String(), "the screen did not close") {
			t.Errorf("stop called %v; stderr %q", stopped, stderr.String())
		}
	})
}

// The repro (27.3): one request with a 500 KB value, refused with
// 400, reaches the proxy's screen; the screen goes on drawing, SIGTERM
// stops the proxy with 143 and its recording is closed.
func TestProxyScreenSurvivesAHugeRequest(t *testing.T) {
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

// The change log never drops an entry silently (issue 27, LOW): when it
// is full an entry is counted, the next one kept says how many went
// before it, on the counter lines and on the screen's c alike.
func TestChangeLogSaysWhatItDropped(t *testing.T) {
	l := newChangeLog(2)
	log := apiLog(l)
	for i := range 5 {
		log(fmt.Sprintf("PUT /params: up.loss=%d%%", i), nil)
	}
	<-l.ch
	<-l.ch
	log("PUT /params: up.loss=9%", nil)
	c := <-l.ch
	if c.missed != 3 || l.lost.Load() != 3 {
		t.Fatalf("the entry after 3 dropped says %d missed, %d lost in all; want 3, 3", c.missed, l.lost.Load())
	}
	src := &relaySource{}
	src.timeline(c)
	if got := src.changes[0].What; got != "(3 entries before this one not logged: the log was full) PUT /params: up.loss=9%" {
		t.Errorf("the screen's entry %q", got)
	}
}
