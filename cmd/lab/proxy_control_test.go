package main

import (
	"bytes"
	"encoding/json"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/lab"
)

// A test script drives a running proxy: two clients, one with its own
// links from --flow; the API reads and changes the settings (with --set's
// errors), schedules a timeline, reads counters and /metrics (checked by
// promtool); the run ends with the per-client table and the audit
// (issue 12.2, 12.3, 12.5).
func TestProxyControlAPIAndFlows(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	server := echoServer(t)
	own, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	ownAddr := own.LocalAddr().String()
	p := startProxy(t, buildLab(t), "--to", server, "--set", "link.latency=1ms", "--flow", ownAddr+" up.loss=100%")
	relay := p.relay
	plain, err := net.DialUDP("udp", nil, relay)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	own.Close() // free the port --flow names for the client's own socket
	mine, err := net.DialUDP("udp", own.LocalAddr().(*net.UDPAddr), relay)
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()

	if got := testtool.Echoes(plain, 5, 10*time.Second); got != 5 {
		t.Fatalf("default client: %d/5 echoes", got)
	}
	if got := testtool.Echoes(mine, 5, 300*time.Millisecond); got != 0 {
		t.Fatalf("client with up.loss=100%%: %d/5 echoes", got)
	}

	call := func(method, path, body string) (int, []byte) { t.Helper(); return p.call(t, method, path, body) }
	var params struct {
		Params map[string]string
		Own    []string
	}
	code, body := call("GET", "/params?flow="+ownAddr, "")
	json.Unmarshal(body, &params)
	if code != 200 || params.Params["up.loss"] != "100%" || params.Params["up.latency"] != "1ms" || len(params.Own) != 1 {
		t.Fatalf("GET /params?flow=: %d %s", code, body)
	}
	// Raise the defaults' loss to 100 %: the plain client goes dark.
	if code, body := call("PUT", "/params", `{"up.loss": "100%"}`); code != 200 {
		t.Fatalf("PUT /params: %d %s", code, body)
	}
	if got := testtool.Echoes(plain, 5, 300*time.Millisecond); got != 0 {
		t.Fatalf("after PUT up.loss=100%%: %d/5 echoes", got)
	}
	// The same error as --set.
	code, body = call("PUT", "/params", `{"up.loss": "250%"}`)
	var e struct{ Error string }
	json.Unmarshal(body, &e)
	cfg := lab.DefaultConfig()
	if want := lab.Set(&cfg, "up.loss", "250%").Error(); code != 400 || e.Error != want {
		t.Fatalf("PUT a bad value: %d %s; want %q", code, body, want)
	}
	// A timeline puts the loss back, 100ms from now.
	if code, body := call("POST", "/timeline", "[[timeline]]\nat = \"100ms\"\nup.loss = \"0%\"\n"); code != 200 {
		t.Fatalf("POST /timeline: %d %s", code, body)
	}
	deadline := time.Now().Add(10 * time.Second)
	for testtool.Echoes(plain, 1, 200*time.Millisecond) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the scheduled change never applied")
		}
	}
	// The client with its own settings goes back to the defaults.
	if code, body := call("DELETE", "/params?flow="+ownAddr, ""); code != 200 {
		t.Fatalf("DELETE: %d %s", code, body)
	}
	if got := testtool.Echoes(mine, 5, 10*time.Second); got != 5 {
		t.Fatalf("client back on the defaults: %d/5 echoes", got)
	}

	var counters struct {
		Clients int
		Up      struct{ Lost, Delivered uint64 }
		Flows   []struct{ Flow string }
	}
	code, body = call("GET", "/counters", "")
	json.Unmarshal(body, &counters)
	if code != 200 || counters.Clients != 2 || len(counters.Flows) != 2 || counters.Up.Lost < 10 || counters.Up.Delivered < 11 {
		t.Fatalf("GET /counters: %d %s", code, body)
	}
	code, page := call("GET", "/metrics", "")
	if code != 200 || !bytes.Contains(page, []byte(`jitterlab_proxy_flow_received_total{flow="`+ownAddr+`",direction="up"}`)) {
		t.Fatalf("GET /metrics: %d\n%s", code, page)
	}
	check := exec.Command(testtool.Need(t, "promtool", "prometheus"), "check", "metrics")
	check.Stdin = bytes.NewReader(page)
	if out, err := check.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}

	out := p.stop(t)
	for _, want := range []string{"change 100ms after POST /timeline: up.loss=0%", "clients at the end:",
		"API PUT /params: up.loss=100%\n", "API PUT /params: up.loss=250% — refused: " + lab.Set(&cfg, "up.loss", "250%").Error(),
		"API POST /timeline: 1 change scheduled", "API DELETE /params?flow=" + ownAddr + ": back on everybody's settings", ownAddr, "audit over ", "delay added", "jitter (RFC 3550)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the end of the run lacks %q:\n%s", want, out)
		}
	}
}

// The control API listens on loopback only, and --flow names a client and
// its settings in one value.
func TestProxyControlAndFlowFlagsRefuseBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--control", "0.0.0.0:9000"}, "not a loopback address"},
		{[]string{"--control", "9000"}, "want a loopback host:port"},
		{[]string{"--flow", "127.0.0.1:5001"}, "want the client's address and its settings in one value"},
		{[]string{"--flow", "localhost:5001 up.loss=5%"}, "want the client's ip:port"},
		{[]string{"--flow", "127.0.0.1:5001 up.loss=500%"}, "up.loss"},
		{[]string{"--flow", "127.0.0.1:5001 client.fps=30"}, "not a link setting"},
	} {
		args := append([]string{"proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "100ms"}, c.args...)
		code, _, errOut := runLab(t, args...)
		if code == 0 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 && !strings.Contains(errOut, "Usage") {
			t.Errorf("%v: code %d, %q; want %q", c.args, code, errOut, c.want)
		}
	}
}
