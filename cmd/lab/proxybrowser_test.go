package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"jitterlab/internal/testtool"
)

// attackPage is a page of another origin that tries, against the control
// API at %[1]s, what any web page can make a browser send: fetches without
// a preflight (text/plain, urlencoded), fetches that need one, and an
// auto-submitted <form enctype=text/plain> whose field name makes the body
// TOML. It reports each try to its own server, then /done.
const attackPage = `<!doctype html>
<title>attack</title>
<form id="f" method="POST" action="%[1]s/timeline" enctype="text/plain" target="sink">
<input type="hidden" name='[[timeline]]&#10;at = "1h"&#10;up.loss = "100%%"&#10;#' value="x">
</form>
<iframe name="sink" id="sink"></iframe>
<script>
const api = "%[1]s";
const later = '[[timeline]]\nat = "1h"\nup.loss = "100%%"\n';
const now = '{"up.latency": "500ms", "up.loss": "100%%"}';
const attempts = [
  ["fetch POST /timeline text/plain (no preflight)", () => fetch(api + "/timeline", {method: "POST", mode: "no-cors", body: later})],
  ["fetch POST /timeline urlencoded (no preflight)", () => fetch(api + "/timeline", {method: "POST", mode: "no-cors", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: later})],
  ["fetch POST /timeline application/toml (preflight)", () => fetch(api + "/timeline", {method: "POST", headers: {"Content-Type": "application/toml"}, body: later})],
  ["fetch PUT /params application/json (preflight)", () => fetch(api + "/params", {method: "PUT", headers: {"Content-Type": "application/json"}, body: now})],
  ["fetch POST /params text/plain (no preflight)", () => fetch(api + "/params", {method: "POST", mode: "no-cors", body: now})],
  ["fetch DELETE /timeline (preflight)", () => fetch(api + "/timeline", {method: "DELETE"})],
];
async function report(what) { await fetch("/report", {method: "POST", body: what}); }
(async () => {
  for (const [name, f] of attempts) {
    let r;
    try { const resp = await f(); r = "status " + resp.status + " (" + resp.type + ")"; } catch (e) { r = String(e); }
    await report(name + ": " + r);
  }
  document.getElementById("sink").onload = async () => {
    await report("form POST /timeline text/plain: submitted");
    await fetch("/done", {method: "POST"});
  };
  document.getElementById("f").submit();
})();
</script>`

// CSRF in a real browser (issue 27.2): headless Chromium loads a page from
// another origin (a second loopback server) that tries the form and fetch
// attacks on a running proxy's --control API; the link is the same
// afterwards and nothing is scheduled, and the proxy's log shows the
// requests that reached it refused.
func TestBrowserPageCannotDriveTheControlAPI(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	chromium := testtool.Need(t, "chromium", "chromium")
	p := startProxy(t, buildLab(t), "--to", echoServer(t), "--set", "link.latency=10ms")
	params := func() map[string]string {
		t.Helper()
		code, body := p.call(t, "GET", "/params", "")
		var v struct{ Params map[string]string }
		if err := json.Unmarshal(body, &v); code != 200 || err != nil {
			t.Fatalf("GET /params: %d %s", code, body)
		}
		return v.Params
	}
	before := params()

	var mu sync.Mutex
	var reports []string
	done := make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, attackPage, p.api)
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 4096))
		mu.Lock()
		reports = append(reports, string(b))
		mu.Unlock()
	})
	mux.HandleFunc("/done", func(w http.ResponseWriter, r *http.Request) { once.Do(func() { close(done) }) })
	ln, err := net.Listen("tcp", "127.0.0.1:0") // another port: another origin
	if err != nil {
		t.Fatal(err)
	}
	page := &http.Server{Handler: mux}
	go page.Serve(ln)
	defer page.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+t.TempDir(),
		"http://"+ln.Addr().String()+"/")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers end with it
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-done:
	case err := <-exited:
		t.Fatalf("chromium ended before the page had tried every attack: %v\n%s", err, log.String())
	case <-ctx.Done():
		t.Fatalf("the page did not finish its attacks\n%s", log.String())
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-exited
	mu.Lock()
	t.Logf("the page's attacks:\n%s", strings.Join(reports, "\n"))
	if len(reports) != 7 {
		t.Errorf("%d attacks reported; want 7", len(reports))
	}
	mu.Unlock()

	if after := params(); !reflect.DeepEqual(after, before) {
		for k, v := range after {
			if before[k] != v {
				t.Errorf("%s changed from %s to %s", k, before[k], v)
			}
		}
	}
	code, body := p.call(t, "DELETE", "/timeline", "")
	if code != 200 || !strings.Contains(string(body), `"cancelled": 0`) {
		t.Errorf("DELETE /timeline: %d %s; want nothing scheduled by the page", code, body)
	}
	out := p.stop(t)
	// The form and the fetches without a preflight reach the API and are
	// refused; those with one never get past the browser.
	if n := strings.Count(out, "API POST /timeline — refused"); n < 3 {
		t.Errorf("%d refused POST /timeline in the proxy's log; want the form's and both fetches':\n%s", n, out)
	}
}
