package game

import (
	"net"
	"net/netip"
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/telemetry"
)

// Run on loopback sockets with the wall clock: the client logs in, the
// server applies its inputs, the telemetry decodes; a datagram of garbage
// is counted and reported once; closing the socket ends Run with nil.
// Nothing here asserts how long anything took.
func TestRunOnLoopback(t *testing.T) {
	listen := func() *net.UDPConn {
		c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	sconn, cconn := listen(), listen()
	defer cconn.Close()
	tl, err := telemetry.Listen("127.0.0.1:0", time.Now, telemetry.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	go tl.Run()
	defer tl.Close()
	addr := func(c *net.UDPConn) netip.AddrPort { return c.LocalAddr().(*net.UDPAddr).AddrPort() }
	start := time.Now()
	cfg := lab.DefaultConfig()
	sv, err := NewServer(cfg, start, netip.AddrPort{})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := NewClient(cfg, start, addr(sconn), tl.Addr().AddrPort())
	if err != nil {
		t.Fatal(err)
	}
	var reports []error
	done := make(chan error, 1)
	go func() { done <- Run(sconn, sv, time.Now, time.Time{}, func(e error) { reports = append(reports, e) }) }()
	garbage, err := net.DialUDP("udp", nil, sconn.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer garbage.Close()
	garbage.Write([]byte("no game here"))
	garbage.Write([]byte("nor here"))
	if err := Run(cconn, cl, time.Now, time.Now().Add(600*time.Millisecond), nil); err != nil {
		t.Fatal(err)
	}
	sconn.Close()
	if err := <-done; err != nil {
		t.Fatalf("the server's Run after Close: %v", err)
	}
	for deadline := time.Now().Add(5 * time.Second); tl.Counts().Frames < cl.Frames() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond) // loopback: the listener's goroutine reads what is sent
	}
	if !cl.Model().LoggedIn() || sv.Logins() == 0 || sv.Model().Counters().Applied == 0 {
		t.Errorf("logged in %v, logins %d, applied %d", cl.Model().LoggedIn(), sv.Logins(), sv.Model().Counters().Applied)
	}
	if c := tl.Counts(); c.Frames == 0 || c.Frames != cl.Frames() || c.RefusedTotal() != 0 {
		t.Errorf("telemetry %s; the client rendered %d frames", c.Summary(), cl.Frames())
	}
	if c := sv.Counts(); c.Malformed != 2 || len(reports) != 1 || c.SendFailed != 0 || c.Sent == 0 {
		t.Errorf("server %s, reports %v: want the 2 garbage datagrams counted, reported once", c.Summary(), reports)
	}
}

// A socket closed under the run ends it: the datagrams due are not sent
// and not counted as failed (TestRunOnLoopback closes the server's socket
// to end it, and under load one PlayerState was counted as a failure).
func TestRunOnAClosedSocketFailsNothing(t *testing.T) {
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	start := time.Unix(1000, 0)
	sv, err := NewServer(lab.DefaultConfig(), start, netip.MustParseAddrPort("127.0.0.1:9"))
	if err != nil {
		t.Fatal(err)
	}
	at := start.Add(time.Second) // twenty steps due, each with its telemetry tick
	if err := Run(conn, sv, func() time.Time { return at }, time.Time{}, nil); err != nil {
		t.Fatalf("Run on a closed socket: %v, want nil", err)
	}
	if c := sv.Counts(); c.SendFailed != 0 || c.Sent != 0 {
		t.Errorf("server %s: want nothing sent and nothing failed", c.Summary())
	}
}
