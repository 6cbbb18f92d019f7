package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/lab"
	"jitterlab/netem"
	"jitterlab/recordings"
	"jitterlab/scenarios"
	"jitterlab/trace"
)

// The link every round-trip test configures on lab proxy: up 50 ms ± 20 ms
// uniform with 5 % loss, down 50 ms ± 20 ms uniform without loss. The
// jitter is wide so that what a busy host adds to the relay's timers (a
// few ms, now and then tens) does not change the distribution's shape.
const (
	rtLatency = 50.0 // ms
	rtJitter  = 20.0 // ms, the uniform half-width
	rtLoss    = 0.05 // up
)

// relayRun is a game's traffic through lab proxy: seq-numbered datagrams
// (4 bytes, big-endian, at offset 0) echoed by a server, with the proxy's
// --record and --pcap, and, when dumpcap can capture on loopback, a
// capture of both legs taken beside it.
type relayRun struct {
	rec, pcap          string
	lo                 string // both legs on loopback; "" when dumpcap could not run
	loClient, loServer string // each leg alone
	loErr              string // why not
	client, server     string // the game's ends
	listen             string
	sent               int
	proxyOut, proxyErr string
}

// runGameThroughProxy sends 200 datagrams a second for 6 s through a
// proxy with the round-trip link.
func runGameThroughProxy(t *testing.T) relayRun {
	t.Helper()
	dir := t.TempDir()
	r := relayRun{rec: filepath.Join(dir, "relay.jlrec"), pcap: filepath.Join(dir, "relay.pcapng")}
	r.listen, r.server = loopback(freePort(t)), echoServer(t)
	// In the test binary, beside the package's parallel tests, the relay
	// wrote copies hundreds of ms late: no jitter law fitted the delays, and
	// the fits of the recording and of the capture (the same delays within
	// 0.13 ms) chose different laws on a near-tie of their KS distances.
	done := proxyProcess(t, "--listen", r.listen, "--to", r.server, "--duration", "10s", "--seed", "7",
		"--set", "link.latency=50ms", "--set", "link.jitter=20ms", "--set", "link.jitter_dist=uniform", "--set", "up.loss=5%",
		"--record", r.rec, "--pcap", r.pcap)
	conn, err := net.Dial("udp", r.listen)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r.client = conn.LocalAddr().String()
	payload := func(seq uint32) []byte {
		b := binary.BigEndian.AppendUint32(nil, seq)
		return append(b, []byte("game state, 28 bytes of it..")...)
	}
	// Wait for the proxy: probe until an echo comes back (a write before
	// it listens makes the next read fail at once: port unreachable).
	seq := uint32(0)
	buf := make([]byte, 256)
	for begin := time.Now(); ; {
		conn.Write(payload(seq))
		seq++
		conn.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		if _, err := conn.Read(buf); err == nil {
			break
		} else if !errors.Is(err, os.ErrDeadlineExceeded) {
			time.Sleep(100 * time.Millisecond)
		}
		select {
		case res := <-done:
			t.Fatalf("lab proxy ended before relaying: exit %d: %s", res.code, res.err)
		default:
		}
		if time.Since(begin) > 10*time.Second {
			t.Fatal("the proxy does not answer in 10 s")
		}
	}
	go func() { // drain the echoes
		for {
			conn.SetReadDeadline(time.Now().Add(20 * time.Second))
			if _, err := conn.Read(buf); err != nil {
				return
			}
		}
	}()
	_, sport, _ := net.SplitHostPort(r.server)
	_, lport, _ := net.SplitHostPort(r.listen)
	// Both legs in one capture, and each leg alone: the client's machine
	// sees the client's leg, the server's the server's.
	r.lo, r.loClient, r.loServer = filepath.Join(dir, "lo.pcapng"), filepath.Join(dir, "client.pcapng"), filepath.Join(dir, "server.pcapng")
	stop, why := startDumpcap(t, map[string]string{r.lo: "udp port " + sport + " or udp port " + lport,
		r.loClient: "udp port " + lport, r.loServer: "udp port " + sport})
	if stop == nil {
		r.lo, r.loErr = "", why
	}
	start := time.Now()
	for time.Since(start) < 6*time.Second {
		conn.Write(payload(seq))
		seq++
		time.Sleep(5 * time.Millisecond)
	}
	r.sent = int(seq)
	res := <-done
	if stop != nil {
		if err := stop(); err != nil {
			r.lo, r.loErr = "", "dumpcap: "+err.Error()
		}
	}
	if res.code != 0 {
		t.Fatalf("lab proxy: %s", res.err)
	}
	r.proxyOut, r.proxyErr = res.out, res.err
	return r
}

// startDumpcap starts one dumpcap on loopback per file, with its capture
// filter, and waits until each captures; stop interrupts them and waits
// for their files. With stop nil, why says what failed.
func startDumpcap(t *testing.T, filters map[string]string) (stop func() error, why string) {
	t.Helper()
	path, err := exec.LookPath("dumpcap")
	if err != nil {
		return nil, "dumpcap is not installed"
	}
	var cmds []*exec.Cmd
	stop = func() error {
		var first error
		for _, c := range cmds {
			c.Process.Signal(os.Interrupt)
			if err := c.Wait(); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	for file, filter := range filters {
		c := exec.Command(path, "-q", "-i", "lo", "-f", filter, "-w", file)
		stderr, err := c.StderrPipe()
		if err == nil {
			err = c.Start()
		}
		if err != nil {
			stop()
			return nil, err.Error()
		}
		cmds = append(cmds, c)
		// dumpcap says "Capturing on" once it captures.
		sc := bufio.NewScanner(stderr)
		var said []string
		for sc.Scan() {
			said = append(said, sc.Text())
			if strings.Contains(sc.Text(), "Capturing on") {
				break
			}
		}
		if len(said) == 0 || !strings.Contains(said[len(said)-1], "Capturing on") {
			stop()
			return nil, strings.Join(said, "; ")
		}
		go func() { // drain what it says until it ends
			for sc.Scan() {
			}
		}()
	}
	return stop, ""
}

// loadFitted loads a fitted scenario as 'lab run --scenario' does.
func loadFitted(t *testing.T, path string) lab.Config {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse(path, text, lab.CheckAssignment)
	if err != nil {
		t.Fatal(err)
	}
	cfg := lab.DefaultConfig()
	if err := lab.ApplyScenario(&cfg, sc); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("FITDEBUG") != "" {
		t.Logf("%s:\n%s", path, text)
	}
	return cfg
}

// checkConfigured checks a fitted scenario against the round-trip link,
// for n packets a direction: latency within 5σ/√n, the uniform
// half-width within 5/√n relative, uniform chosen, up loss within
// 4·√(p(1−p)/n) and none down.
func checkConfigured(t *testing.T, path string, n int) {
	t.Helper()
	cfg := loadFitted(t, path)
	sigma := rtJitter / math.Sqrt(3)
	for _, d := range []struct {
		name string
		p    netem.Params
		loss float64
	}{{"up", cfg.Up, rtLoss}, {"down", cfg.Down, 0}} {
		lat, jit := float64(d.p.Latency)/1e6, float64(d.p.Jitter)/1e6
		if tol := 5 * sigma / math.Sqrt(float64(n)); math.Abs(lat-rtLatency) > tol {
			t.Errorf("%s: %s.latency %.3f ms, want %.1f ± %.3f", path, d.name, lat, rtLatency, tol)
		}
		if tol := rtJitter * 5 / math.Sqrt(float64(n)); math.Abs(jit-rtJitter) > tol {
			t.Errorf("%s: %s.jitter %.3f ms, want %.1f ± %.3f", path, d.name, jit, rtJitter, tol)
		}
		if d.p.JitterDist != netem.Uniform {
			t.Errorf("%s: %s.jitter_dist %s, want uniform", path, d.name, d.p.JitterDist)
		}
		if tol := 4 * math.Sqrt(rtLoss*(1-rtLoss)/float64(n)); math.Abs(d.p.Loss-d.loss) > tol {
			t.Errorf("%s: %s.loss %.4f, want %.2f ± %.4f", path, d.name, d.p.Loss, d.loss, tol)
		}
	}
}

// addedErrors is the count of packets whose sampling error (∝ 1/√count)
// is the sum of the errors of estimates from a and b packets.
func addedErrors(a, b int) int {
	e := 1/math.Sqrt(float64(a)) + 1/math.Sqrt(float64(b))
	return int(1 / (e * e))
}

// hostLateness is, per direction, the least and the most (ms) by which a
// packet of the recording was held longer than its link scheduled: what a
// busy host added to the relay's timers.
func hostLateness(t *testing.T, rec string) map[string][2]float64 {
	t.Helper()
	read := func(scheduled bool) *trace.Trace {
		r, f, err := recordings.OpenFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		tr, _, err := trace.ReadRecording(rec, r, trace.AnyFlow, scheduled)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	took, sched := read(false), read(true)
	out := map[string][2]float64{}
	for _, d := range [][2]trace.Direction{{took.Up, sched.Up}, {took.Down, sched.Down}} {
		if len(d[0].Packets) != len(d[1].Packets) {
			t.Fatalf("%s: %d packets taken, %d scheduled", d[0].Name, len(d[0].Packets), len(d[1].Packets))
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for i, p := range d[0].Packets {
			q := d[1].Packets[i]
			if p.Seq != q.Seq || p.Status != q.Status {
				t.Fatalf("%s: packet %d is seq %d %v taken, seq %d %v scheduled", d[0].Name, i, p.Seq, p.Status, q.Seq, q.Status)
			}
			if p.Status == trace.Delivered {
				late := float64(p.Delay-q.Delay) / 1e6
				lo, hi = min(lo, late), max(hi, late)
			}
		}
		out[d[0].Name] = [2]float64{lo, hi}
	}
	return out
}

// checkSame checks that two fits of the same packets agree: the same
// jitter law (a jitter is a uniform half-width, a normal σ… by the law),
// latency and jitter within tol ms, loss within 1 point.
func checkSame(t *testing.T, path, ref string, tol float64) {
	t.Helper()
	got, want := loadFitted(t, path), loadFitted(t, ref)
	for _, d := range []struct {
		name      string
		got, want netem.Params
	}{{"up", got.Up, want.Up}, {"down", got.Down, want.Down}} {
		if d.got.JitterDist != d.want.JitterDist || math.Abs(float64(d.got.Latency-d.want.Latency))/1e6 > tol ||
			math.Abs(float64(d.got.Jitter-d.want.Jitter))/1e6 > tol || math.Abs(d.got.Loss-d.want.Loss) > 0.01 {
			t.Errorf("%s: %s latency %v jitter %v %s loss %.4f; %s has %v, %v %s, %.4f (tolerance %g ms, 1 point)", path, d.name,
				d.got.Latency, d.got.Jitter, d.got.JitterDist, d.got.Loss, ref, d.want.Latency, d.want.Jitter, d.want.JitterDist, d.want.Loss, tol)
		}
	}
}

// The round trip (issue 14.4): a game's traffic through lab proxy with a
// known link, recorded (--record), and captured by the proxy (--pcap) and
// by dumpcap on loopback beside it (both legs in one capture, and each leg
// in a capture of its own, as on two machines).
//   - 'lab fit --scheduled' of the recording gives back the configured link
//     (the delays the link drew: what a busy host adds to the relay's
//     timers is left out), and a 3-minute 'lab run' of the scenario it
//     writes fits back to the configured link;
//   - 'lab fit' of the recording (the delays the packets took) is the
//     scheduled fit plus the host's lateness: not less, at most 10 ms more;
//   - the proxy's pcap fits as the recording does (the same timestamps),
//     and dumpcap's captures within 2 ms (the kernel's timestamps, not the
//     relay's).
func TestFitRoundTripFromTheProxy(t *testing.T) {
	t.Parallel() // long and independent of the others
	r := runGameThroughProxy(t)
	dir := t.TempDir()
	fitTo := func(name string, args ...string) (string, string) {
		t.Helper()
		out := filepath.Join(dir, name+".toml")
		code, stdout, stderr := runLab(t, append([]string{"fit", "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("lab fit %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return out, stdout
	}
	n := r.sent - 10 // a few probes before the capture, a few in flight at the end
	measured, report := fitTo("rec", r.rec)
	if !strings.Contains(report, "read: "+r.rec+": flow 1 of the relay") {
		t.Errorf("the report does not say what it read:\n%s", report)
	}
	t.Run("recording", func(t *testing.T) {
		scheduled, _ := fitTo("scheduled", "--scheduled", r.rec)
		checkConfigured(t, scheduled, n)
		// The lab reproduces the link: a run of the fitted scenario fits
		// back to the configured link.
		packets := filepath.Join(dir, "again.csv")
		if code, _, stderr := runLab(t, "run", "--scenario", scheduled, "--duration", "3m", "--packets", packets); code != 0 {
			t.Fatalf("lab run --scenario %s: %s", scheduled, stderr)
		}
		again, _ := fitTo("again", packets)
		// The run reproduces the scheduled fit, itself n packets' estimate
		// of the configured link: the two sampling errors add (a tolerance
		// of 5σ/√3000 alone failed when the scheduled fit sat 1.2 ms off).
		checkConfigured(t, again, addedErrors(n, 3000)) // about 20 packets a second each way
		// What the packets took: the link's delays and the host's lateness.
		// Each packet's measured delay is its scheduled one plus what the
		// host added (the recording holds both), and the relay never writes
		// a copy before its time: no packet took less than the link drew.
		// (The fitted latency's move is the fit's own property, tested on
		// constructed delays in package fit: a bound on it here, from the
		// host's timing, failed under load.)
		added := hostLateness(t, r.rec)
		t.Logf("the host added %.3f to %.3f ms up, %.3f to %.3f ms down", added["up"][0], added["up"][1], added["down"][0], added["down"][1])
		for _, d := range []string{"up", "down"} {
			if lo := added[d][0]; lo < 0 {
				t.Errorf("%s: a packet written %.6f ms before its scheduled time", d, -lo)
			}
		}
	})
	t.Run("proxy pcap", func(t *testing.T) {
		out, report := fitTo("pcap", r.pcap)
		if !strings.Contains(report, "game client "+r.client+" ↔ "+r.listen) || !strings.Contains(report, "↔ game server "+r.server) {
			t.Errorf("the legs are not the game's ends (client %s, server %s):\n%s", r.client, r.server, report)
		}
		checkSame(t, out, measured, 0.01)
	})
	t.Run("dumpcap on loopback", func(t *testing.T) {
		testtool.Need(t, "dumpcap", "tshark")
		if r.lo == "" {
			testtool.Missing(t, "a capture on loopback by dumpcap (root or CAP_NET_RAW): "+r.loErr)
		}
		out, report := fitTo("lo", r.lo, "--client", r.client, "--server", r.server, "--seq", "0:4:be")
		if !strings.Contains(report, "up: ") {
			t.Errorf("report:\n%s", report)
		}
		checkSame(t, out, measured, 2)
		// Each leg in its own capture, as on two machines: the clocks are
		// taken as two (the same here: the drift is found not significant).
		// Through a relay the game server is not the address the client
		// talks to, so --server names it: without it the fit takes the end
		// that received the capture's first datagram, and the capture
		// starts mid-game (once under load it began with a reply, and the
		// fit swapped the server's leg round).
		out, report = fitTo("two", r.loClient, r.loServer, "--server", r.server, "--seq", "0:4")
		if !strings.Contains(report, "game client "+r.client+" ↔ "+r.listen) || !strings.Contains(report, "↔ game server "+r.server) {
			t.Errorf("the legs are not the game's ends (client %s, server %s):\n%s", r.client, r.server, report)
		}
		checkSame(t, out, measured, 2)
	})
}

// Bad uses of the capture flags are one clear error each.
func TestFitCaptureFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "game.csv")
	if err := os.WriteFile(csv, []byte("seq,send_ns,recv_ns\n1,0,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notPcap := filepath.Join(dir, "x.pcapng")
	if err := os.WriteFile(notPcap, []byte("\x0a\x0d\x0d\x0a garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--seq", "0:4", csv}, "--seq applies to pcap captures only; " + csv + " is csv"},
		{[]string{"fit", "--flow", "2", csv}, "--flow applies to jlrec captures only; " + csv + " is csv"},
		{[]string{"fit", csv, csv}, "two captures: only pcap captures come in two (the client's and the server's); " + csv + " is csv"},
		{[]string{"fit", "--seq", "0:9", notPcap}, `--seq "0:9": the width is 1 to 8 bytes`},
		{[]string{"fit", "--client", "nohost", notPcap}, `--client "nohost": want IP:PORT`},
		{[]string{"fit", notPcap}, notPcap + ": not a readable capture:"},
		{[]string{"fit", "a", "b", "c"}, "want one CAPTURE file, or two pcap captures"},
	} {
		code, _, stderr := runLab(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("lab %s: exit %d, %q; want %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	// A session recording stores samples, not packets.
	code, _, stderr := runLab(t, "fit", "../../recordings/examples/jitter-fix.jlrec")
	if want := "a session recording (lab run --record) stores samples, not packets"; code == 0 || !strings.Contains(stderr, want) {
		t.Errorf("lab fit of a session recording: exit %d, %q; want %q", code, stderr, want)
	}
}

// The lab's own capture of a simulated session (lab run --pcap: the
// client's side and the server's side as two interfaces, the sequence
// number at payload byte 1) fits as the same session's per-packet log
// does: both are the simulator's true time, to the nanosecond.
func TestFitReadsTheLabsOwnPcap(t *testing.T) {
	dir := t.TempDir()
	pcap, packets := filepath.Join(dir, "sim.pcapng"), filepath.Join(dir, "p.csv")
	if code, _, stderr := runLab(t, "run", "--duration", "2m", "--seed", "3", "--set", "link.latency=25ms", "--set", "link.jitter=5ms",
		"--set", "link.jitter_dist=normal", "--set", "up.loss=3%", "--set", "up.loss_burst=2", "--pcap", pcap, "--packets", packets); code != 0 {
		t.Fatal(stderr)
	}
	fitOf := func(args ...string) *lab.Config {
		t.Helper()
		out := filepath.Join(dir, "fitted.toml")
		code, report, stderr := runLab(t, append([]string{"fit", "--out", out}, args...)...)
		if code != 0 {
			t.Fatalf("lab fit %s: %s", strings.Join(args, " "), stderr)
		}
		if args[0] == pcap && !strings.Contains(report, "the server's leg, 192.0.2.1:40000 ↔ game server 198.51.100.1:40001") {
			t.Errorf("the legs:\n%s", report)
		}
		text, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Parse(out, text, lab.CheckAssignment)
		if err != nil {
			t.Fatal(err)
		}
		cfg := lab.DefaultConfig()
		if err := lab.ApplyScenario(&cfg, sc); err != nil {
			t.Fatal(err)
		}
		return &cfg
	}
	fromPcap, fromLog := fitOf(pcap, "--seq", "1:4"), fitOf(packets)
	for _, d := range []struct {
		name      string
		pcap, log netem.Params
	}{{"up", fromPcap.Up, fromLog.Up}, {"down", fromPcap.Down, fromLog.Down}} {
		// The capture leaves out the last packets still in flight when the
		// run ended; the log counts them: a few in thousands.
		if math.Abs(float64(d.pcap.Latency-d.log.Latency)) > 0.05e6 || math.Abs(float64(d.pcap.Jitter-d.log.Jitter)) > 0.05e6 ||
			math.Abs(d.pcap.Loss-d.log.Loss) > 0.002 || d.pcap.JitterDist != d.log.JitterDist {
			t.Errorf("%s: from the capture %+v\nfrom the log %+v", d.name, d.pcap, d.log)
		}
		if os.Getenv("FITDEBUG") != "" {
			t.Logf("%s: capture %+v\nlog %+v", d.name, d.pcap, d.log)
		}
		if math.Abs(float64(d.pcap.Latency)/1e6-25) > 0.5 {
			t.Errorf("%s: latency %v, configured 25ms", d.name, d.pcap.Latency)
		}
	}
}
