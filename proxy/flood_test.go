package proxy

import (
	"net"
	"runtime"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/netem"
)

// 1,000,000 datagrams as fast as one socket sends them, into a link with an
// minute of latency (the longest a link allows): the proxy holds at most its in-flight limit, counts
// every datagram it did not keep (the kernel's drops at its socket and its
// own limit), and still relays for a new client afterwards.
func TestFloodStaysBoundedAndCounted(t *testing.T) {
	const n = 1_000_000
	server, stopServer := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer stopServer()
	limits := DefaultLimits()
	r, flood, stop := startRelay(t, Options{Target: server.String(), Limits: limits,
		Up: netem.Params{Latency: time.Minute}, Down: netem.Params{Latency: time.Minute}})
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	payload := make([]byte, 64)
	sent := 0
	for range n {
		if _, err := flood.Write(payload); err == nil {
			sent++
		}
	}
	if err := r.SetParams(netem.Params{}, netem.Params{}); err != nil {
		t.Fatal(err)
	}
	// A new client is relayed once the proxy has read what its socket
	// still holds (until then the kernel drops the new client's datagrams
	// too, and counts them); its datagrams also bring the kernel's drop
	// count for the listen socket to the relay.
	late, err := net.DialUDP("udp", nil, r.Addr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	probes := 1
	for exchange(t, late, 1, 100*time.Millisecond) == 0 {
		if probes++; probes > 100 {
			t.Fatalf("no echo for a new client 10 s after the flood; stats %+v", r.Stats())
		}
	}
	if got := exchange(t, late, 5, 10*time.Second); got != 5 {
		t.Fatalf("after the flood: %d/5 echoes; stats %+v", got, r.Stats())
	}
	sent += probes // some may have been dropped by the kernel: counted there
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	st := r.Stats() // with the kernel's last drop counts, read as the relay stops
	up := st.Up
	t.Logf("%d sent: kernel dropped %d, over the limit %d, held %d; heap %+d KiB",
		sent, up.KernelDropped, up.Overflow, up.InFlight, (int64(after.HeapAlloc)-int64(before.HeapAlloc))>>10)
	if runtime.GOOS == "linux" && up.Received+up.KernelDropped != uint64(sent+5) { // the kernel's drops are counted on Linux
		t.Errorf("%d datagrams sent to the proxy, %d read + %d dropped by the kernel", sent+5, up.Received, up.KernelDropped)
	}
	// The late client's datagrams that reached the relay all went to the
	// link: at least the echoed probe and the 5.
	if up.Sent < uint64(limits.FlowPackets+6) || up.Overflow != up.Received-up.Sent || up.InFlight != uint64(limits.FlowPackets) {
		t.Errorf("the flood's flow should hold its limit of %d and drop the rest: %+v", limits.FlowPackets, up)
	}
	if st.HeldBytes != limits.FlowPackets*len(payload) {
		t.Errorf("holds %d payload bytes", st.HeldBytes)
	}
	// The payloads held are 64 KB; the whole heap may grow by a few MB of
	// buffers, never by the flood (which the old relay kept: ~150 MB).
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 16<<20 {
		t.Errorf("heap grew by %d MiB", grown>>20)
	}
}
