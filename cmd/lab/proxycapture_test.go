package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"

	"jitterlab/capture"
	"jitterlab/internal/testtool"
	"jitterlab/lab"
	"jitterlab/proxy"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// echoServer answers every datagram on a loopback port until the test
// ends.
func echoServer(t *testing.T) string {
	t.Helper()
	bound, stop := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	t.Cleanup(stop)
	return bound.String()
}

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

// runProxyWithCaptures relays 300 datagrams from a client to an echo
// server through links that lose and duplicate, writing --pcap and
// --record, and returns the proxy's output and the two files.
func runProxyWithCaptures(t *testing.T) (out, pcapPath, recPath string, listenPort int) {
	t.Helper()
	dir := t.TempDir()
	pcapPath, recPath = filepath.Join(dir, "relay.pcapng"), filepath.Join(dir, "relay.jlrec")
	listenPort = freePort(t)
	listen, server := loopback(listenPort), echoServer(t)
	type result struct {
		code     int
		out, err string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errOut := runLab(t, "proxy", "--listen", listen, "--to", server, "--duration", "1500ms", "--seed", "3",
			"--set", "link.latency=5ms", "--set", "link.loss=10%", "--set", "link.duplicate=10%", "--pcap", pcapPath, "--record", recPath)
		done <- result{code, out, errOut}
	}()
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

// When the capture writer falls behind, the relay does not wait: events
// are dropped, counted per side in the capture's interface statistics and
// in the recording's end, and replay says the recording is incomplete.
func TestProxyCaptureDropsAreCounted(t *testing.T) {
	dir := t.TempDir()
	var pcapBuf bytes.Buffer
	pw, _ := capture.NewWriter(&pcapBuf, capture.Options{})
	recPath := filepath.Join(dir, "r.jlrec")
	f, _ := os.Create(recPath)
	defer f.Close()
	rw, _ := recordings.NewWriter(f, recordings.Header{Kind: recordings.KindProxy})
	// No writer goroutine yet and no room in the queue: every event drops.
	c := &proxyCapture{pcap: pw, rec: rw, events: make(chan proxyEvent), done: make(chan struct{}), maxBytes: proxyQueueBytes}
	for range 3 {
		c.OnPacket(&proxy.PacketEvent{Dir: proxy.Up, Read: true, Size: 1, Payload: []byte("x")})
	}
	c.OnPacket(&proxy.PacketEvent{Dir: proxy.Up, Fate: proxy.FateDelivered, Size: 1, Payload: []byte("x")})
	go c.run()
	if err := c.Close(time.Second, proxy.Stats{}); err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewNgReader(&pcapBuf, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, _, err := r.ReadPacketData(); err != nil {
			break // the statistics come after the packets
		}
	}
	for side, want := range []uint64{3, 1} {
		if intf, _ := r.Interface(side); intf.Statistics.PacketsDropped != want {
			t.Errorf("side %d: %d dropped in the file, want %d", side, intf.Statistics.PacketsDropped, want)
		}
	}
	code, out, errOut := runLab(t, "replay", recPath)
	if code != 0 || !strings.Contains(out, "incomplete 4 packet events were dropped") {
		t.Fatalf("replay: %d %q\n%s", code, errOut, out)
	}
}

// The queue holds at most proxyQueueBytes of payload (and one datagram):
// past it events are dropped, whatever room the queue has.
func TestProxyCaptureQueueIsBoundedInBytes(t *testing.T) {
	pw, _ := capture.NewWriter(io.Discard, capture.Options{})
	c := &proxyCapture{pcap: pw, events: make(chan proxyEvent, 100), done: make(chan struct{}), maxBytes: 3000}
	big := make([]byte, 1000)
	for range 10 {
		c.OnPacket(&proxy.PacketEvent{Dir: proxy.Down, Read: true, Size: len(big), Payload: big})
	}
	if len(c.events) != 3 || c.dropped.Load() != 7 || c.droppedSide[capture.ServerSide].Load() != 7 || c.queuedBytes.Load() != 3000 {
		t.Fatalf("%d queued (%d bytes), %d dropped", len(c.events), c.queuedBytes.Load(), c.dropped.Load())
	}
	go c.run()
	if err := c.Close(time.Second, proxy.Stats{}); err != nil || c.queuedBytes.Load() != 0 {
		t.Fatalf("%v, %d bytes left", err, c.queuedBytes.Load())
	}
}

// Captures start and stop while the relay sends events (as R would on a
// proxy screen), one at a time: each holds every event from its first to
// its last or counts it as dropped, and stopping never races a send (the
// race detector and a send on a closed queue would say so).
func TestCaptureSwitchStartsAndStopsWhileRelaying(t *testing.T) {
	var sw captureSwitch
	sw.started(time.Unix(1000, 0))
	stopRelay := make(chan struct{})
	relayed := make(chan int)
	var sent atomic.Int64 // events the relay has handed over so far
	go func() {           // the relay: events as fast as it can, in time order
		n := 0
		defer func() { relayed <- n }()
		for ; ; n++ {
			sent.Store(int64(n))
			select {
			case <-stopRelay:
				return
			default:
			}
			sw.OnPacket(&proxy.PacketEvent{Dir: proxy.Up, In: time.Unix(1000, int64(n)), Size: 1, Payload: []byte("x"), Fate: proxy.FateLost})
		}
	}()
	for round := range 3 {
		dir := t.TempDir()
		pcap, rec := filepath.Join(dir, "p.pcapng"), filepath.Join(dir, "r.jlrec")
		c, err := openProxyCaptures(pcap, rec, io.Discard, nil, "127.0.0.1:9", lab.DefaultConfig(), "switch")
		if err != nil {
			t.Fatal(err)
		}
		if err := sw.start(c); err != nil {
			t.Fatal(err)
		}
		if err := sw.start(c); err == nil {
			t.Fatal("a second capture started while one runs")
		}
		// Let the relay hand this capture some events: wait for them, not
		// for a time, so a loaded machine cannot make the round empty.
		for from := sent.Load(); sent.Load() < from+100; {
			runtime.Gosched()
		}
		if _, err := sw.stop(time.Hour, proxy.Stats{}); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		r, f, err := recordings.OpenFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		var first, last sim.Time = -1, -1
		var n uint64
		err = r.ScanPackets(0, sim.Time(time.Hour), func(p *recordings.Packet) error {
			if first < 0 {
				first = p.At
			}
			last, n = p.At, n+1
			return nil
		})
		f.Close()
		// The relay's events are numbered by At: every one from the first
		// recorded to the last is in the recording or counted as dropped
		// (drops after the last one recorded count too).
		if span := uint64(last - first + 1); err != nil || n == 0 || n > span || n+c.dropped.Load() < span {
			t.Fatalf("round %d: %d packets from %d to %d, %d dropped: %v", round, n, first, last, c.dropped.Load(), err)
		}
	}
	close(stopRelay)
	if n := <-relayed; n == 0 {
		t.Fatal("the relay sent nothing")
	}
}
