package proxy

import (
	"net"
	"sync/atomic"
	"testing"
)

// Source-port churn (issue 27.17): each client a full table evicts had
// its socket's drop count read from /proc/net/udp, which lists every UDP
// socket of the machine, at once and under the relay's lock: at 5,000 new
// ports a second the relay spent its CPU there and the kernel dropped the
// active client's datagrams before they were read. The evicted sockets'
// counts are read together, once per 64 evicted (or per upkeep period),
// and none is lost: the relay closes a socket only after its count is
// read.
func TestEvictionsReadTheDropCountsTogether(t *testing.T) {
	server, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	var reads atomic.Int64
	read := readDrops
	readDrops = func(want map[uint64]uint32) { reads.Add(1); read(want) }
	t.Cleanup(func() { readDrops = read }) // after the relay has stopped
	limits := DefaultLimits()
	limits.MaxFlows = 4
	r, _, stop := startRelay(t, Options{Target: server.LocalAddr().String(), Limits: limits})
	const clients = 640
	for i := range clients {
		c, err := net.DialUDP("udp", nil, r.Addr().(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close() // open to the end: each client a port of its own
		c.Write([]byte("x"))
		// One at a time, so the kernel drops none of them.
		waitFor(t, "the relay to read the new client", func() bool { return r.Stats().FlowsSeen > uint64(i) })
	}
	waitFor(t, "every client", func() bool { return r.Stats().FlowsSeen == clients })
	st := r.Stats()
	if st.Evicted != clients-4 {
		t.Fatalf("%d evicted of %d clients; want %d", st.Evicted, clients, clients-4)
	}
	n := reads.Load()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	// A read per 64 evicted, a few by the upkeep period, one at the stop.
	if max := int64((clients-4)/64 + 10); n > max {
		t.Fatalf("%d evictions read /proc/net/udp %d times; want at most %d", clients-4, n, max)
	}
}
