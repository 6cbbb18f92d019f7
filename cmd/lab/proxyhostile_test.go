package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
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
	"github.com/gopacket/gopacket/pcapgo"

	"jitterlab/capture"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
	"jitterlab/recordings"
	"jitterlab/sim"
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
	p.must(t, "GET", "/counters", "")
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

// A 0-byte datagram relayed is captured as 0 bytes (issue 27.15): the
// capture's copy of an empty payload is empty, not "none" (which the
// pcapng writer fills with a simulated packet's 5 bytes).
func TestProxyCapturesAnEmptyDatagramAsEmpty(t *testing.T) {
	var file bytes.Buffer
	pw, err := capture.NewWriter(&file, capture.Options{})
	if err != nil {
		t.Fatal(err)
	}
	client, listen := netip.MustParseAddrPort("127.0.0.1:5000"), &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7777}
	c := newProxyCapture(pw, nil, listen, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7778})
	now := time.Unix(1, 0)
	c.OnPacket(&proxy.PacketEvent{Dir: proxy.Up, Read: true, Flow: 1, Addr: client, In: now, Payload: []byte{}, Send: proxy.Outcome{Copies: 1, Copy: [2]proxy.Fate{proxy.FateLost}}})
	if err := c.Close(time.Second, proxy.Stats{}); err != nil {
		t.Fatal(err)
	}
	r, err := pcapgo.NewNgReader(&file, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	data, ci, err := r.ReadPacketData()
	if err != nil {
		t.Fatal(err)
	}
	if ci.Length != 28 || len(data) != 28 {
		t.Fatalf("a 0-byte datagram captured as %d bytes of a %d-byte packet; want 28 (IPv4 and UDP headers only)", len(data), ci.Length)
	}
}

// One capture's failure never silences the other (issue 27.9): a --pcap
// whose disk fills keeps the recording going, every packet in it, and
// the end says what the pcap lost; a recording that fails leaves the
// pcap whole.
func TestOneCaptureFailingKeepsTheOther(t *testing.T) {
	const n = 400
	run := func(pcapOut, recOut io.Writer) (*proxyCapture, error) {
		pw, err := capture.NewWriter(pcapOut, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rw, err := recordings.NewWriter(recOut, recordings.Header{Kind: recordings.KindProxy})
		if err != nil {
			t.Fatal(err)
		}
		listen := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7777}
		c := newProxyCapture(pw, rw, listen, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7778})
		c.pcapName, c.recName = "--pcap p.pcapng", "--record r.jlrec"
		client := netip.MustParseAddrPort("127.0.0.1:5000")
		start := time.Unix(0, 0)
		for i := range n {
			at := start.Add(time.Duration(i) * 100 * time.Millisecond) // 40 s: the recording writes a frame each 10 s
			payload := make([]byte, 200)
			c.OnPacket(&proxy.PacketEvent{Dir: proxy.Up, Read: true, Flow: 1, Addr: client, In: at, Size: len(payload), Payload: payload,
				Send: proxy.Outcome{Copies: 1, Copy: [2]proxy.Fate{proxy.FateScheduled}}})
			c.OnPacket(&proxy.PacketEvent{Dir: proxy.Up, Flow: 1, Addr: client, In: at, Out: at, Due: at, Fate: proxy.FateDelivered, Size: len(payload), Payload: payload})
			for len(c.events) > 0 { // the writer keeps up: nothing is dropped for want of room
				time.Sleep(time.Microsecond)
			}
		}
		return c, c.Close(time.Second, proxy.Stats{})
	}

	var rec bytes.Buffer
	c, err := run(&failAfter{n: 8 << 10}, &rec)
	if err == nil || !strings.Contains(err.Error(), "--pcap p.pcapng") || strings.Contains(err.Error(), "--record") {
		t.Errorf("Close: %v; want the pcap's error alone", err)
	}
	r, err := recordings.Open(bytes.NewReader(rec.Bytes()), int64(rec.Len()))
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	if err := r.ScanPackets(0, sim.Time(time.Hour), func(*recordings.Packet) error { got++; return nil }); err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Errorf("the recording holds %d of %d packets after the pcap's disk filled", got, n)
	}
	if note := c.note(); !strings.Contains(note, "--pcap p.pcapng") || !strings.Contains(note, "not written") {
		t.Errorf("note %q; want what the pcap lost", note)
	}

	var header bytes.Buffer // the disk takes the header and a little more
	recordings.NewWriter(&header, recordings.Header{Kind: recordings.KindProxy})
	var pcapFile bytes.Buffer
	if _, err := run(&pcapFile, &failAfter{n: header.Len() + 16}); err == nil || !strings.Contains(err.Error(), "--record r.jlrec") {
		t.Errorf("Close: %v; want the recording's error", err)
	}
	pr, err := pcapgo.NewNgReader(&pcapFile, pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	frames := 0
	for {
		if _, _, err := pr.ReadPacketData(); err != nil {
			break
		}
		frames++
	}
	if frames != 2*n {
		t.Errorf("the pcap holds %d of %d frames after the recording's disk filled", frames, 2*n)
	}
}
