package proxy

import (
	"context"
	"net"
	"testing"
	"time"

	"jitterlab/netem"
)

// echoOn answers every datagram on addr until stop is called; stop waits
// for the socket to close, so the port is free again when it returns.
func echoOn(t *testing.T, addr *net.UDPAddr) (bound *net.UDPAddr, stop func()) {
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

// exchange sends n datagrams from client and counts the echoes that come
// back before the deadline (a bound on a broken relay, not a measurement).
func exchange(t *testing.T, client *net.UDPConn, n int, deadline time.Duration) int {
	t.Helper()
	for i := range n {
		if _, err := client.Write([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	client.SetReadDeadline(time.Now().Add(deadline))
	got := 0
	buf := make([]byte, 64)
	for got < n {
		if _, err := client.Read(buf); err != nil {
			break
		}
		got++
	}
	return got
}

// waitFor polls cond until it holds or the test's patience runs out.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// A game server that restarts on the same port: while it is down the
// relay's socket to it gets ICMP "port unreachable"; once it is back, the
// same client gets its replies again.
func TestServerRestartIsSurvivable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	server, stop := echoOn(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	r, err := Listen(Options{Listen: "127.0.0.1:0", Target: server.String(), Seed: 1, Up: netem.Params{}, Down: netem.Params{}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	client, err := net.DialUDP("udp", nil, r.Addr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	if got := exchange(t, client, 5, 10*time.Second); got != 5 {
		t.Fatalf("before the restart: %d/5 echoes", got)
	}
	stop()
	// The server is down: the relay's packet draws a "port unreachable".
	exchange(t, client, 1, 200*time.Millisecond)
	waitFor(t, "the relay to see the refusal", func() bool { return len(r.Errors()) > 0 })
	_, stop = echoOn(t, server)
	defer stop()
	if got := exchange(t, client, 5, 10*time.Second); got != 5 {
		t.Fatalf("after the restart: %d/5 echoes, errors %v", got, r.Errors())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
