package proxy

import (
	"errors"
	"net/netip"
	"strconv"

	"jitterlab/netem"
	"jitterlab/sim"
)

// Dir is a direction through the proxy.
type Dir uint8

const (
	Up   Dir = iota // game client → server
	Down            // server → game client
)

// MaxFlows bounds how many client addresses the proxy relays for at once.
const MaxFlows = 64

// MaxPacket is the largest datagram relayed.
const MaxPacket = 65535

// Delivery is a datagram whose time has come: send it on.
type Delivery struct {
	Flow    int
	Dir     Dir
	Payload []byte
}

// flow is one game client: its address and its two links.
type flow struct {
	addr     netip.AddrPort
	up, down *netem.Link
}

// Core is the relay's scheduling state: the flows, their links and the
// payloads in flight. It is not safe for concurrent use; one goroutine owns
// it and passes it the time.
type Core struct {
	seed     uint64
	up, down netem.Params
	flows    []*flow
	byAddr   map[netip.AddrPort]int
	q        sim.Queue[qitem]
	payloads map[uint64][]byte
	refs     map[uint64]int
	nextID   uint64
}

type qitem struct {
	flow int
	dir  Dir
}

// NewCore returns a core whose links use these parameters; flow k's links
// draw from the streams "proxy.<k>.up" and "proxy.<k>.down" of seed.
func NewCore(seed uint64, up, down netem.Params) (*Core, error) {
	if err := up.Validate("up"); err != nil {
		return nil, err
	}
	if err := down.Validate("down"); err != nil {
		return nil, err
	}
	return &Core{seed: seed, up: up, down: down, byAddr: map[netip.AddrPort]int{},
		payloads: map[uint64][]byte{}, refs: map[uint64]int{}}, nil
}

// ErrTooManyFlows is returned for a new client beyond MaxFlows.
var ErrTooManyFlows = errors.New("too many client addresses")

// Flow returns the flow index of a client address, creating it.
func (c *Core) Flow(addr netip.AddrPort) (int, bool, error) {
	if i, ok := c.byAddr[addr]; ok {
		return i, false, nil
	}
	if len(c.flows) >= MaxFlows {
		return 0, false, ErrTooManyFlows
	}
	i := len(c.flows)
	name := "proxy." + strconv.Itoa(i)
	up, err := netem.New(c.seed, name+".up", c.up)
	if err != nil {
		return 0, false, err
	}
	down, err := netem.New(c.seed, name+".down", c.down)
	if err != nil {
		return 0, false, err
	}
	c.flows = append(c.flows, &flow{addr: addr, up: up, down: down})
	c.byAddr[addr] = i
	return i, true, nil
}

// Addr is a flow's client address.
func (c *Core) Addr(flow int) netip.AddrPort { return c.flows[flow].addr }

func (c *Core) link(flow int, d Dir) *netem.Link {
	if d == Up {
		return c.flows[flow].up
	}
	return c.flows[flow].down
}

// Send hands a datagram to a flow's link at now. The core keeps payload
// (the caller must not reuse it) until its copies are delivered.
func (c *Core) Send(now sim.Time, flow int, d Dir, payload []byte) netem.SendResult {
	c.nextID++
	id := c.nextID
	res := c.link(flow, d).Send(now, netem.Packet{ID: id, Size: len(payload)})
	if res.Scheduled > 0 {
		c.payloads[id] = payload
		c.refs[id] = res.Scheduled
		for i := range res.Scheduled {
			c.q.Push(res.At[i], qitem{flow, d})
		}
	}
	return res
}

// Next is when the earliest delivery is due.
func (c *Core) Next() (sim.Time, bool) { return c.q.Peek() }

// Due appends the deliveries due at or before now to out.
func (c *Core) Due(now sim.Time, out []Delivery) []Delivery {
	for {
		at, ok := c.q.Peek()
		if !ok || at > now {
			return out
		}
		_, it, _ := c.q.Pop()
		d, ok := c.link(it.flow, it.dir).Deliver(at)
		if !ok {
			continue
		}
		p := c.payloads[d.ID]
		if c.refs[d.ID]--; c.refs[d.ID] == 0 {
			delete(c.payloads, d.ID)
			delete(c.refs, d.ID)
		}
		out = append(out, Delivery{Flow: it.flow, Dir: it.dir, Payload: p})
	}
}

// SetParams changes both directions of every flow, for packets sent from
// now on; new flows use them too.
func (c *Core) SetParams(up, down netem.Params) error {
	for _, f := range c.flows {
		if err := f.up.SetParams(up, "up"); err != nil {
			return err
		}
		if err := f.down.SetParams(down, "down"); err != nil {
			return err
		}
	}
	c.up, c.down = up, down
	return nil
}

// Counters sums every flow's counters per direction.
func (c *Core) Counters() (up, down netem.Counters) {
	add := func(a *netem.Counters, b netem.Counters) {
		a.Sent += b.Sent
		a.Delivered += b.Delivered
		a.Lost += b.Lost
		a.QueueDropped += b.QueueDropped
		a.Duplicated += b.Duplicated
		a.Reordered += b.Reordered
	}
	for _, f := range c.flows {
		add(&up, f.up.Counters())
		add(&down, f.down.Counters())
	}
	return up, down
}

// Flows is the number of client addresses seen.
func (c *Core) Flows() int { return len(c.flows) }

func (d Dir) String() string {
	if d == Up {
		return "up"
	}
	return "down"
}
