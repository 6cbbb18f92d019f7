package proxy

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"jitterlab/netem"
	"jitterlab/sim"
)

// Dir is a direction through the proxy.
type Dir uint8

const (
	Up   Dir = iota // game client → server
	Down            // server → game client
)

// MaxPacket is the largest datagram relayed.
const MaxPacket = 65535

// FlowID names one client address for as long as the core relays for it.
// IDs are never reused: a client that comes back after its flow was
// removed gets a new flow (and new links) with a new ID.
type FlowID uint64

// Limits bound what the core holds, so memory does not grow with latency ×
// load or with the number of client addresses:
//
//   - at most MaxFlows flows; a new client beyond that evicts the flow whose
//     last packet is the oldest (the longest idle) among those not assured,
//     and an assured one only when every flow is and it has been idle for
//     ActiveWindow; when every flow is assured and active, the new client
//     is refused ([ErrFull]). A flow is assured, as Linux's conntrack says
//     of UDP, once it got a reply and sent again: a conversation, which one
//     host opening new ports by the thousand (each answered or not, each
//     talking on or not) cannot push out while it talks at least once an
//     ActiveWindow; conntrack likewise drops a new connection rather than
//     an assured one;
//   - a flow with no packet in either direction for IdleTimeout is removed;
//   - per flow and direction, at most FlowPackets datagrams and FlowBytes
//     payload bytes are held between arrival and release; across all flows at
//     most TotalBytes. A datagram that would exceed a limit is dropped and
//     counted in [Counters].Overflow, before the link model sees it.
//
// The payloads held are therefore at most min(TotalBytes, MaxFlows × 2 ×
// FlowBytes) bytes and MaxFlows × 2 × FlowPackets datagrams.
type Limits struct {
	MaxFlows    int
	IdleTimeout time.Duration
	FlowPackets int
	FlowBytes   int
	TotalBytes  int
}

// DefaultLimits: 64 clients; 2 minutes idle (Linux conntrack's UDP stream
// timeout); 1000 datagrams (netem's default limit) and 1 MiB per flow and
// direction; 64 MiB in all.
func DefaultLimits() Limits {
	return Limits{MaxFlows: 64, IdleTimeout: 2 * time.Minute, FlowPackets: 1000, FlowBytes: 1 << 20, TotalBytes: 64 << 20}
}

// ActiveWindow is how recently an assured flow must have had a packet for
// a full table to refuse a new client rather than evict it.
const ActiveWindow = time.Second

// Ranges the limits may take.
const (
	MaxMaxFlows    = 4096
	MinIdleTimeout = 100 * time.Millisecond
	MaxIdleTimeout = 24 * time.Hour
	MaxFlowPackets = 1 << 20
	MaxFlowBytes   = 1 << 30
)

// Validate reports the first limit out of range, naming the field.
func (l Limits) Validate() error {
	switch {
	case l.MaxFlows < 1 || l.MaxFlows > MaxMaxFlows:
		return fmt.Errorf("MaxFlows %d: allowed 1 to %d", l.MaxFlows, MaxMaxFlows)
	case l.IdleTimeout < MinIdleTimeout || l.IdleTimeout > MaxIdleTimeout:
		return fmt.Errorf("IdleTimeout %v: allowed %v to %v", l.IdleTimeout, MinIdleTimeout, MaxIdleTimeout)
	case l.FlowPackets < 1 || l.FlowPackets > MaxFlowPackets:
		return fmt.Errorf("FlowPackets %d: allowed 1 to %d", l.FlowPackets, MaxFlowPackets)
	case l.FlowBytes < MaxPacket || l.FlowBytes > MaxFlowBytes:
		return fmt.Errorf("FlowBytes %d: allowed %d (one largest datagram) to %d", l.FlowBytes, MaxPacket, MaxFlowBytes)
	case l.TotalBytes < l.FlowBytes:
		return fmt.Errorf("TotalBytes %d: allowed at least FlowBytes (%d)", l.TotalBytes, l.FlowBytes)
	}
	return nil
}

// Delivery is a datagram whose time has come: send it on.
type Delivery struct {
	Flow    FlowID
	Addr    netip.AddrPort // the flow's client
	Dir     Dir
	Payload []byte
	Arrived sim.Time // when the datagram reached the proxy (Send's now)
	Due     sim.Time // when the link releases this copy
	// Last: the core holds the payload no longer; the caller may reuse it
	// once written. False while another copy (a duplicate) is still due.
	Last bool
	// Copy is 0 for the original, 1 for the link's duplicate; Reordered:
	// it is released after a datagram sent later than it.
	Copy      int
	Reordered bool
}

// Fate is what became of one copy of a datagram at the proxy.
type Fate uint8

const (
	FateDelivered    Fate = iota // written out
	FateLost                     // dropped by the link's loss model
	FateQueueDropped             // dropped at the link's queue limit
	FateOverflow                 // dropped at the flow's in-flight limit
	FateDiscarded                // its flow was removed
	FateWriteFailed              // released, but the socket refused it
	FateScheduled                // in [Outcome].Copy: held until its release
)

var fateNames = [...]string{"delivered", "lost", "queue-dropped", "over-limit", "discarded", "write-failed", "scheduled"}

func (f Fate) String() string {
	if int(f) < len(fateNames) {
		return fateNames[f]
	}
	return "fate(" + strconv.Itoa(int(f)) + ")"
}

// Outcome is what Send did with a datagram: whether the core keeps the
// payload (it is scheduled) and the copies it dropped at once.
type Outcome struct {
	Kept  bool
	Drops int     // copies dropped now
	Drop  [2]Fate // their fates, Drop[:Drops]
	// Every copy, for captures: Copies is 1, or 2 when the link made a
	// duplicate; Copy[i] is copy i's fate (FateScheduled, released
	// Delay[i] after Send's now, or its drop).
	Copies int
	Copy   [2]Fate
	Delay  [2]time.Duration
}

// Counters are one direction's totals over every flow, past and present.
// They balance:
//
//	Received + Duplicated = Overflow + Lost + QueueDropped + Discarded + Released + InFlight
//
// and the relay splits Released into Delivered + WriteFailed.
type Counters struct {
	Received      uint64 // datagrams handed to the core
	KernelDropped uint64 // dropped by the kernel at the proxy's socket before it read them (set by the relay)
	Overflow      uint64 // dropped at the flow's in-flight limit
	Sent          uint64 // handed to the link model (originals)
	Duplicated    uint64 // extra copies the link made
	Lost          uint64 // copies dropped by the link's loss model
	QueueDropped  uint64 // copies dropped at the link's queue limit
	Discarded     uint64 // copies in flight (or arriving) when their flow was removed
	Released      uint64 // copies whose delivery time came
	WriteFailed   uint64 // released copies the socket refused (set by the relay)
	Delivered     uint64 // released copies written out (set by the relay)
	Reordered     uint64 // released copies that overtook a later-sent one
	InFlight      uint64 // copies scheduled and not yet released

	LostOriginals uint64 // originals (not duplicates) the loss model dropped
	LossBursts    uint64 // runs of consecutive lost originals within a flow
}

// MeanBurst is the mean length of a run of lost originals, or 0.
func (c Counters) MeanBurst() float64 {
	if c.LossBursts == 0 {
		return 0
	}
	return float64(c.LostOriginals) / float64(c.LossBursts)
}

// Dropped is every datagram or copy that did not arrive: the link's own
// losses and the proxy's.
func (c Counters) Dropped() uint64 {
	return c.KernelDropped + c.Overflow + c.Lost + c.QueueDropped + c.Discarded + c.WriteFailed
}

// held is a payload in flight and how many of its copies are still due.
type held struct {
	payload []byte
	copies  int
	at      sim.Time // arrival
}

// side is one direction of a flow: its link and the payloads it holds.
type side struct {
	link     *netem.Link
	payloads map[uint64]held
	bytes    int
	c        FlowCounters
	lossRun  bool     // the last original sent was lost
	lastSent sim.Time // the latest datagram's time: a link's time never goes back
}

// FlowCounters are one direction of one flow: what the core saw of it.
type FlowCounters struct {
	Received   uint64 // datagrams handed to the core
	Overflow   uint64 // dropped at the in-flight limit
	LostOrig   uint64 // originals (not duplicates) lost by the loss model
	LossBursts uint64 // runs of consecutive lost originals
	Released   uint64 // copies released
}

// flow is one game client: its address and its two links.
type flow struct {
	id       FlowID
	addr     netip.AddrPort
	sides    [2]side
	lastSeen sim.Time // last packet in either direction
	removed  bool
	replied  bool // a datagram came back from the server
	assured  bool // and the client sent again after it
}

// Core is the relay's scheduling state: the flows, their links and the
// payloads in flight. It never reads a clock: every method takes the time.
// It is not safe for concurrent use; one goroutine owns it.
type Core struct {
	seed     uint64
	up, down netem.Params
	limits   Limits

	flows     map[FlowID]*flow
	byAddr    map[netip.AddrPort]*flow
	overrides map[netip.AddrPort][2]netem.Params // per-client links
	nextFlw   FlowID
	nextID    uint64
	held      int // payload bytes held across flows
	minDelay  [2]time.Duration

	q     sim.Queue[qitem]
	stale int // queue entries of removed flows

	removed         []FlowID
	retired         [2]netem.Counters // link counters of removed flows
	retiredFlow     [2]FlowCounters   // the core's counts of removed flows
	c               [2]Counters       // the core's own counts
	expired, evictd uint64
	refused         uint64
}

type qitem struct {
	f   *flow
	dir Dir
}

// NewCore returns a core whose links use these parameters; the k-th client
// (from 0) draws from the streams "proxy.<k>.up" and "proxy.<k>.down" of
// seed.
func NewCore(seed uint64, up, down netem.Params, limits Limits) (*Core, error) {
	if err := up.Validate("up"); err != nil {
		return nil, err
	}
	if err := down.Validate("down"); err != nil {
		return nil, err
	}
	if err := limits.Validate(); err != nil {
		return nil, err
	}
	c := &Core{seed: seed, up: up, down: down, limits: limits,
		flows: map[FlowID]*flow{}, byAddr: map[netip.AddrPort]*flow{}, overrides: map[netip.AddrPort][2]netem.Params{}}
	c.boundDelays()
	return c, nil
}

// ErrFull is [Core.Flow]'s refusal of a new client when the table is
// full of clients in a conversation, each active in the last ActiveWindow.
var ErrFull = errors.New("the client table is full of clients in a conversation, each active in the last second")

// Flow returns the flow of a client address at now, creating it (isNew).
// Creating one beyond Limits.MaxFlows first evicts the longest idle flow
// not assured, or when every flow is, the longest idle if it has been idle
// for ActiveWindow; otherwise it refuses the new client with [ErrFull]
// (see [Limits]).
// Removed flows are reported by [Core.TakeRemoved].
func (c *Core) Flow(now sim.Time, addr netip.AddrPort) (id FlowID, isNew bool, err error) {
	if f, ok := c.byAddr[addr]; ok {
		f.lastSeen = max(f.lastSeen, now)
		return f.id, false, nil
	}
	c.Expire(now)
	if len(c.flows) >= c.limits.MaxFlows {
		var oldest *flow
		for _, f := range c.flows {
			if oldest == nil || evictFirst(f, oldest) {
				oldest = f
			}
		}
		if oldest.assured && now.Sub(oldest.lastSeen) < ActiveWindow {
			c.refused++
			return 0, false, ErrFull
		}
		c.remove(oldest)
		c.evictd++
	}
	c.nextFlw++
	f := &flow{id: c.nextFlw, addr: addr, lastSeen: now}
	name := "proxy." + strconv.FormatUint(uint64(f.id-1), 10)
	params := [2]netem.Params{c.up, c.down}
	if o, ok := c.overrides[addr]; ok {
		params = o
	}
	for d, p := range params {
		l, err := netem.New(c.seed, name+"."+Dir(d).String(), p)
		if err != nil {
			return 0, false, err
		}
		f.sides[d] = side{link: l, payloads: map[uint64]held{}}
	}
	c.flows[f.id] = f
	c.byAddr[addr] = f
	return f.id, true, nil
}

// evictFirst says whether a full table evicts f before g: a flow not
// assured before an assured one, then the longest idle, then the older.
func evictFirst(f, g *flow) bool {
	if f.assured != g.assured {
		return !f.assured
	}
	return f.lastSeen < g.lastSeen || f.lastSeen == g.lastSeen && f.id < g.id
}

// Expire removes the flows with no packet for Limits.IdleTimeout at now.
func (c *Core) Expire(now sim.Time) {
	for _, f := range c.flows {
		if now.Sub(f.lastSeen) >= c.limits.IdleTimeout {
			c.remove(f)
			c.expired++
		}
	}
}

// remove drops a flow: its payloads are freed, its copies in flight
// counted as discarded, and its link counters kept in the totals.
func (c *Core) remove(f *flow) {
	for d := range f.sides {
		s := &f.sides[d]
		n := s.link.InFlight()
		c.c[d].Discarded += uint64(n)
		c.stale += n
		c.held -= s.bytes
		addLink(&c.retired[d], s.link.Counters())
		c.retiredFlow[d].add(s.c)
		s.payloads, s.bytes = nil, 0
	}
	f.removed = true
	delete(c.flows, f.id)
	delete(c.byAddr, f.addr)
	c.removed = append(c.removed, f.id)
	// Removed flows leave entries in the queue until their time; compact
	// once they are the majority so the queue stays bounded by the live
	// copies in flight.
	if c.stale > 1024 && c.stale > c.q.Len()/2 {
		var live sim.Queue[qitem]
		for {
			at, it, ok := c.q.Pop()
			if !ok {
				break
			}
			if !it.f.removed {
				live.Push(at, it)
			}
		}
		c.q, c.stale = live, 0
	}
}

// TakeRemoved appends the flows removed since the last call to out (the
// relay closes their sockets).
func (c *Core) TakeRemoved(out []FlowID) []FlowID {
	out = append(out, c.removed...)
	c.removed = c.removed[:0]
	return out
}

// Addr is a live flow's client address.
func (c *Core) Addr(id FlowID) (netip.AddrPort, bool) {
	f, ok := c.flows[id]
	if !ok {
		return netip.AddrPort{}, false
	}
	return f.addr, true
}

// Send hands a datagram to a flow's link at now. The core keeps payload
// (the caller must not reuse it) until its copies are released. A datagram
// for a removed flow is discarded; one beyond the flow's in-flight limits
// is dropped as overflow. Both are counted.
func (c *Core) Send(now sim.Time, id FlowID, d Dir, payload []byte) Outcome {
	cn := &c.c[d]
	cn.Received++
	f, ok := c.flows[id]
	if !ok {
		cn.Discarded++
		return Outcome{Drops: 1, Drop: [2]Fate{FateDiscarded}, Copies: 1, Copy: [2]Fate{FateDiscarded}}
	}
	f.lastSeen = max(f.lastSeen, now)
	if d == Down {
		f.replied = true
	} else if f.replied {
		f.assured = true
	}
	s := &f.sides[d]
	// Read after the one before it, it arrived no earlier, whatever the
	// kernel's stamps say (they can be a microsecond out of queue order).
	now = max(now, s.lastSent)
	s.lastSent = now
	s.c.Received++
	if len(s.payloads) >= c.limits.FlowPackets || s.bytes+len(payload) > c.limits.FlowBytes || c.held+len(payload) > c.limits.TotalBytes {
		cn.Overflow++
		s.c.Overflow++
		return Outcome{Drops: 1, Drop: [2]Fate{FateOverflow}, Copies: 1, Copy: [2]Fate{FateOverflow}}
	}
	c.nextID++
	res := s.link.Send(now, netem.Packet{ID: c.nextID, Size: len(payload)})
	lost := res.Fate[0] == netem.FateLost
	if lost {
		s.c.LostOrig++
		if !s.lossRun {
			s.c.LossBursts++
		}
	}
	s.lossRun = lost
	var out Outcome
	k := 0 // res.At lists the scheduled copies in order
	for i, fate := range res.Fate {
		switch fate {
		case netem.FateLost:
			out.Drop[out.Drops] = FateLost
			out.Drops++
			out.Copy[i] = FateLost
		case netem.FateQueueDropped:
			out.Drop[out.Drops] = FateQueueDropped
			out.Drops++
			out.Copy[i] = FateQueueDropped
		case netem.FateScheduled:
			out.Copy[i], out.Delay[i] = FateScheduled, time.Duration(res.At[k]-now)
			k++
		default:
			continue
		}
		out.Copies = i + 1
	}
	if res.Scheduled == 0 {
		return out
	}
	out.Kept = true
	s.payloads[c.nextID] = held{payload, res.Scheduled, now}
	s.bytes += len(payload)
	c.held += len(payload)
	for i := range res.Scheduled {
		c.q.Push(res.At[i], qitem{f, d})
	}
	return out
}

// Next is when the earliest release is due (possibly for a removed flow,
// which releases nothing).
func (c *Core) Next() (sim.Time, bool) { return c.q.Peek() }

// Due appends the deliveries due at or before now to out, in time order.
func (c *Core) Due(now sim.Time, out []Delivery) []Delivery {
	for {
		at, ok := c.q.Peek()
		if !ok || at > now {
			return out
		}
		_, it, _ := c.q.Pop()
		if it.f.removed {
			c.stale--
			continue
		}
		s := &it.f.sides[it.dir]
		dl, ok := s.link.Deliver(at)
		if !ok {
			continue
		}
		h := s.payloads[dl.ID]
		last := false
		if h.copies--; h.copies == 0 {
			delete(s.payloads, dl.ID)
			s.bytes -= len(h.payload)
			c.held -= len(h.payload)
			last = true
		} else {
			s.payloads[dl.ID] = h
		}
		c.c[it.dir].Released++
		s.c.Released++
		out = append(out, Delivery{Flow: it.f.id, Addr: it.f.addr, Dir: it.dir, Payload: h.payload, Arrived: h.at, Due: at, Last: last,
			Copy: dl.Copy, Reordered: dl.Reordered})
	}
}

// SetParams changes both directions of every flow, for packets sent from
// now on; new flows use them too.
func (c *Core) SetParams(up, down netem.Params) error {
	if err := up.Validate("up"); err != nil {
		return err
	}
	if err := down.Validate("down"); err != nil {
		return err
	}
	for _, f := range c.flows {
		if _, own := c.overrides[f.addr]; !own {
			f.sides[Up].link.SetParams(up, "up")
			f.sides[Down].link.SetParams(down, "down")
		}
	}
	c.up, c.down = up, down
	c.boundDelays()
	return nil
}

// MinDelay is a lower bound on the delay any link of the core gives a
// datagram in direction d sent now (the default link's and every client's
// own): latency less the most the jitter can take off (all of a uniform
// jitter, 0.58 of a Pareto one, nothing of an exponential one; normal
// jitter and reorder can send at once: 0). The relay may read a datagram
// this late without releasing it late, since the kernel stamped its
// arrival.
func (c *Core) MinDelay(d Dir) time.Duration { return c.minDelay[d] }

// boundDelays recomputes MinDelay after the links changed.
func (c *Core) boundDelays() {
	c.minDelay = [2]time.Duration{minDelay(c.up), minDelay(c.down)}
	for _, o := range c.overrides {
		for d := range o {
			c.minDelay[d] = min(c.minDelay[d], minDelay(o[d]))
		}
	}
}

func minDelay(p netem.Params) time.Duration {
	if p.Reorder > 0 {
		return 0
	}
	d := p.Latency
	if p.Jitter > 0 {
		switch p.JitterDist {
		case netem.Uniform:
			d -= p.Jitter
		case netem.Pareto:
			d -= p.Jitter * 58 / 100 // the standardised α=3 Pareto is at least −0.577
		case netem.Exponential:
		default:
			d = 0
		}
	}
	return max(d, 0)
}

// MaxOverrides bounds the client addresses with links of their own.
const MaxOverrides = 4096

// SetFlowParams gives the client at addr links of its own, from now on
// and whenever it comes back, instead of the defaults SetParams sets.
func (c *Core) SetFlowParams(addr netip.AddrPort, up, down netem.Params) error {
	if err := up.Validate("up"); err != nil {
		return err
	}
	if err := down.Validate("down"); err != nil {
		return err
	}
	if _, ok := c.overrides[addr]; !ok && len(c.overrides) >= MaxOverrides {
		return fmt.Errorf("flow %v: at most %d clients can have links of their own", addr, MaxOverrides)
	}
	c.overrides[addr] = [2]netem.Params{up, down}
	c.boundDelays()
	if f, ok := c.byAddr[addr]; ok {
		f.sides[Up].link.SetParams(up, "up")
		f.sides[Down].link.SetParams(down, "down")
	}
	return nil
}

// ClearFlowParams puts the client at addr back on the default links.
func (c *Core) ClearFlowParams(addr netip.AddrPort) {
	if _, ok := c.overrides[addr]; !ok {
		return
	}
	delete(c.overrides, addr)
	c.boundDelays()
	if f, ok := c.byAddr[addr]; ok {
		f.sides[Up].link.SetParams(c.up, "up")
		f.sides[Down].link.SetParams(c.down, "down")
	}
}

// Stats are the core's totals.
type Stats struct {
	Up, Down  Counters
	Flows     int    // clients relayed for now
	FlowsSeen uint64 // clients ever
	Expired   uint64 // flows removed after Limits.IdleTimeout
	Evicted   uint64 // flows removed to make room for a new client
	Refused   uint64 // datagrams of new clients refused, not relayed: the table full of active conversations (ErrFull)
	HeldBytes int    // payload bytes held now
}

// Stats sums every flow's counters per direction.
func (c *Core) Stats() Stats {
	st := Stats{Flows: len(c.flows), FlowsSeen: uint64(c.nextFlw), Expired: c.expired, Evicted: c.evictd, Refused: c.refused, HeldBytes: c.held}
	for d, out := range [2]*Counters{&st.Up, &st.Down} {
		*out = c.c[d]
		link, fc := c.retired[d], c.retiredFlow[d]
		for _, f := range c.flows {
			addLink(&link, f.sides[d].link.Counters())
			fc.add(f.sides[d].c)
			out.InFlight += uint64(f.sides[d].link.InFlight())
		}
		out.LostOriginals, out.LossBursts = fc.LostOrig, fc.LossBursts
		out.Sent, out.Duplicated, out.Lost = link.Sent, link.Duplicated, link.Lost
		out.QueueDropped, out.Reordered = link.QueueDropped, link.Reordered
	}
	return st
}

func (a *FlowCounters) add(b FlowCounters) {
	a.Received += b.Received
	a.Overflow += b.Overflow
	a.LostOrig += b.LostOrig
	a.LossBursts += b.LossBursts
	a.Released += b.Released
}

// FlowInfo is one live flow: its client and, per direction, its link's
// parameters and counters.
type FlowInfo struct {
	ID   FlowID
	Addr netip.AddrPort
	Dirs [2]FlowDir // [Up], [Down]
}

// FlowDir is one direction of a flow.
type FlowDir struct {
	Params   netem.Params
	Counts   FlowCounters
	Link     netem.Counters
	InFlight int
}

// Flows appends the live flows to out in the order they were created.
func (c *Core) Flows(out []FlowInfo) []FlowInfo {
	n := len(out)
	for _, f := range c.flows {
		fi := FlowInfo{ID: f.id, Addr: f.addr}
		for d := range f.sides {
			s := &f.sides[d]
			fi.Dirs[d] = FlowDir{Params: s.link.Params(), Counts: s.c, Link: s.link.Counters(), InFlight: s.link.InFlight()}
		}
		out = append(out, fi)
	}
	slices.SortFunc(out[n:], func(a, b FlowInfo) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// Params are the links new flows get.
func (c *Core) Params() (up, down netem.Params) { return c.up, c.down }

func addLink(a *netem.Counters, b netem.Counters) {
	a.Sent += b.Sent
	a.Delivered += b.Delivered
	a.Lost += b.Lost
	a.QueueDropped += b.QueueDropped
	a.Duplicated += b.Duplicated
	a.Reordered += b.Reordered
}

func (d Dir) String() string {
	if d == Up {
		return "up"
	}
	return "down"
}
