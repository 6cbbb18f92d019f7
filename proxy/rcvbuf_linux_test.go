package proxy

import (
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"jitterlab/internal/testtool"
)

// The relay's sockets, the listen socket and the one it opens to the
// server for a client, get the receive buffer asked for
// ([Options].ReceiveBuffer) as far as net.core.rmem_max lets the kernel
// give it: SO_RCVBUF read back from the sockets the relay reads is at
// least twice min(asked, rmem_max), since the kernel doubles what it
// grants. The kernel's default (212,992 bytes here) is below that wherever
// rmem_max is above half of it. The relay reports what the kernel granted
// its listen socket (half the read back), and warns when it granted less
// than asked: asked the default (4 MiB), and asked twice rmem_max, which
// the kernel cannot grant.
func TestRelaySocketsGetTheReceiveBufferAsked(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/net/core/rmem_max")
	if err != nil {
		t.Fatalf("reading net.core.rmem_max: %v", err)
	}
	rmemMax, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("net.core.rmem_max %q: %v", b, err)
	}
	server, stopServer := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer stopServer()
	for _, asked := range []int{DefaultReceiveBuffer, 2 * rmemMax} {
		t.Run(ByteSize(asked), func(t *testing.T) {
			if asked > MaxReceiveBuffer {
				t.Skipf("net.core.rmem_max is %d: twice it is above the most a relay asks for (%d)", rmemMax, MaxReceiveBuffer)
			}
			o := Options{Target: server.String()}
			if asked != DefaultReceiveBuffer {
				o.ReceiveBuffer = asked
			}
			want := 2 * min(asked, rmemMax)
			r, client, stop := startRelay(t, o)
			if got := exchange(t, client, 1, 10*time.Second); got != 1 {
				t.Fatalf("%d/1 echoes", got)
			}
			r.mu.Lock()
			socks := r.sockets()
			got := map[string]int{}
			for _, s := range socks {
				n, err := syscall.GetsockoptInt(s.fd, syscall.SOL_SOCKET, syscall.SO_RCVBUF)
				if err != nil {
					r.mu.Unlock()
					t.Fatalf("SO_RCVBUF of the socket at %v: %v", s.local, err)
				}
				got[s.local.String()] = n
			}
			listen := got[r.listen.local.String()]
			r.mu.Unlock()
			if len(got) != 2 {
				t.Fatalf("%d sockets, want the listen socket and one to the server", len(got))
			}
			for at, n := range got {
				if n < want {
					t.Errorf("the relay's socket at %s has a receive buffer of %d bytes; want at least %d (2 × min(asked %d, net.core.rmem_max %d))", at, n, want, asked, rmemMax)
				}
			}
			if 2*r.ReceiveBuffer() != listen {
				t.Errorf("the relay reports a receive buffer of %d granted; its listen socket has %d, twice that", r.ReceiveBuffer(), listen)
			}
			if w := r.ReceiveBufferWarning(); (w != "") != (asked > rmemMax) {
				t.Errorf("net.core.rmem_max %d, asked %d: warning %q", rmemMax, asked, w)
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
