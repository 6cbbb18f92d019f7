package proxy

import (
	"net"
	"runtime"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/netem"
)

// Relaying a datagram allocates nothing in the steady state: payloads
// come from a pool and go back to it once written (issue 12.5). The bound
// leaves room for the runtime's own occasional allocations, far below one
// per datagram.
func TestRelayDoesNotAllocatePerPacket(t *testing.T) {
	server, stopServer := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer stopServer()
	_, client, _ := startRelay(t, Options{Target: server.String(), Up: netem.Params{Latency: ms}, Down: netem.Params{Latency: ms}})
	payload := make([]byte, 200)
	buf := make([]byte, 512)
	roundTrip := func(n int) {
		for range n {
			if _, err := client.Write(payload); err != nil {
				t.Fatal(err)
			}
			if _, err := client.Read(buf); err != nil {
				t.Fatal(err)
			}
		}
	}
	roundTrip(200) // the flow, its socket and the pool's buffers
	const n = 2000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	roundTrip(n)
	runtime.ReadMemStats(&after)
	if allocs := after.Mallocs - before.Mallocs; allocs > n/10 {
		t.Fatalf("%d allocations for %d round trips (%d datagrams relayed)", allocs, n, 2*n)
	}
}

// SetParams works whether or not Run is running: it used to hand the
// change to Run over a channel and block once that was full.
func TestSetParamsWithoutRun(t *testing.T) {
	r, err := Listen(Options{Listen: "127.0.0.1:0", Target: "127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.conn.Close()
	done := make(chan error, 1)
	go func() {
		for range 3 {
			if err := r.SetParams(netem.Params{Latency: ms}, netem.Params{}); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SetParams blocked without Run")
	}
	if up, _ := r.core.Params(); up.Latency != ms {
		t.Fatalf("up latency %v after SetParams", up.Latency)
	}
}

// OnPacket sees every copy once with its fate: each datagram sent is
// either written (with its times, flow and size) or dropped by the link.
func TestOnPacketSeesEveryCopy(t *testing.T) {
	server, stopServer := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer stopServer()
	var events []PacketEvent
	r, client, stop := startRelay(t, Options{Target: server.String(), Up: netem.Params{Latency: ms, Loss: 0.5},
		OnPacket: func(e *PacketEvent) { events = append(events, *e) }})
	const n = 40
	for range n {
		client.Write(make([]byte, 100))
	}
	waitFor(t, "every datagram to be decided", func() bool {
		st := r.Stats()
		return st.Up.Received == n && st.Up.InFlight == 0 && st.Down.Received == st.Up.Delivered && st.Down.InFlight == 0
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var up, written, lost int
	for _, e := range events {
		if e.Size != 100 || e.Flow != 1 || !e.Addr.IsValid() {
			t.Fatalf("event %+v", e)
		}
		if e.Dir != Up || e.Read {
			continue
		}
		up++
		switch e.Fate {
		case FateDelivered:
			written++
			if e.Out.Before(e.In) || e.Delay != e.Out.Sub(e.In) || e.Delay < ms {
				t.Fatalf("written copy %+v: want Out ≥ In + 1ms and Delay = Out − In", e)
			}
		case FateLost:
			lost++
			if !e.Out.IsZero() {
				t.Fatalf("lost copy with a write time: %+v", e)
			}
		default:
			t.Fatalf("unexpected fate %v", e.Fate)
		}
	}
	st := r.Stats()
	if up != n || written != int(st.Up.Delivered) || lost != int(st.Up.Lost) {
		t.Fatalf("%d up events (%d written, %d lost); counters %+v", up, written, lost, st.Up)
	}
}
