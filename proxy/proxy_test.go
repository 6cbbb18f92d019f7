package proxy

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/netem"
	"jitterlab/sim"
)

const ms = time.Millisecond

func TestCoreSchedulesByTheLink(t *testing.T) {
	c, err := NewCore(1, netem.Params{Latency: 30 * ms}, netem.Params{Latency: 10 * ms}, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	client := netip.MustParseAddrPort("127.0.0.1:5000")
	f, isNew, _ := c.Flow(0, client)
	if !isNew {
		t.Fatal("the first packet of a client makes a flow")
	}
	if g, isNew, _ := c.Flow(0, client); isNew || g != f {
		t.Fatal("the same address is the same flow")
	}
	c.Send(0, f, Up, []byte("a"))
	c.Send(sim.Time(5*ms), f, Down, []byte("b"))
	if next, _ := c.Next(); next != sim.Time(15*ms) {
		t.Fatalf("next delivery at %v, want 15ms (the down packet)", next)
	}
	if got := c.Due(sim.Time(14*ms), nil); len(got) != 0 {
		t.Fatalf("delivered early: %v", got)
	}
	got := c.Due(sim.Time(30*ms), nil)
	if len(got) != 2 || string(got[0].Payload) != "b" || got[0].Dir != Down || got[0].Addr != client || string(got[1].Payload) != "a" {
		t.Fatalf("deliveries %+v", got)
	}
	if st := c.Stats(); st.HeldBytes != 0 || st.Up.Released != 1 || st.Down.Released != 1 {
		t.Fatalf("payloads kept after delivery: %+v", st)
	}
}

// The relay on loopback loses exactly the packets its seeded up link says
// it loses, and never delivers faster than the configured latency.
func TestRelayOnLoopback(t *testing.T) {
	server, stopServer := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer stopServer()
	up := netem.Params{Latency: 10 * ms, Loss: 0.2}
	down := netem.Params{Latency: 15 * ms}
	r, client, stop := startRelay(t, Options{Target: server.String(), Seed: 9, Up: up, Down: down})
	const n = 200
	// The same seed and stream offline: which packets the up link passes.
	want := map[uint32]bool{}
	l, _ := netem.New(9, "proxy.0.up", up)
	for i := range n {
		if l.Send(sim.Time(i), netem.Packet{ID: uint64(i)}).Scheduled == 1 {
			want[uint32(i)] = true
		}
	}
	start := time.Now()
	got := map[uint32]bool{}
	recvDone := make(chan struct{})
	minRTT := time.Hour
	go func() {
		defer close(recvDone)
		// Read until every expected echo is in; the deadline only stops a
		// broken relay from hanging the test, it is not a measurement.
		client.SetReadDeadline(time.Now().Add(15 * time.Second))
		buf := make([]byte, 64)
		for len(got) < len(want) {
			k, err := client.Read(buf)
			if err != nil {
				return
			}
			if k != 12 {
				continue
			}
			seq := binary.BigEndian.Uint32(buf)
			sentAt := time.Duration(binary.BigEndian.Uint64(buf[4:]))
			got[seq] = true
			minRTT = min(minRTT, time.Since(start)-sentAt)
		}
	}()
	for i := range n {
		var b [12]byte // sequence number, send time since start
		binary.BigEndian.PutUint32(b[:], uint32(i))
		binary.BigEndian.PutUint64(b[4:], uint64(time.Since(start)))
		client.Write(b[:])
		time.Sleep(2 * ms) // pace the sends so no socket buffer overflows
	}
	<-recvDone

	if len(got) != len(want) {
		t.Fatalf("received %d echoes, the seeded link passes %d", len(got), len(want))
	}
	for seq := range want {
		if !got[seq] {
			t.Fatalf("packet %d should have passed", seq)
		}
	}
	// A lower bound only: the relay may be late on a busy machine, never early.
	if minRTT < 25*ms {
		t.Fatalf("an echo came back in %v, under the 10+15 ms of latency", minRTT)
	}
	// Stop the relay first: it publishes its counters at the end of the
	// iteration that wrote the last echo, which Run finishes before it returns.
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	st, errs := r.Stats(), r.Errors()
	if st.Up.Sent != n || int(st.Up.Lost) != n-len(want) || st.Down.Delivered != uint64(len(want)) || st.Flows != 1 || len(errs) != 0 {
		t.Fatalf("stats %+v errs %v", st, errs)
	}
}

func TestListenErrors(t *testing.T) {
	if _, err := Listen(Options{Listen: "127.0.0.1:0", Target: "nowhere"}); err == nil {
		t.Fatal("a target without a port accepted")
	}
	if _, err := Listen(Options{Listen: "127.0.0.1:0", Target: "127.0.0.1:9", Up: netem.Params{Loss: 2}}); err == nil {
		t.Fatal("loss 200% accepted")
	}
	w := MaxReleaseWindow + time.Microsecond
	_, err := Listen(Options{Listen: "127.0.0.1:0", Target: "127.0.0.1:9", ReleaseWindow: w})
	if err == nil || !strings.Contains(err.Error(), "release window 1.001ms: allowed up to 1ms") {
		t.Errorf("release window %v: %v", w, err)
	}
	for _, b := range []int{-1, MaxReceiveBuffer + 1} {
		_, err := Listen(Options{Listen: "127.0.0.1:0", Target: "127.0.0.1:9", ReceiveBuffer: b})
		if want := fmt.Sprintf("receive buffer %d bytes: allowed 0 (the default, 4 MiB) up to 1073741824 (1024 MiB)", b); err == nil || err.Error() != want {
			t.Errorf("receive buffer %d: %v; want %q", b, err, want)
		}
	}
}
