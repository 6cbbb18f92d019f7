package proxy

import (
	"context"
	"net"
	"testing"
	"time"

	"jitterlab/internal/testtool"
)

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

// startRelay runs a relay for o until the test ends and returns it with a
// client socket connected to it; stop ends it and returns Run's error.
func startRelay(t testing.TB, o Options) (r *Relay, client *net.UDPConn, stop func() error) {
	t.Helper()
	if o.Listen == "" {
		o.Listen = "127.0.0.1:0"
	}
	r, err := Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	client, err = net.DialUDP("udp", nil, r.Addr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	var stopped bool
	var runErr error
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			runErr = <-done
			client.Close()
		}
		return runErr
	}
	t.Cleanup(func() { stop() })
	return r, client, stop
}

// needs skips a test whose environment lacks something, unless
// JITTERLAB_REQUIRE_TOOLS=1 (CI) makes that a failure.
func needs(t *testing.T, what string) {
	t.Helper()
	testtool.Missing(t, what)
}
