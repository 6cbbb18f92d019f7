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

// A copy's Out is when its write began: the server's answer to it, which
// the kernel stamps on arrival, can come before the write's system call
// returns (loopback delivers inside it, IPv6 above all), so a time taken
// after the write would put the answer before its request in --pcap and
// --record. Each echo's In is never before its request's Out.
func TestAnAnswerIsNeverStampedBeforeItsRequest(t *testing.T) {
	for _, family := range []struct {
		name string
		ip   net.IP
	}{{"IPv4", net.IPv4(127, 0, 0, 1)}, {"IPv6", net.IPv6loopback}} {
		t.Run(family.name, func(t *testing.T) {
			server, stopServer := testtool.EchoUDP(t, &net.UDPAddr{IP: family.ip})
			defer stopServer()
			var mu sync.Mutex
			out := map[byte]time.Time{} // request i's write
			in := map[byte]time.Time{}  // its echo's arrival
			r, client, stop := startRelay(t, Options{Target: server.String(), Seed: 1,
				OnPacket: func(e *PacketEvent) {
					if e.Read || len(e.Payload) == 0 {
						return
					}
					mu.Lock()
					defer mu.Unlock()
					if e.Dir == Up && e.Fate == FateDelivered {
						out[e.Payload[0]] = e.Out
					} else if e.Dir == Down {
						in[e.Payload[0]] = e.In
					}
				}})
			const n = 250
			for i := range n {
				if _, err := client.Write([]byte{byte(i)}); err != nil {
					t.Fatal(err)
				}
				time.Sleep(200 * time.Microsecond)
			}
			waitFor(t, "every echo to be relayed", func() bool { return r.Stats().Down.Delivered == n })
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			early := 0
			for i, o := range out {
				if a, ok := in[i]; ok && a.Before(o) {
					early++
				}
			}
			if len(out) != n || len(in) != n || early > 0 {
				t.Errorf("%d requests written, %d echoes read; %d echoes stamped before their request's write", len(out), len(in), early)
			}
		})
	}
}
