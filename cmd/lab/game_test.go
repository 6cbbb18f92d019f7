package main

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
)

// waitBound waits until a process has bound the UDP port, or ends. It
// reads the kernel's table where it can: binding the port to see whether
// it is taken could take it from the process just as it binds.
func waitBound(t *testing.T, port int, done <-chan labResult) {
	t.Helper()
	for {
		if bound, known := testtool.UDPBound(port); bound {
			return
		} else if !known {
			c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
			if err != nil {
				return
			}
			c.Close()
		}
		select {
		case res := <-done:
			t.Fatalf("ended before listening on %d: exit %d\n%s\n%s", port, res.code, res.out, res.err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

type labResult struct {
	code     int
	out, err string
}

func goLab(t *testing.T, args ...string) <-chan labResult {
	done := make(chan labResult, 1)
	go func() {
		code, out, errOut := runLab(t, args...)
		done <- labResult{code, out, errOut}
	}()
	return done
}

// The whole path with no engine (issue 25.4): lab game server, lab proxy
// --telemetry on a perfect link, lab game client. The client logs in
// through the proxy, and the proxy decodes every telemetry frame the
// client sent (every field present: none refused) and the server's ticks.
// Nothing here asserts how long anything took: the proxy and the server
// outlast the client by seconds.
func TestGameThroughTheProxyWithTelemetry(t *testing.T) {
	t.Parallel() // five seconds of wall time, independent of the others
	serverPort, proxyPort, telPort := freePort(t), freePort(t), freePort(t)
	tel := loopback(telPort)
	rec := filepath.Join(t.TempDir(), "relay.jlrec")
	proxy := goLab(t, "proxy", "--listen", loopback(proxyPort), "--to", loopback(serverPort), "--telemetry", tel, "--duration", "6s", "--every", "6s", "--record", rec)
	server := goLab(t, "game", "server", "--listen", loopback(serverPort), "--telemetry", tel, "--duration", "6s")
	waitBound(t, telPort, proxy)
	waitBound(t, proxyPort, proxy)
	waitBound(t, serverPort, server)
	code, out, errOut := runLab(t, "game", "client", "--to", loopback(proxyPort), "--telemetry", tel, "--duration", "2500ms")
	if code != 0 {
		t.Fatalf("client: exit %d\n%s\n%s", code, out, errOut)
	}
	m := regexp.MustCompile(`\n(\d+) frames in [0-9.]+s, logged in true, (\d+) inputs sent`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("client did not log in:\n%s\n%s", out, errOut)
	}
	frames, _ := strconv.Atoi(m[1])
	if !strings.Contains(out, "0 malformed, 0 foreign") {
		t.Errorf("client:\n%s", out)
	}
	p, s := <-proxy, <-server
	if p.code != 0 || s.code != 0 {
		t.Fatalf("proxy exit %d, server exit %d\n%s\n%s\n%s\n%s", p.code, s.code, p.out, p.err, s.out, s.err)
	}
	pm := regexp.MustCompile(`\ntelemetry on ` + regexp.QuoteMeta(tel) + `: (\d+) frames and (\d+) server ticks decoded; none refused\n`).FindStringSubmatch(p.out)
	if pm == nil {
		t.Fatalf("no telemetry summary, or datagrams refused:\n%s\n%s", p.out, p.err)
	}
	decoded, _ := strconv.Atoi(pm[1])
	ticks, _ := strconv.Atoi(pm[2])
	if frames == 0 || decoded != frames || ticks == 0 {
		t.Errorf("the client rendered %d frames, the proxy decoded %d frames and %d ticks", frames, decoded, ticks)
	}
	if !regexp.MustCompile(`\d+ steps in [0-9.]+s, 1 logins; inputs arrived [1-9]\d*, applied [1-9]`).MatchString(s.out) {
		t.Errorf("the server applied no input:\n%s", s.out)
	}
	// The recording carries the telemetry: replay counts it and prints the
	// game's report card, export writes a row per datagram.
	code, out, errOut = runLab(t, "replay", rec)
	if want := fmt.Sprintf("\ntelemetry  %d frames and %d server ticks (lab proxy --telemetry)\n", decoded, ticks); code != 0 || !strings.Contains(out, want) ||
		!regexp.MustCompile(`progress deficit \(commanded − forward progress\)\s+-?\d`).MatchString(out) {
		t.Errorf("replay: exit %d, want %q and a progress deficit in:\n%s\n%s", code, want, out, errOut)
	}
	// lab compare sets it beside the model on the same link. Whether each
	// figure falls inside depends on how late this busy machine woke the
	// game; the fake-clock test in package game checks that.
	code, out, errOut = runLab(t, "compare", rec, "--seeds", "5")
	if code != 0 || !regexp.MustCompile(`\n\d+ of \d+ figures inside the model's interval for one run: the game falls (inside|outside) the model\n\(each interval at [\d.]+ %, so that all \d+ hold at once at 95 %: Bonferroni\)\n`).MatchString(out) ||
		!strings.Contains(out, "judder (m/s)") {
		t.Errorf("compare: exit %d:\n%s\n%s", code, out, errOut)
	}
	t.Logf("lab compare:\n%s", out)
	code, out, errOut = runLab(t, "export", rec, "--telemetry", "-")
	if rows := strings.Count(out, "\n"); code != 0 || rows != 1+decoded+ticks || !strings.HasPrefix(out, "at_s,kind,t_s,frame,") {
		t.Errorf("export --telemetry: exit %d, %d rows, want %d:\n%.300s\n%s", code, rows, 1+decoded+ticks, out, errOut)
	}
	// lab plot draws the game's tick offset, send interval and visible
	// error below the delays, from every frame recorded.
	png := filepath.Join(t.TempDir(), "relay.png")
	code, out, errOut = runLab(t, "plot", rec, "--out", png)
	if want := fmt.Sprintf("; the game's tick offset, send interval and visible error from %d telemetry frames\n", decoded); code != 0 || !strings.Contains(out+errOut, want) {
		t.Errorf("plot: exit %d, want %q in:\n%s\n%s", code, want, out, errOut)
	}
}

// lab game's command line: a subcommand, the game's keys only, and
// addresses it can use; each refusal one line, exit 2.
func TestGameCommandLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"game"}, "lab game: want server or client"},
		{[]string{"game", "player"}, `lab game: unknown subcommand "player": want server or client`},
		{[]string{"game", "client", "--set", "link.latency=50ms", "--duration", "1s"}, "link.latency is not a setting of the game"},
		{[]string{"game", "client", "--to", "7777", "--duration", "1s"}, `--to "7777": want host:port`},
		{[]string{"game", "client", "--to", "127.0.0.1:0", "--duration", "1s"}, `--to "127.0.0.1:0": want a host and a port other than 0`},
		{[]string{"game", "server", "--telemetry", "x", "--duration", "1s"}, `--telemetry "x": want host:port`},
		{[]string{"game", "server", "--listen", "nohost", "--duration", "1s"}, `--listen "nohost": want host:port`},
		{[]string{"game", "server", "--set", "server.tick=0", "--duration", "1s"}, "--set server.tick=0: server.tick"},
	} {
		code, _, errOut := runLab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// The reference game through the proxy's screen on two links, a perfect
// one and jitter-fix's (issue 25): the screen charts the game's tick
// offset and visible error from its telemetry and shows its report card,
// counted from the frames it decoded. Nothing is asserted about timing:
// the proxy and the server outlast the client by seconds.
func TestGameOnTheProxyScreen(t *testing.T) {
	t.Parallel() // seconds of wall time per link, independent of the others
	for _, link := range []struct{ name, scenario string }{{"perfect", ""}, {"jitterfix", "jitter-fix"}} {
		t.Run(link.name, func(t *testing.T) {
			t.Parallel() // the links wait on the wall clock, not the CPU
			gameOnTheProxyScreen(t, link.name, link.scenario)
		})
	}
}

// gameOnTheProxyScreen runs the reference game through lab proxy's screen
// in tmux on a link (scenario "" for a perfect one) and reads the game's
// charts and card off the screen.
func gameOnTheProxyScreen(t *testing.T, name, scenario string) {
	serverPort, proxyPort, telPort := freePort(t), freePort(t), freePort(t)
	tel := loopback(telPort)
	server := goLab(t, "game", "server", "--listen", loopback(serverPort), "--telemetry", tel, "--duration", "8s")
	args := []string{"--listen", loopback(proxyPort), "--to", loopback(serverPort), "--telemetry", tel, "--duration", "8s"}
	if scenario != "" {
		args = append(args, "--scenario", scenario)
	}
	run, exited := tmuxProxy(t, "game"+name, args...)
	waitBound(t, serverPort, server)
	code, out, errOut := runLab(t, "game", "client", "--to", loopback(proxyPort), "--telemetry", tel, "--duration", "3s")
	if code != 0 || !strings.Contains(out, "logged in true") {
		t.Fatalf("%s: client exit %d:\n%s\n%s", name, code, out, errOut)
	}
	screen := run("capture-pane", "-p", "-t", "p")
	m := regexp.MustCompile(`game's report card, (\d+) frames`).FindStringSubmatch(screen)
	if m == nil || m[1] == "0" {
		t.Errorf("%s: no report card counted from the game's frames:\n%s", name, screen)
	}
	for _, want := range []string{"┌ tick offset ─ ", "┌ visible error (m) ─ ", "│ judder "} {
		if !strings.Contains(screen, want) {
			t.Errorf("%s: the screen lacks %q:\n%s", name, want, screen)
		}
	}
	if !regexp.MustCompile(`┌ tick offset ─ [+-]?\d`).MatchString(screen) {
		t.Errorf("%s: the tick offset chart has no value from the game:\n%s", name, screen)
	}
	if code, stderr := exited(); code != "0" {
		t.Errorf("%s: the proxy exited %s: %s", name, code, stderr)
	}
	if s := <-server; s.code != 0 {
		t.Errorf("%s: the server exited %d: %s", name, s.code, s.err)
	}
}
