package live

import (
	"math"
	"net/netip"
	"testing"
	"time"

	"jitterlab/proxy"
)

// feedCopies feeds n datagrams of a client up, read the gaps apart in
// turn and written with the delays in turn (so its relayed stream has
// |D| = the spread of delays between consecutive copies); it returns the
// time of the next read.
func feedCopies(f *packetFeed, flow proxy.FlowID, addr netip.AddrPort, t time.Time, n int, gaps []time.Duration, delays ...time.Duration) time.Time {
	for i := range n {
		d := delays[i%len(delays)]
		f.OnPacket(&proxy.PacketEvent{Read: true, In: t, Dir: proxy.Up, Flow: flow, Addr: addr, Size: 40,
			Send: proxy.Outcome{Kept: true, Copies: 1}})
		f.OnPacket(&proxy.PacketEvent{In: t, Out: t.Add(d), Dir: proxy.Up, Flow: flow, Addr: addr, Size: 40, Fate: proxy.FateDelivered, Delay: d})
		t = t.Add(gaps[i%len(gaps)])
	}
	return t
}

// A client that went quiet leaves the screen's realised jitter (qa2): its
// last reading stayed in the jitter of everybody's link, weighted by all
// the copies it ever had, and in the game's arrival jitter, so with the
// jitter set to 0 and one client still sending the box showed 2.6 ms (a
// quiet client's ±10 ms reading). Here client A sends 10 and 30 ms apart
// and its copies alternate 40 and 50 ms (|D| = 10 ms) for 2 s, then it
// stops; B sends every 20 ms and its copies keep 40 ms. Two seconds on,
// the figures are B's alone; with nobody sending, nothing is measured.
func TestAQuietClientLeavesTheRealisedJitter(t *testing.T) {
	f := newPacketFeed()
	a, b := netip.MustParseAddrPort("127.0.0.1:5001"), netip.MustParseAddrPort("127.0.0.1:5002")
	ms := time.Millisecond
	t0, every20 := time.Unix(1000, 0), []time.Duration{20 * ms}
	feedCopies(f, 1, a, t0, 100, []time.Duration{10 * ms, 30 * ms}, 40*ms, 50*ms)
	tb := feedCopies(f, 2, b, t0.Add(3*ms), 100, every20, 40*ms)
	if _, arrival := f.take(proxy.Up, tb); arrival < 3 {
		t.Fatalf("both clients sending: want A's 10 ms in the arrival jitter, got %.3f ms", arrival)
	}
	if j := f.links(tb)[0].Up.JitterMs; j < 3 {
		t.Fatalf("both clients sending: want A's 10 ms |D| in the realised jitter, got %.3f ms", j)
	}
	// A quiet: B alone for 2 s.
	tb = feedCopies(f, 2, b, tb, 100, every20, 40*ms)
	_, arrival := f.take(proxy.Up, tb)
	if j := f.links(tb)[0].Up.JitterMs; math.IsNaN(j) || j > 0.001 {
		t.Errorf("A quiet, B's copies all 40 ms late: want the realised jitter 0, got %.3f ms", j)
	}
	if math.IsNaN(arrival) || arrival > 0.001 {
		t.Errorf("A quiet, B sending every 20 ms: want the arrival jitter 0, got %.3f ms", arrival)
	}
	// Nobody sending for 2 s: nothing measured.
	if _, arrival := f.take(proxy.Up, tb.Add(2*time.Second)); !math.IsNaN(arrival) {
		t.Errorf("nobody sending: want the arrival jitter not measured (NaN), got %.3f ms", arrival)
	}
	if j := f.links(tb.Add(2 * time.Second))[0].Up.JitterMs; !math.IsNaN(j) {
		t.Errorf("nobody sending: want the realised jitter not measured (NaN), got %.3f ms", j)
	}
}
