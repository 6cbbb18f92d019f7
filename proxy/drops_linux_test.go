package proxy

import (
	"encoding/binary"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
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
	s := newSocket(rx, Up, 1) // a receive buffer of the kernel's minimum: a few datagrams
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

// FuzzReadOOB: the allocation-free control-message reader agrees with the
// standard library's parser on any bytes (it reads the same drop count and
// arrival stamp, or nothing where the library finds nothing).
func FuzzReadOOB(f *testing.F) {
	f.Add([]byte{})
	stamp := make([]byte, syscall.CmsgSpace(16))
	h := (*syscall.Cmsghdr)(unsafe.Pointer(&stamp[0]))
	h.Level, h.Type = syscall.SOL_SOCKET, syscall.SCM_TIMESTAMPNS
	h.SetLen(syscall.CmsgLen(16))
	stamp[syscall.CmsgLen(0)] = 7
	drops := make([]byte, syscall.CmsgSpace(4))
	h = (*syscall.Cmsghdr)(unsafe.Pointer(&drops[0]))
	h.Level, h.Type = syscall.SOL_SOCKET, syscall.SO_RXQ_OVFL
	h.SetLen(syscall.CmsgLen(4))
	drops[syscall.CmsgLen(0)] = 3
	f.Add(append(append([]byte{}, stamp...), drops...))
	f.Add(append(append([]byte{}, drops...), stamp...))
	f.Fuzz(func(t *testing.T, oob []byte) {
		got := readOOB(oob)
		var want oobInfo
		if msgs, err := syscall.ParseSocketControlMessage(oob); err == nil {
			for _, m := range msgs {
				switch {
				case m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SO_RXQ_OVFL && len(m.Data) >= 4:
					want.drops, want.hasDrops = binary.NativeEndian.Uint32(m.Data), true
				case m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SCM_TIMESTAMPNS && len(m.Data) >= 16:
					want.stamp = int64(binary.NativeEndian.Uint64(m.Data))*1e9 + int64(binary.NativeEndian.Uint64(m.Data[8:]))
					want.hasStamp = true
				}
			}
		} else {
			return // malformed: the library gives up on all of it; ours may read the good prefix
		}
		if got != want {
			t.Fatalf("%x: read %+v, the library %+v", oob, got, want)
		}
	})
}

// kernelStampsOnArrival waits until the kernel stamps each datagram as it
// arrives, and keeps it so until the test ends. The first socket on the
// machine to ask for stamps (SO_TIMESTAMPNS) switches stamping on through
// deferred work (net_enable_timestamp); until that work has run, a
// datagram that arrives unstamped is stamped as it is read ("race
// occurred between timestamp enabling and packet receiving", in
// __sock_recv_timestamp). A probe socket with stamps on, held until the
// test ends, keeps the switch on for the sockets the test opens; the wait
// ends when a datagram to it carries a stamp earlier than the read.
func kernelStampsOnArrival(t *testing.T) {
	t.Helper()
	rx, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rx.Close() })
	enableDropCount(rx)
	tx, err := net.DialUDP("udp", nil, rx.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	buf, oob := make([]byte, 16), make([]byte, oobSize)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := tx.Write([]byte("probe")); err != nil {
			t.Fatal(err)
		}
		read := time.Now().UnixNano() // the wall clock, as the stamps
		rx.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, oobn, _, _, err := rx.ReadMsgUDPAddrPort(buf, oob)
		if err != nil {
			t.Fatal(err)
		}
		if m := readOOB(oob[:oobn]); m.hasStamp && m.stamp < read {
			return
		}
		if time.Now().After(end) {
			t.Fatal("after 10 s the kernel still stamps datagrams as they are read, not as they arrive")
		}
	}
}
