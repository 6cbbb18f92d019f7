package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// echoServer is a UDP echo server on loopback for the test's lifetime.
var echoServer = testtool.LoopbackEcho

// proxyRow is one direction of the proxy's summary table.
type proxyRow struct{ in, delivered, lost, kernel, dup int }

func proxySummaryRows(t *testing.T, out string) map[string]proxyRow {
	t.Helper()
	rows := map[string]proxyRow{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(up|down)((?:\s+\d+){11})\s*$`).FindAllStringSubmatch(out, -1) {
		f := strings.Fields(m[2])
		n := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
		rows[m[1]] = proxyRow{in: n(0), delivered: n(1), lost: n(2), kernel: n(4), dup: n(9)}
	}
	if len(rows) != 2 {
		t.Fatalf("no summary table in:\n%s", out)
	}
	return rows
}

// proxyResult is how a 'lab proxy' process ended: its exit status and
// what it wrote.
type proxyResult struct {
	code     int
	out, err string
}

// proxyProcess starts 'lab proxy args…' in a process of its own, as it runs
// outside tests, and sends how it ended. In the test binary the relay would
// share Go's scheduler with the package's parallel tests: with the Ps busy
// simulating, its goroutine waited in the run queue and wrote copies up to
// 600 ms late (TestFitRoundTripFromTheProxy at -test.parallel 4), and a
// datagram read that late is stamped before frames its pcap has already
// written.
func proxyProcess(t *testing.T, args ...string) <-chan proxyResult {
	t.Helper()
	cmd, stdout, stderr := labProcess(t, append([]string{"proxy"}, args...)...)
	done := make(chan proxyResult, 1)
	go func() {
		out, _ := io.ReadAll(stdout)
		cmd.Wait() // the exit status is in ProcessState (-1: killed by a signal)
		done <- proxyResult{cmd.ProcessState.ExitCode(), string(out), stderr.String()}
	}()
	return done
}

// runProxyWithCaptures relays 300 datagrams from a client to an echo
// server through links that lose and duplicate, writing --pcap and
// --record, and returns the proxy's output and the two files.
func runProxyWithCaptures(t *testing.T) (out, pcapPath, recPath string, listenPort int) {
	t.Helper()
	dir := t.TempDir()
	pcapPath, recPath = filepath.Join(dir, "relay.pcapng"), filepath.Join(dir, "relay.jlrec")
	listenPort = freePort(t)
	listen, server := loopback(listenPort), echoServer(t)
	done := proxyProcess(t, "--listen", listen, "--to", server, "--duration", "1500ms", "--seed", "3",
		"--set", "link.latency=5ms", "--set", "link.loss=10%", "--set", "link.duplicate=10%", "--pcap", pcapPath, "--record", recPath)
	client, err := net.Dial("udp", listen)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	for i := range 300 { // the proxy may not be listening yet: some are lost
		client.Write([]byte("datagram " + strconv.Itoa(i)))
		time.Sleep(2 * time.Millisecond)
	}
	res := <-done
	if res.code != 0 {
		t.Fatal(res.err)
	}
	return res.out, pcapPath, recPath, listenPort
}

// lab proxy --pcap and --record: every datagram the relay read is in the
// capture on the side it came from, every copy it wrote on the side it
// went to, with its real bytes and its fate; the recording holds one
// packet per copy with its times; both agree with the proxy's summary.
func TestProxyCapturesAgreeWithTheSummary(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	begin := time.Now()
	out, pcapPath, recPath, listenPort := runProxyWithCaptures(t)
	finish := time.Now()
	sum := proxySummaryRows(t, out)
	if sum["up"].in == 0 || sum["up"].lost == 0 || sum["up"].dup == 0 {
		t.Fatalf("the run should relay, lose and duplicate: %+v", sum)
	}

	// The capture.
	r := openPcapNg(t, pcapPath)
	type count struct{ read, written, lost int }
	got := map[string]*count{"up": {}, "down": {}}
	for {
		data, ci, opts, err := r.ReadPacketDataWithOptions()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ci.Timestamp.Before(begin) || ci.Timestamp.After(finish) {
			t.Fatalf("packet at %v: not wall time during the run (%v to %v)", ci.Timestamp, begin, finish)
		}
		note := opts.Comments[0]
		dir, _, _ := strings.Cut(note, " ")
		c := got[dir]
		if c == nil || !strings.Contains(string(data[28:]), "datagram ") {
			t.Fatalf("packet %q: %q", note, data)
		}
		if read := (dir == "up") == (ci.InterfaceIndex == 0); read {
			c.read++
			c.lost += strings.Count(note, "lost")
		} else {
			c.written++
		}
	}
	for _, d := range []string{"up", "down"} {
		s := sum[d]
		if got[d].read != s.in-s.kernel || got[d].written != s.delivered || got[d].lost != s.lost {
			t.Errorf("%s: the capture has %+v; the summary %+v", d, *got[d], s)
		}
	}
	total := got["up"].read + got["up"].written + got["down"].read + got["down"].written

	// Wireshark's reader sees the same: every packet UDP, with its comment,
	// from the client to the listen port on the client's side.
	tshark := testtool.Need(t, "tshark", "tshark")
	for _, c := range []struct {
		filter string
		want   int
	}{
		{"udp && frame.comment", total},
		{fmt.Sprintf(`frame.interface_name == "client" && udp.dstport == %d`, listenPort), got["up"].read},
		{fmt.Sprintf(`frame.interface_name == "client" && udp.srcport == %d`, listenPort), got["down"].written},
	} {
		out, err := exec.Command(tshark, "-r", pcapPath, "-Y", c.filter).Output()
		if err != nil {
			t.Fatalf("tshark -Y %q: %v", c.filter, err)
		}
		if n := strings.Count(string(out), "\n"); n != c.want {
			t.Errorf("tshark -Y %q: %d packets, want %d", c.filter, n, c.want)
		}
	}

	// The recording.
	rec, rf, err := recordings.OpenFile(recPath)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	fates := map[string]map[recordings.PacketFate]int{"up": {}, "down": {}}
	var last sim.Time
	err = rec.ScanPackets(0, sim.Time(time.Hour), func(p *recordings.Packet) error {
		if p.At < last || p.In > p.At || p.Fate.Out() && (p.Out < p.In || p.Out-p.In < sim.Time(p.Scheduled)) {
			t.Fatalf("packet %+v after one at %v", *p, last)
		}
		last = p.At
		fates[[]string{"up", "down"}[p.Dir]][p.Fate]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"up", "down"} {
		if fates[d][recordings.PacketDelivered] != sum[d].delivered || fates[d][recordings.PacketLost] != sum[d].lost {
			t.Errorf("%s: the recording has %v; the summary %+v", d, fates[d], sum[d])
		}
	}
	if rec.Header.Kind != recordings.KindProxy || rec.Header.Seed != 3 {
		t.Errorf("header %+v", rec.Header)
	}
	if end, err := rec.End(); err != nil || end == nil || end.Packets == 0 {
		t.Errorf("end %+v, %v", end, err)
	}
}
