package proxy

import (
	"encoding/binary"
	"net"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/netem"
)

// A scenario timeline applies in wall time from the start: packets after
// the change meet the new link, and the change is reported as it applies.
func TestTimelineChangesTheLinks(t *testing.T) {
	server, stopServer := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer stopServer()
	applied := make(chan Change, 1)
	blackout := Change{At: 300 * ms, Up: netem.Params{Loss: 1}, What: "up.loss=100%"}
	r, client, stop := startRelay(t, Options{Target: server.String(), Timeline: []Change{blackout},
		OnChange: func(c Change) { applied <- c }})
	if got := exchange(t, client, 5, 10*time.Second); got != 5 {
		t.Fatalf("before the change: %d/5 echoes", got)
	}
	select {
	case c := <-applied:
		if c.What != blackout.What {
			t.Fatalf("reported %+v", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the change at 300ms was never applied")
	}
	exchange(t, client, 5, 50*time.Millisecond)
	waitFor(t, "the relay to count 10 datagrams", func() bool { return r.Stats().Up.Received == 10 })
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if st := r.Stats(); st.Up.Lost != 5 || st.Down.Delivered != 5 {
		t.Fatalf("after the blackout: %+v", st)
	}
}

// A write the socket refuses is counted as a failed write, not delivered,
// and the error is kept once with its count. The relay listens on IPv6
// loopback and the server is IPv4: a 65,527-byte datagram (the IPv6 maximum)
// cannot be sent over IPv4 (at most 65,507).
func TestFailedWritesAreNotDelivered(t *testing.T) {
	server, stopServer := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer stopServer()
	if c, err := net.ListenUDP("udp6", &net.UDPAddr{IP: net.IPv6loopback}); err != nil {
		needs(t, "IPv6 loopback")
	} else {
		c.Close()
	}
	r, client, stop := startRelay(t, Options{Listen: "[::1]:0", Target: server.String()})
	for range 3 {
		if _, err := client.Write(make([]byte, 65527)); err != nil {
			t.Fatal(err)
		}
	}
	if got := exchange(t, client, 2, 10*time.Second); got != 2 {
		t.Fatalf("small datagrams after the failures: %d/2 echoes", got)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	st, errs := r.Stats(), r.Errors()
	if st.Up.WriteFailed != 3 || st.Up.Delivered != 2 || st.Up.Released != 5 {
		t.Fatalf("up %+v", st.Up)
	}
	if len(errs) != 1 || errs[0].Count != 3 || !strings.Contains(errs[0].Msg, "writing to the server") {
		t.Fatalf("errors %+v, want one kind counted 3 times", errs)
	}
}

func TestListenRefusesALoop(t *testing.T) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	free := c.LocalAddr().String()
	c.Close()
	_, err = Listen(Options{Listen: free, Target: free})
	if err == nil || !strings.Contains(err.Error(), "send to itself") {
		t.Fatalf("--listen %s --to %s: %v", free, free, err)
	}
}

// A name that does not resolve is a lookup failure, not a malformed address.
func TestTargetLookupFailure(t *testing.T) {
	_, err := Listen(Options{Listen: "127.0.0.1:0", Target: "nosuchhost.invalid:1"})
	if err == nil || !strings.Contains(err.Error(), "DNS") || strings.Contains(err.Error(), "want") {
		t.Fatalf("--to nosuchhost.invalid:1: %v", err)
	}
	for _, bad := range []string{"nohost", "127.0.0.1:0", "127.0.0.1:99999", "127.0.0.1:x"} {
		if _, err := Listen(Options{Listen: "127.0.0.1:0", Target: bad}); err == nil || !strings.Contains(err.Error(), "--to") {
			t.Errorf("--to %s: %v", bad, err)
		}
	}
}

func TestListenWarning(t *testing.T) {
	for _, c := range []struct {
		addr string
		warn bool
	}{
		{"127.0.0.1:7777", false}, {"[::1]:7777", false}, {"127.0.0.5:7777", false},
		{"0.0.0.0:7777", true}, {"[::]:7777", true}, {"192.0.2.1:7777", true},
	} {
		ua := net.UDPAddrFromAddrPort(netipMust(c.addr))
		if got := ListenWarning(ua); (got != "") != c.warn {
			t.Errorf("--listen %s: warning %q", c.addr, got)
		}
	}
}

// The relay forgets a client after the idle timeout and closes its socket
// to the server; a full table evicts the longest idle client. Either way
// the client is relayed again when it comes back, as a new flow.
func TestRelayForgetsIdleAndEvictedClients(t *testing.T) {
	server, stopServer := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer stopServer()
	echoes := func(c *net.UDPConn) {
		t.Helper()
		if got := exchange(t, c, 1, 10*time.Second); got != 1 {
			t.Fatal("no echo")
		}
	}
	t.Run("idle", func(t *testing.T) {
		limits := DefaultLimits()
		limits.IdleTimeout = 200 * ms
		r, a, stop := startRelay(t, Options{Target: server.String(), Limits: limits})
		echoes(a)
		waitFor(t, "the idle client to expire", func() bool { return r.Stats().Expired == 1 })
		echoes(a)
		stop()
		if st := r.Stats(); st.FlowsSeen != 2 || st.Down.Delivered != 2 {
			t.Fatalf("stats %+v", st)
		}
	})
	t.Run("evicted", func(t *testing.T) {
		limits := DefaultLimits()
		limits.MaxFlows = 1
		r, a, stop := startRelay(t, Options{Target: server.String(), Limits: limits})
		b, err := net.DialUDP("udp", nil, r.Addr().(*net.UDPAddr))
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		echoes(a)
		echoes(b)
		echoes(a)
		stop()
		if st := r.Stats(); st.FlowsSeen != 3 || st.Evicted != 2 || st.Flows != 1 || st.Down.Delivered != 3 {
			t.Fatalf("stats %+v", st)
		}
	})
}

// A game server that restarts on the same port: while it is down the
// relay's socket to it gets ICMP "port unreachable"; once it is back, the
// same client gets its replies again.
func TestServerRestartIsSurvivable(t *testing.T) {
	server, stop := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	r, client, stopRelay := startRelay(t, Options{Target: server.String()})
	if got := exchange(t, client, 5, 10*time.Second); got != 5 {
		t.Fatalf("before the restart: %d/5 echoes", got)
	}
	stop()
	// The server is down: the relay's packet draws a "port unreachable".
	exchange(t, client, 1, 200*time.Millisecond)
	waitFor(t, "the relay to see the refusal", func() bool { return len(r.Errors()) > 0 })
	_, stop = testtool.EchoUDP(t, server)
	defer stop()
	if got := exchange(t, client, 5, 10*time.Second); got != 5 {
		t.Fatalf("after the restart: %d/5 echoes, errors %v", got, r.Errors())
	}
	if err := stopRelay(); err != nil {
		t.Fatal(err)
	}
}

// Coalescing releases (ReleaseWindow) may hold a copy back, never send it
// early: at 10,000 datagrams/s every copy is written at or after the time
// its link gave it, and every datagram is written.
func TestReleaseWindowNeverReleasesEarly(t *testing.T) {
	sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	var early, written int
	var worst PacketEvent
	r, client, stop := startRelay(t, Options{Target: sink.LocalAddr().String(), Up: netem.Params{Latency: 2 * ms},
		ReleaseWindow: MaxReleaseWindow, OnPacket: func(e *PacketEvent) {
			if e.Read || e.Fate != FateDelivered {
				return
			}
			written++
			if e.Out.Before(e.Due) || e.Delay < 2*ms {
				early++
				worst = *e
			}
		}})
	const n = 3000 // 10 per millisecond for 300 ms: fast enough to coalesce
	for i := range n {
		if _, err := client.Write(make([]byte, 32)); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			time.Sleep(ms)
		}
	}
	waitFor(t, "every datagram to be released", func() bool {
		st := r.Stats()
		return st.Up.Received+st.Up.KernelDropped == n && st.Up.InFlight == 0
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	if early > 0 {
		t.Fatalf("%d of %d copies written before their time, e.g. %+v", early, written, worst)
	}
	if written != int(st.Up.Received) || st.Up.Delivered != st.Up.Received {
		t.Fatalf("%d written; stats %+v", written, st.Up)
	}
}

// Batched, deferred reads keep each datagram's own arrival time: at 10,000
// datagrams/s the relay reads a socket only every few milliseconds, many
// datagrams per recvmmsg, yet each one's In is the kernel's stamp of it,
// taken on loopback while its sender was still in write: after the sender's
// clock before that write and before its clock before the next one (the
// kernel stamps so once its stamping is on: the test waits for that).
// Each datagram carries its index, so one the kernel drops costs only its
// own check, and every one read is checked. The kernel drops none when it
// granted the relay the receive buffer it asks for (4 MiB, room for about
// 10,000 such datagrams), however long the machine keeps the relay off
// the CPU; where net.core.rmem_max caps it, a relay paused longer than the
// buffer lasts loses some to the kernel: they are counted and reported, not
// the relay's timing.
func TestBatchedReadsKeepEachArrivalTime(t *testing.T) {
	kernelStampsOnArrival(t)
	sink, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Close()
	const n = 3000
	type arrival struct {
		i  int
		at time.Time
	}
	in := make([]arrival, 0, n)
	r, client, stop := startRelay(t, Options{Target: sink.LocalAddr().String(), Up: netem.Params{Latency: 20 * ms},
		OnPacket: func(e *PacketEvent) {
			if e.Read && len(in) < n && len(e.Payload) >= 4 {
				in = append(in, arrival{int(binary.BigEndian.Uint32(e.Payload)), e.In})
			}
		}})
	sent := make([]time.Time, n+1)
	buf := make([]byte, 32)
	for i := range n {
		binary.BigEndian.PutUint32(buf, uint32(i))
		sent[i] = time.Now()
		if _, err := client.Write(buf); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			time.Sleep(ms)
		}
	}
	sent[n] = time.Now()
	waitFor(t, "every datagram to be read", func() bool {
		st := r.Stats()
		return st.Up.Received+st.Up.KernelDropped == n
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	if len(in) == 0 || len(in)+int(st.Up.KernelDropped) != n {
		t.Fatalf("%d read, kernel dropped %d, of %d sent", len(in), st.Up.KernelDropped, n)
	}
	if drops := st.Up.KernelDropped; drops > 0 {
		if r.ReceiveBuffer() >= DefaultReceiveBuffer {
			t.Fatalf("the kernel dropped %d of %d datagrams at the relay's socket, whose receive buffer of %s holds them all", drops, n, ByteSize(r.ReceiveBuffer()))
		}
		t.Logf("the kernel dropped %d of %d datagrams, excluded from the check: the relay's receive buffer is %s, below the %s it asks for. %s",
			drops, n, ByteSize(r.ReceiveBuffer()), ByteSize(DefaultReceiveBuffer), r.ReceiveBufferWarning())
	}
	for _, a := range in {
		if a.i < 0 || a.i >= n || a.at.Before(sent[a.i]) || !a.at.Before(sent[a.i+1]) {
			t.Fatalf("datagram %d: In %v, want between its send and the next send", a.i, a.at.Format(time.StampMicro))
		}
	}
}
