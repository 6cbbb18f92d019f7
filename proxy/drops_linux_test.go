package proxy

import (
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// The kernel's count of datagrams dropped at a full socket is read two
// ways that agree: from /proc/net/udp at any time, and attached to the
// next datagram read (SO_RXQ_OVFL).
func TestKernelDropCounts(t *testing.T) {
	rx, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	rx.SetReadBuffer(1) // the kernel's minimum: a few datagrams
	s := newSocket(rx, Up)
	if s.inode == 0 {
		t.Fatal("no inode for the socket")
	}
	tx, err := net.DialUDP("udp", nil, rx.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	for range 50 {
		tx.Write(make([]byte, 1000))
	}
	want := map[uint64]uint32{s.inode: 0}
	procDrops(want)
	fromProc := want[s.inode]
	if fromProc < 40 {
		t.Fatalf("/proc/net/udp: %d drops of 50 datagrams into a full socket", fromProc)
	}
	// A datagram carries the count as it was when the datagram was queued:
	// read what the full socket holds, then one sent after the drops.
	rx.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf, oob := make([]byte, 2000), make([]byte, 64)
	for queued := true; queued; {
		_, oobn, _, _, err := rx.ReadMsgUDPAddrPort(buf, oob)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := dropCount(oob[:oobn])
		if queued = !ok; queued {
			tx.Write([]byte("after the drops"))
		} else if c != fromProc {
			t.Fatalf("SO_RXQ_OVFL says %d, /proc/net/udp %d", c, fromProc)
		}
	}
	// Counting is idempotent: each drop once, however it was learnt.
	var total atomic.Uint64
	s.observe(fromProc, &total)
	s.observe(fromProc, &total)
	s.observe(fromProc-1, &total)
	if total.Load() != uint64(fromProc) {
		t.Fatalf("counted %d drops, want %d", total.Load(), fromProc)
	}
}
