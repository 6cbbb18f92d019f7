package proxy

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"jitterlab/netem"
	"jitterlab/sim"
)

func port(p uint16) netip.AddrPort { return netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), p) }

func newCore(t *testing.T, up, down netem.Params, l Limits) *Core {
	t.Helper()
	c, err := NewCore(1, up, down, l)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A flow with no packet in either direction for the idle timeout is
// removed, its socket released, and counted; the same address later is a
// new flow.
func TestIdleFlowsExpire(t *testing.T) {
	l := DefaultLimits()
	l.IdleTimeout = time.Second
	c := newCore(t, netem.Params{}, netem.Params{}, l)
	a, _, _ := c.Flow(0, port(5000))
	b, _, _ := c.Flow(0, port(5001))
	c.Send(sim.Time(600*ms), b, Down, []byte("reply")) // a reply keeps b alive
	c.Expire(sim.Time(999 * ms))
	if got := c.TakeRemoved(nil); len(got) != 0 {
		t.Fatalf("removed %v before the idle timeout", got)
	}
	c.Expire(sim.Time(time.Second))
	if got := c.TakeRemoved(nil); len(got) != 1 || got[0] != a {
		t.Fatalf("removed %v at the idle timeout, want flow %d", got, a)
	}
	if _, ok := c.Addr(a); ok {
		t.Fatal("an expired flow still has an address")
	}
	again, isNew, _ := c.Flow(sim.Time(1500*ms), port(5000))
	if !isNew || again == a {
		t.Fatal("a client coming back after expiry is a new flow")
	}
	if st := c.Stats(); st.Expired != 1 || st.Flows != 2 || st.FlowsSeen != 3 {
		t.Fatalf("stats %+v", st)
	}
}

// 64 source ports must not lock out the 65th client: a full table evicts
// the flow whose last packet is the oldest, and counts it.
func TestFullTableEvictsTheLongestIdle(t *testing.T) {
	l := DefaultLimits()
	c := newCore(t, netem.Params{Latency: time.Minute}, netem.Params{}, l)
	var first FlowID
	for i := range l.MaxFlows {
		id, _, err := c.Flow(sim.Time(i), port(uint16(5000+i)))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = id
		}
	}
	// The first client is the oldest by creation but talks again; the
	// second is now the longest idle.
	c.Send(sim.Time(100), first, Up, []byte("still here"))
	second, _, _ := c.Flow(sim.Time(100), port(5001))
	c.Send(sim.Time(1), second, Up, []byte("in flight"))
	c.TakeRemoved(nil)
	id, isNew, err := c.Flow(sim.Time(200), port(6000))
	if err != nil || !isNew {
		t.Fatalf("client %d refused: %v", l.MaxFlows+1, err)
	}
	if got := c.TakeRemoved(nil); len(got) != 1 || got[0] == first {
		t.Fatalf("evicted %v; want one flow, not the one that talked last", got)
	}
	if _, ok := c.Addr(id); !ok {
		t.Fatal("the new client has no flow")
	}
	st := c.Stats()
	if st.Evicted != 1 || st.Flows != l.MaxFlows {
		t.Fatalf("stats %+v", st)
	}
	// Flow 5001 was touched by Flow() at 100 and is not the oldest; 5002 is.
	if _, ok := c.Addr(second); !ok {
		t.Fatal("evicted a client that was seen at 100 instead of the one last seen at 2")
	}
}

// The payloads held per flow and direction are capped in datagrams and
// bytes, and across flows in bytes; what does not fit is dropped before
// the link and counted, so latency × load cannot grow memory.
func TestInFlightLimitDropsAndCounts(t *testing.T) {
	l := DefaultLimits()
	l.FlowPackets = 10
	l.FlowBytes = MaxPacket
	l.TotalBytes = MaxPacket + 1000
	c := newCore(t, netem.Params{Latency: time.Minute}, netem.Params{Latency: time.Minute}, l)
	a, _, _ := c.Flow(0, port(5000))
	for range 15 {
		c.Send(0, a, Up, make([]byte, 100))
	}
	st := c.Stats()
	if st.Up.Sent != 10 || st.Up.Overflow != 5 || st.Up.InFlight != 10 || st.HeldBytes != 1000 {
		t.Fatalf("datagram limit: %+v", st)
	}
	// The other direction has its own limit.
	c.Send(0, a, Down, make([]byte, MaxPacket-100))
	c.Send(0, a, Down, make([]byte, 101)) // over the flow's bytes
	if st := c.Stats(); st.Down.Sent != 1 || st.Down.Overflow != 1 {
		t.Fatalf("byte limit: %+v", st.Down)
	}
	// Another flow is capped by what all flows hold together.
	b, _, _ := c.Flow(0, port(5001))
	c.Send(0, b, Up, make([]byte, 100))
	c.Send(0, b, Up, make([]byte, 1))
	if st := c.Stats(); st.Up.Overflow != 6 || st.HeldBytes != l.TotalBytes {
		t.Fatalf("total limit: held %d, %+v", st.HeldBytes, st.Up)
	}
	// Releasing makes room again.
	c.Due(sim.Time(time.Minute), nil)
	c.Send(sim.Time(time.Minute), a, Up, make([]byte, 100))
	if st := c.Stats(); st.Up.Sent != 12 || st.HeldBytes != 100 {
		t.Fatalf("after release: held %d, %+v", st.HeldBytes, st.Up)
	}
}

// A removed flow's copies in flight are discarded and counted, never
// delivered to whoever gets the address or the ID next; a datagram still
// arriving for it is discarded too.
func TestRemovedFlowDeliversNothing(t *testing.T) {
	l := DefaultLimits()
	l.IdleTimeout = time.Second
	c := newCore(t, netem.Params{Latency: 2 * time.Second}, netem.Params{}, l)
	a, _, _ := c.Flow(0, port(5000))
	c.Send(0, a, Up, []byte("x"))
	c.Expire(sim.Time(time.Second))
	b, _, _ := c.Flow(sim.Time(time.Second), port(5000))
	c.Send(sim.Time(time.Second), a, Down, []byte("late reply"))
	if got := c.Due(sim.Time(10*time.Second), nil); len(got) != 0 {
		t.Fatalf("delivered %+v for a removed flow (new flow %d)", got, b)
	}
	if st := c.Stats(); st.Up.Discarded != 1 || st.Down.Discarded != 1 || st.HeldBytes != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestLimitsValidate(t *testing.T) {
	for _, bad := range []func(*Limits){
		func(l *Limits) { l.MaxFlows = 0 },
		func(l *Limits) { l.IdleTimeout = 0 },
		func(l *Limits) { l.FlowPackets = 0 },
		func(l *Limits) { l.FlowBytes = 100 },
		func(l *Limits) { l.TotalBytes = l.FlowBytes - 1 },
	} {
		l := DefaultLimits()
		bad(&l)
		if _, err := NewCore(1, netem.Params{}, netem.Params{}, l); err == nil {
			t.Errorf("limits %+v accepted", l)
		}
	}
}

func netipMust(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

// BenchmarkCoreSendDue is the scheduling core's share: one datagram handed
// to a flow's link and released, without sockets.
func BenchmarkCoreSendDue(b *testing.B) {
	c, err := NewCore(1, netem.Params{Latency: 20 * ms}, netem.Params{}, DefaultLimits())
	if err != nil {
		b.Fatal(err)
	}
	id, _, err := c.Flow(0, port(5000))
	if err != nil {
		b.Fatal(err)
	}
	payload := make([]byte, 64)
	var due []Delivery
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		now := sim.Time(i) * sim.Time(100*time.Microsecond)
		c.Send(now, id, Up, payload)
		due = c.Due(now, due[:0])
	}
}

// The kernel may stamp two datagrams queued on one socket a microsecond
// out of their queue order (seen under a flood). The later-read one cannot
// have arrived first: on a link of fixed delay the two leave in the order
// they were read and neither counts as reordered.
func TestStampsOutOfReadOrderDoNotReorder(t *testing.T) {
	c := newCore(t, netem.Params{Latency: 5 * time.Millisecond}, netem.Params{}, DefaultLimits())
	id, _, _ := c.Flow(0, port(5000))
	first, second := []byte("first"), []byte("second")
	c.Send(sim.Time(10*ms), id, Up, first)
	c.Send(sim.Time(10*ms-time.Microsecond), id, Up, second)
	due := c.Due(sim.Time(20*ms), nil)
	if len(due) != 2 || string(due[0].Payload) != "first" || string(due[1].Payload) != "second" || due[0].Reordered || due[1].Reordered {
		t.Fatalf("released %+v, want first then second, neither reordered", due)
	}
	if st := c.Stats(); st.Up.Reordered != 0 {
		t.Fatalf("counted %d reordered", st.Up.Reordered)
	}
}

// churn runs two seconds of a 50 Hz game client on port 4000, answered
// each time, beside one host that opens a new port every 200 µs from
// 100 ms on; each new port the table takes gets talk. It fails t when the
// game's flow is evicted, and returns how many new ports were refused
// (ErrFull).
func churn(t *testing.T, c *Core, talk func(now sim.Time, id FlowID)) (refused int) {
	t.Helper()
	game, _, _ := c.Flow(0, port(4000))
	next := uint16(10000)
	for us := 0; us < 2_000_000; us += 200 {
		now := sim.Time(time.Duration(us) * time.Microsecond)
		if us%20_000 == 0 {
			id, isNew, _ := c.Flow(now, port(4000))
			if id != game || isNew {
				t.Fatalf("at %v the game client was evicted (flow %d, was %d) by %d churned ports", now, id, game, next-10000)
			}
			c.Send(now, id, Up, []byte("input"))
			c.Send(now, id, Down, []byte("state"))
		}
		if us < 100_000 { // the game talks alone for its first 100 ms
			continue
		}
		id, _, err := c.Flow(now, port(next))
		next++
		if errors.Is(err, ErrFull) {
			refused++
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		talk(now, id)
	}
	return refused
}

// Source-port churn (issue 27.17): one host opening 5,000 new ports a
// second, each answered by the server, must not evict a 50 Hz client in
// a conversation. As Linux's conntrack does for UDP, a flow that got a
// reply and then sent again is assured: a full table evicts the longest
// idle of the flows that are not, and an assured one only when every
// flow is.
func TestPortChurnDoesNotEvictAnActiveClient(t *testing.T) {
	l := DefaultLimits()
	l.MaxFlows = 16
	c := newCore(t, netem.Params{}, netem.Params{}, l)
	churn(t, c, func(now sim.Time, id FlowID) {
		c.Send(now, id, Up, []byte("probe"))
		c.Send(now, id, Down, []byte("echo")) // the server answers every port
	})
	if st := c.Stats(); st.Evicted < 9000-16 {
		t.Fatalf("evicted %d; want the churned ports evicting one another", st.Evicted)
	}
	// With every flow assured, the longest idle goes once it has been
	// idle for ActiveWindow; before, the new client is refused.
	l.MaxFlows = 2
	c = newCore(t, netem.Params{}, netem.Params{}, l)
	for i, p := range []uint16{1, 2} {
		id, _, _ := c.Flow(sim.Time(i), port(p))
		c.Send(sim.Time(i), id, Down, []byte("reply"))
		c.Send(sim.Time(i), id, Up, []byte("again"))
	}
	if _, _, err := c.Flow(sim.Time(ActiveWindow)-1, port(3)); !errors.Is(err, ErrFull) {
		t.Errorf("every flow assured and active: %v; want ErrFull", err)
	}
	c.Flow(sim.Time(ActiveWindow), port(3))
	if _, ok := c.Addr(1); ok {
		t.Error("every flow assured: the longest idle (the first), idle a second, stays")
	}
	if _, ok := c.Addr(2); !ok {
		t.Error("every flow assured: the second, active, was evicted")
	}
}

// Source-port churn of conversations (issue 27.17, what assurance alone
// left): one host opening 5,000 new ports a second, each answered and
// talking on (so each assured), evicted a 50 Hz client after 20 ms. A full
// table evicts an assured flow only once it has been idle for
// ActiveWindow, and otherwise refuses the new client (ErrFull), as
// conntrack drops a new connection rather than an assured one.
func TestPortChurnOfConversationsDoesNotEvictAnActiveClient(t *testing.T) {
	l := DefaultLimits()
	l.MaxFlows = 16
	c := newCore(t, netem.Params{}, netem.Params{}, l)
	refused := churn(t, c, func(now sim.Time, id FlowID) {
		c.Send(now, id, Up, []byte("probe"))
		c.Send(now, id, Down, []byte("echo")) // the server answers every port
		c.Send(now, id, Up, []byte("again"))  // and the port talks on: assured
	})
	// The 15 free places filled at 100 ms; those 15 idle a second at
	// 1.1 s and are evicted by the next 15 ports; the other ports are
	// refused.
	if st := c.Stats(); st.Evicted != 15 || st.Refused != uint64(refused) || refused != 9500-30 {
		t.Fatalf("evicted %d, refused %d (counted %d); want 15 evicted, 9470 refused", st.Evicted, refused, st.Refused)
	}
	// Once the churned ports have been idle a second, a new client
	// (another host's or the same's) gets in.
	other := netip.AddrPortFrom(netip.MustParseAddr("192.0.2.7"), 5000)
	if _, isNew, err := c.Flow(sim.Time(3*time.Second), other); err != nil || !isNew {
		t.Fatalf("a new client after the churn: %v", err)
	}
}
