package live

import (
	"maps"
	"math"
	"net/netip"
	"slices"
	"sync"
	"time"

	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
)

// maxFeedDelays bounds the delays kept between two snapshots per
// direction (the chart draws each column's range: more add nothing).
const maxFeedDelays = 1 << 13

// maxFeedFlows bounds the clients whose arrivals the feed follows; beyond,
// it starts over (memory stays bounded whatever addresses send).
const maxFeedFlows = 1024

// packetFeed takes the relay's packet events for the proxy screen: the
// delays added to the copies written since the last snapshot, the jitter
// of each client's stream as it reaches the proxy, and the counters of
// each link (everybody's, and each client's with settings of its own),
// so that the screen compares each link's settings with its own traffic.
type packetFeed struct {
	mu     sync.Mutex
	delays [2][]float64
	flows  [2]map[proxy.FlowID]*arrivals
	// The links: everybody's and, by address, the clients' own (the
	// clients with settings of their own, as the conditions apply them).
	everybody linkFeed
	own       map[netip.AddrPort]*linkFeed
}

// linkFeed is one link's counters since it began, per direction.
type linkFeed [2]linkDir

type linkDir struct {
	in, delivered, lost, duplicated, reordered, bursts, bytes uint64
	delays                                                    []float64 // since the last snapshot
}

// arrivals is one client stream's RFC 3550 jitter as it arrives, taking
// its mean interval (a running mean) for the interval it was sent at, and
// the RFC 3550 jitter of the relayed stream (its transit through the
// proxy).
type arrivals struct {
	last           time.Time
	meanGap, jitMs float64 // ms
	n              int
	addr           netip.AddrPort
	lostLast       bool    // the latest original was lost by the link
	transit        float64 // ns, the latest copy written's
	transitJitNs   float64
	written        uint64
	lastOut        time.Time // the latest copy written's
}

// quietAfter is how long a client's stream may send nothing before its
// last jitter reading leaves the screen's figures (the pkt/s's span).
const quietAfter = time.Second

func newPacketFeed() *packetFeed {
	return &packetFeed{flows: [2]map[proxy.FlowID]*arrivals{{}, {}}, own: map[netip.AddrPort]*linkFeed{}}
}

// applied follows the conditions (called with their lock held, never
// with the relay's): a client given settings of its own gets a link of its
// own, counted from now, and one put back on everybody's leaves it.
func (f *packetFeed) applied(a proxyctl.Applied) {
	if !a.Flow.IsValid() {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch _, had := f.own[a.Flow]; {
	case a.Cleared:
		delete(f.own, a.Flow)
	case !had && len(f.own) < maxFeedFlows:
		f.own[a.Flow] = &linkFeed{}
	}
}

// link is the link a client's packets are on now.
func (f *packetFeed) link(addr netip.AddrPort) *linkFeed {
	if l := f.own[addr]; l != nil {
		return l
	}
	return &f.everybody
}

// OnPacket is the relay's hook (called with its lock held: quick, and no
// call back into the relay).
func (f *packetFeed) OnPacket(e *proxy.PacketEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.flows[e.Dir]
	a := m[e.Flow]
	if a == nil {
		if len(m) >= maxFeedFlows {
			clear(m)
		}
		a = &arrivals{addr: e.Addr}
		m[e.Flow] = a
	}
	l := &f.link(e.Addr)[e.Dir]
	switch {
	case e.Read:
		if a.n > 0 {
			gap := float64(e.In.Sub(a.last)) / 1e6
			if a.n == 1 {
				a.meanGap = gap
			}
			a.meanGap += (gap - a.meanGap) / 16
			a.jitMs += (math.Abs(gap-a.meanGap) - a.jitMs) / 16
		}
		a.last = e.In
		a.n++
		l.in++
		if e.Send.Copies == 2 {
			l.duplicated++
		}
		lost := e.Send.Copy[0] == proxy.FateLost // a run of lost originals, as the relay's LossBursts
		if lost && !a.lostLast {
			l.bursts++
		}
		a.lostLast = lost
	case e.Fate == proxy.FateLost || e.Fate == proxy.FateQueueDropped:
		l.lost++
	case e.Fate == proxy.FateDelivered:
		l.delivered++
		l.bytes += uint64(e.Size)
		if e.Reordered {
			l.reordered++
		}
		transit := float64(e.Delay)
		if a.written > 0 {
			a.transitJitNs += (math.Abs(transit-a.transit) - a.transitJitNs) / 16
		}
		a.transit = transit
		a.written++
		a.lastOut = e.Out
		if len(f.delays[e.Dir]) < maxFeedDelays {
			f.delays[e.Dir] = append(f.delays[e.Dir], float64(e.Delay)/1e6)
		}
		if len(l.delays) < maxFeedDelays {
			l.delays = append(l.delays, float64(e.Delay)/1e6)
		}
	}
}

// take hands over a direction's delays since the last call (empty, not
// nil, when there are none: the feed measures them) and the mean arrival
// jitter of its streams that read a datagram within quietAfter of now
// (NaN when none has two intervals).
func (f *packetFeed) take(d proxy.Dir, now time.Time) (delays []float64, jitterMs float64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delays = f.delays[d]
	if delays == nil {
		delays = []float64{}
	}
	f.delays[d] = nil
	var sum float64
	n := 0
	for _, a := range f.flows[d] {
		if a.n > 2 && now.Sub(a.last) <= quietAfter {
			sum += a.jitMs
			n++
		}
	}
	if n == 0 {
		return delays, math.NaN()
	}
	return delays, sum / float64(n)
}

// transitJitter is the relayed stream's jitter on link l (nil: every
// link), per client, weighted by copies (as the relay's audit), of the
// clients that wrote a copy within quietAfter of now: a client gone quiet
// leaves its last reading behind (NaN: none).
func (f *packetFeed) transitJitter(d proxy.Dir, l *linkFeed, now time.Time) float64 {
	var sum, n float64
	for _, a := range f.flows[d] {
		if a.written > 1 && now.Sub(a.lastOut) <= quietAfter && (l == nil || f.link(a.addr) == l) {
			sum += a.transitJitNs * float64(a.written)
			n += float64(a.written)
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / n / 1e6
}

// jitter is the relayed stream's jitter of every client that wrote a
// copy within quietAfter of now (NaN: none), as transitJitter.
func (f *packetFeed) jitter(d proxy.Dir, now time.Time) float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.transitJitter(d, nil, now)
}

// links hands over each link's counters, and its delays since the last
// call: everybody's first, then the clients' own in address order.
func (f *packetFeed) links(now time.Time) []Group {
	f.mu.Lock()
	defer f.mu.Unlock()
	addrs := slices.SortedFunc(maps.Keys(f.own), netip.AddrPort.Compare)
	out := make([]Group, 0, 1+len(addrs))
	group := func(addr netip.AddrPort, l *linkFeed) Group {
		g := Group{}
		if addr.IsValid() {
			g.Addr = addr.String()
		}
		for d, pd := range []*Dir{&g.Up, &g.Down} {
			ld := &l[d]
			*pd = Dir{In: ld.in, Delivered: ld.delivered, Lost: ld.lost, Duplicated: ld.duplicated, Reordered: ld.reordered,
				Bytes: int64(ld.bytes), LossBursts: int64(ld.bursts), DelaysMs: ld.delays, JitterMs: math.NaN(), ArrivalJitterMs: math.NaN()}
			if pd.DelaysMs == nil {
				pd.DelaysMs = []float64{}
			}
			ld.delays = nil
			pd.JitterMs = f.transitJitter(proxy.Dir(d), l, now)
		}
		return g
	}
	out = append(out, group(netip.AddrPort{}, &f.everybody))
	for _, a := range addrs {
		out = append(out, group(a, f.own[a]))
	}
	return out
}
