package main

import (
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/telemetry"
)

// lab proxy --telemetry (issue 25.1): the proxy says where it listens, each
// class of refusal once on standard error, and its closing summary counts
// the frames and server ticks decoded and the datagrams refused, by class.
func TestProxyTelemetryCountsFramesTicksAndRefusals(t *testing.T) {
	t.Parallel() // a second of wall time, independent of the others
	tel := loopback(freePort(t))
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--telemetry", tel, "--duration", "1s", "--every", "1s")
		done <- result{code, out, errOut}
	}()
	frame, err := telemetry.AppendFrame(nil, &telemetry.Frame{TS: 1, Frame: 2, SendIntervalS: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	tick, err := telemetry.AppendTick(nil, &telemetry.Tick{TS: 1, Tick: 2})
	if err != nil {
		t.Fatal(err)
	}
	sends := [][]byte{frame, tick, []byte("{not json"), make([]byte, telemetry.MaxSize+1)}
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	to, _ := net.ResolveUDPAddr("udp", tel)
	var res result
	for sent := false; !sent; { // every 5 ms until the proxy ends (some before it listens are lost)
		for _, b := range sends {
			conn.WriteToUDP(b, to)
		}
		select {
		case res = <-done:
			sent = true
		case <-time.After(5 * time.Millisecond):
		}
	}
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.err)
	}
	if !strings.Contains(res.out, "telemetry on "+tel+": send the game's frames there") {
		t.Errorf("no telemetry address:\n%s", res.out)
	}
	m := regexp.MustCompile(`\ntelemetry on ` + regexp.QuoteMeta(tel) + `: (\d+) frames and (\d+) server ticks decoded; (\d+) datagrams refused: (\d+) too long, (\d+) not JSON\n`).FindStringSubmatch(res.out)
	if m == nil {
		t.Fatalf("no telemetry summary:\n%s", res.out)
	}
	n := make([]int, 5)
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	frames, ticks, refused, long, notJSON := n[0], n[1], n[2], n[3], n[4]
	if frames < 10 || refused != long+notJSON {
		t.Errorf("frames %d, refused %d = %d + %d?\n%s", frames, refused, long, notJSON, res.out)
	}
	for _, k := range []int{ticks, long, notJSON} { // the four sent in turn: each count within one of the others
		if k < frames-1 || k > frames+1 {
			t.Errorf("frames %d, ticks %d, too long %d, not JSON %d: sent as many of each", frames, ticks, long, notJSON)
		}
	}
	for _, class := range []string{"(too long)", "(not JSON)"} {
		if c := strings.Count(res.err, "telemetry: a datagram refused "+class); c != 1 {
			t.Errorf("%s reported %d times:\n%s", class, c, res.err)
		}
	}
	if code, _, errOut := runLab(t, "proxy", "--to", "127.0.0.1:9", "--telemetry", "7790", "--duration", "1s"); code != 2 || !strings.Contains(errOut, `--telemetry "7790": want host:port`) {
		t.Errorf("--telemetry 7790: exit %d, %q", code, errOut)
	}
}

// The C# probe through lab proxy (issue 25.3): sdk/csharp/JitterlabProbe.cs,
// compiled with mcs and run with mono (telemetry/testdata/ProbeCheck.cs:
// 200 frames, 50 ticks, then a frame with a NaN), decoded by the proxy:
// every frame and tick counted, the NaN refused and named.
func TestProxyTelemetryFromTheCSharpProbe(t *testing.T) {
	t.Parallel() // four seconds of wall time, independent of the others
	mcs := testtool.Need(t, "mcs", "mono-mcs")
	mono := testtool.Need(t, "mono", "mono-runtime")
	exe := filepath.Join(t.TempDir(), "probecheck.exe")
	src := filepath.Join("..", "..")
	if out, err := exec.Command(mcs, "-nologo", "-out:"+exe, filepath.Join(src, "sdk", "csharp", "JitterlabProbe.cs"),
		filepath.Join(src, "telemetry", "testdata", "ProbeCheck.cs")).CombinedOutput(); err != nil {
		t.Fatalf("mcs: %v\n%s", err, out)
	}
	port := freePort(t)
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--telemetry", loopback(port), "--duration", "4s")
		done <- result{code, out, errOut}
	}()
	for { // until the proxy has the port: then nothing sent is lost
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port})
		if err != nil {
			break
		}
		c.Close()
		select {
		case res := <-done:
			t.Fatalf("the proxy ended before listening: %d\n%s\n%s", res.code, res.out, res.err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if out, err := exec.Command(mono, exe, "127.0.0.1", strconv.Itoa(port), "200").CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "sent 251 failed 0" {
		t.Fatalf("mono: %v\n%s", err, out)
	}
	res := <-done
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.err)
	}
	if want := "\ntelemetry on " + loopback(port) + ": 200 frames and 50 server ticks decoded; 1 datagram refused: 1 not finite\n"; !strings.Contains(res.out, want) {
		t.Errorf("want %q in:\n%s", want, res.out)
	}
	if !strings.Contains(res.err, `telemetry: a datagram refused (not finite), counted from now on: "visible_x_m" "NaN": not a finite number`) {
		t.Errorf("the NaN not named on standard error:\n%s", res.err)
	}
}
