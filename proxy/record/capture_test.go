package record

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"

	"jitterlab/capture"
	"jitterlab/lab"
	"jitterlab/proxy"
	"jitterlab/recordings"
	"jitterlab/sim"
)

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
	c := &Capture{pcap: pw, rec: rw, events: make(chan event), done: make(chan struct{}), maxBytes: queueBytes}
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
	rec, rf, err := recordings.OpenFile(recPath)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	var out strings.Builder
	if err := WriteReplay(&out, rec, recPath, ""); err != nil || !strings.Contains(out.String(), "incomplete 4 packet events were dropped") {
		t.Fatalf("replay: %v\n%s", err, out.String())
	}
}

// The queue holds at most queueBytes of payload (and one datagram):
// past it events are dropped, whatever room the queue has.
func TestProxyCaptureQueueIsBoundedInBytes(t *testing.T) {
	pw, _ := capture.NewWriter(io.Discard, capture.Options{})
	c := &Capture{pcap: pw, events: make(chan event, 100), done: make(chan struct{}), maxBytes: 3000}
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
	var sw Switch
	sw.Started(time.Unix(1000, 0))
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
		c := openFiles(t, pcap, rec)
		if err := sw.Start(c); err != nil {
			t.Fatal(err)
		}
		if err := sw.Start(c); err == nil {
			t.Fatal("a second capture started while one runs")
		}
		// Let the relay hand this capture some events: wait for them, not
		// for a time, so a loaded machine cannot make the round empty.
		for from := sent.Load(); sent.Load() < from+100; {
			runtime.Gosched()
		}
		if _, err := sw.Stop(time.Hour, proxy.Stats{}); err != nil {
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
	c := New(Options{Pcap: pw, Listen: listen, Target: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7778}})
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
	run := func(pcapOut, recOut io.Writer) (*Capture, error) {
		pw, err := capture.NewWriter(pcapOut, capture.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rw, err := recordings.NewWriter(recOut, recordings.Header{Kind: recordings.KindProxy})
		if err != nil {
			t.Fatal(err)
		}
		listen := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7777}
		c := New(Options{Pcap: pw, Recording: rw, Listen: listen, Target: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7778},
			PcapName: "--pcap p.pcapng", RecordingName: "--record r.jlrec"})
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
	if note := c.Note(); !strings.Contains(note, "--pcap p.pcapng") || !strings.Contains(note, "not written") {
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

// failAfter accepts n bytes, then fails every write as a full disk does.
type failAfter struct{ n int }

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, syscall.ENOSPC
	}
	f.n -= len(p)
	return len(p), nil
}

// A capture whose file fails mid-run (the disk full) says so as it
// happens, naming its flag and file, instead of only when the proxy
// stops, hours later; the relay goes on, and the run still ends with the
// error (exit 1).
func TestCaptureWriteFailureIsReportedAtOnce(t *testing.T) {
	for _, kind := range []string{"pcap", "record"} {
		t.Run(kind, func(t *testing.T) {
			open := func(w io.Writer) (pw *capture.Writer, rw *recordings.Writer, err error) {
				if kind == "pcap" {
					pw, err = capture.NewWriter(w, capture.Options{Epoch: time.Unix(0, 0), Sides: Sides})
				} else {
					rw, err = recordings.NewWriter(w, Header(lab.HeaderOf(lab.DefaultConfig(), "default", 0)))
				}
				return pw, rw, err
			}
			var header bytes.Buffer
			if _, _, err := open(&header); err != nil {
				t.Fatal(err)
			}
			fw := &failAfter{n: header.Len()} // the file's header fits, nothing more
			pw, rw, err := open(fw)
			if err != nil {
				t.Fatal(err)
			}
			c := New(Options{Pcap: pw, Recording: rw, Listen: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7777},
				Target: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7778}, PcapName: "--pcap x.out", RecordingName: "--record x.out"})
			failed := make(chan error, 1)
			sw := Switch{Failed: func(err error) { failed <- err }}
			start := time.Unix(1_700_000_000, 0)
			sw.Started(start)
			if err := sw.Start(c); err != nil {
				t.Fatal(err)
			}
			payload := make([]byte, 1400)
			addr := netip.MustParseAddrPort("127.0.0.1:5001")
			for i := range 5000 { // 25 s of datagrams, 7 MB: past any buffer, reorder window and recording frame
				in := start.Add(time.Duration(i) * 5 * time.Millisecond)
				sw.OnPacket(&proxy.PacketEvent{Read: true, In: in, Dir: proxy.Up, Flow: 1, Addr: addr, Size: len(payload), Payload: payload})
				sw.OnPacket(&proxy.PacketEvent{In: in, Out: in.Add(time.Millisecond), Due: in.Add(time.Millisecond), Dir: proxy.Up, Flow: 1, Addr: addr,
					Size: len(payload), Payload: payload, Fate: proxy.FateDelivered, Delay: time.Millisecond})
				if i%500 == 0 {
					time.Sleep(time.Millisecond) // let the writer keep up: no event dropped
				}
			}
			select {
			case err := <-failed:
				if !strings.Contains(err.Error(), "--"+kind+" x.out") || !errors.Is(err, syscall.ENOSPC) {
					t.Errorf("reported %q; want the flag, the file and the disk's error", err)
				}
			case <-time.After(30 * time.Second): // a bound on a hang, not a timing assertion
				t.Fatal("the capture failed and nothing said so while the proxy ran")
			}
			if _, err := sw.Stop(30*time.Second, proxy.Stats{}); !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("stop: %v; want the write error still returned at the end", err)
			}
		})
	}
}

// openFiles starts a capture writing a pcapng capture to pcapPath and a
// proxy recording to recPath, as lab proxy --pcap --record does; Finish
// closes the files.
func openFiles(t *testing.T, pcapPath, recPath string) *Capture {
	t.Helper()
	var files []Committer
	open := func(path string) *os.File {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, closer{f})
		return f
	}
	pw, err := capture.NewWriter(open(pcapPath), capture.Options{Epoch: time.Unix(0, 0), Sides: Sides})
	if err != nil {
		t.Fatal(err)
	}
	rw, err := recordings.NewWriter(open(recPath), Header(lab.HeaderOf(lab.DefaultConfig(), "switch", 0)))
	if err != nil {
		t.Fatal(err)
	}
	return New(Options{Pcap: pw, Recording: rw, PcapName: "--pcap " + pcapPath, RecordingName: "--record " + recPath, Files: files})
}

// closer commits a file by closing it.
type closer struct{ f *os.File }

func (c closer) Commit() error { return c.f.Close() }
