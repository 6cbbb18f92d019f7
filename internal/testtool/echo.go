package testtool

import (
	"net"
	"testing"
	"time"
)

// EchoUDP answers every datagram on addr with the same bytes until stop is
// called; stop closes the socket and waits for the echo to end, so the
// port is free again when it returns.
func EchoUDP(t testing.TB, addr *net.UDPAddr) (bound *net.UDPAddr, stop func()) {
	t.Helper()
	conn, err := net.ListenUDP("udp", addr)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 2048)
		for {
			n, from, err := conn.ReadFromUDPAddrPort(buf)
			if err != nil {
				return
			}
			conn.WriteToUDPAddrPort(buf[:n], from)
		}
	}()
	return conn.LocalAddr().(*net.UDPAddr), func() { conn.Close(); <-done }
}

// LoopbackEcho is an EchoUDP on 127.0.0.1 for the test's lifetime: its
// address, as host:port.
func LoopbackEcho(t testing.TB) string {
	t.Helper()
	bound, stop := EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	t.Cleanup(stop)
	return bound.String()
}

// Echoes sends n datagrams from c and counts the replies within wait.
func Echoes(c *net.UDPConn, n int, wait time.Duration) int {
	for range n {
		c.Write([]byte("ping"))
	}
	c.SetReadDeadline(time.Now().Add(wait))
	got, buf := 0, make([]byte, 64)
	for got < n {
		if _, err := c.Read(buf); err != nil {
			break
		}
		got++
	}
	return got
}
