package proxy

import (
	"net"
	"sync"
	"testing"
	"time"

	"jitterlab/internal/testtool"
	"jitterlab/netem"
)

// OnPacket hears of every datagram once when read, with each copy's fate,
// and of every copy written on; its counts are the relay's counters, its
// addresses the client's and the relay's socket to the server, and a
// written copy never leaves before it was read.
func TestOnPacketHearsEveryDatagram(t *testing.T) {
	server, stopServer := testtool.EchoUDP(t, &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	defer stopServer()
	var mu sync.Mutex
	var events []PacketEvent
	link := netem.Params{Latency: 2 * time.Millisecond, Loss: 0.2, Duplicate: 0.2}
	r, client, stop := startRelay(t, Options{Target: server.String(), Seed: 5, Up: link, Down: link,
		OnPacket: func(e *PacketEvent) {
			mu.Lock()
			defer mu.Unlock()
			c := *e
			c.Payload = append([]byte(nil), e.Payload...)
			events = append(events, c)
		}})
	exchange(t, client, 200, 300*time.Millisecond)
	waitFor(t, "every datagram to be released", func() bool {
		st := r.Stats()
		return st.Up.Received == 200 && st.Up.InFlight == 0 && st.Down.InFlight == 0
	})
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	var in, out, lost, dup [2]uint64
	clientAddr := client.LocalAddr().(*net.UDPAddr).AddrPort()
	for _, e := range events {
		if e.Addr != clientAddr || !e.Upstream.IsValid() || len(e.Payload) != e.Size {
			t.Fatalf("event %+v: client %v, relay's upstream socket %v", e, e.Addr, e.Upstream)
		}
		if e.Read {
			in[e.Dir]++
			for _, f := range e.Send.Copy[:e.Send.Copies] {
				if f == FateLost {
					lost[e.Dir]++
				}
			}
			if e.Send.Copies == 2 {
				dup[e.Dir]++
			}
			continue
		}
		if e.Fate != FateDelivered {
			continue
		}
		out[e.Dir]++
		if e.Out.Before(e.In) || e.Due.Before(e.In) {
			t.Fatalf("written copy %+v", e)
		}
	}
	for d, c := range [2]Counters{st.Up, st.Down} {
		if in[d] != c.Received || out[d] != c.Delivered || lost[d] != c.Lost || dup[d] != c.Duplicated {
			t.Errorf("%v: heard of %d read, %d written, %d lost, %d duplicated; counted %d, %d, %d, %d",
				Dir(d), in[d], out[d], lost[d], dup[d], c.Received, c.Delivered, c.Lost, c.Duplicated)
		}
	}
	if st.Up.Lost == 0 || st.Up.Duplicated == 0 {
		t.Fatalf("the links should lose and duplicate: %+v", st.Up)
	}
}
