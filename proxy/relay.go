package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"jitterlab/netem"
	"jitterlab/sim"
)

// Options configure a relay.
type Options struct {
	Listen string // where the game client sends, e.g. 127.0.0.1:7777
	Target string // the game server, e.g. 127.0.0.1:7778
	Seed   uint64
	Up     netem.Params
	Down   netem.Params
}

type inbound struct {
	dir     Dir
	addr    netip.AddrPort // the client, for Up
	flow    int            // the flow, for Down
	payload []byte
	at      time.Time
}

// Relay is a running UDP relay. Every packet from a client address goes
// through that address's up link to the target from a socket of its own;
// replies to that socket go back through the down link. Times are wall
// time since the relay started.
type Relay struct {
	core   *Core
	conn   *net.UDPConn // the listen socket
	target *net.UDPAddr
	start  time.Time
	in     chan inbound
	params chan [2]netem.Params

	mu    sync.Mutex
	up    netem.Counters
	down  netem.Counters
	flows int
	errs  []string
}

// Listen binds the listen socket and checks the target address.
func Listen(o Options) (*Relay, error) {
	core, err := NewCore(o.Seed, o.Up, o.Down)
	if err != nil {
		return nil, err
	}
	la, err := net.ResolveUDPAddr("udp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %v", o.Listen, err)
	}
	ta, err := net.ResolveUDPAddr("udp", o.Target)
	if err != nil || ta.Port == 0 {
		return nil, fmt.Errorf("--to %q: want the server's host:port, e.g. 127.0.0.1:7778", o.Target)
	}
	conn, err := net.ListenUDP("udp", la)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %v", o.Listen, err)
	}
	return &Relay{core: core, conn: conn, target: ta, in: make(chan inbound, 1024), params: make(chan [2]netem.Params, 1)}, nil
}

// Addr is the listen address (useful with port 0).
func (r *Relay) Addr() net.Addr { return r.conn.LocalAddr() }

// SetParams changes both links of every flow for packets received from now.
func (r *Relay) SetParams(up, down netem.Params) error {
	if err := up.Validate("up"); err != nil {
		return err
	}
	if err := down.Validate("down"); err != nil {
		return err
	}
	r.params <- [2]netem.Params{up, down}
	return nil
}

// Stats returns the counters per direction, the number of clients and the
// socket errors seen (the latest few).
func (r *Relay) Stats() (up, down netem.Counters, flows int, errs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.up, r.down, r.flows, append([]string(nil), r.errs...)
}

func (r *Relay) noteErr(err error) {
	r.mu.Lock()
	r.errs = append(r.errs, err.Error())
	if len(r.errs) > 8 {
		r.errs = r.errs[len(r.errs)-8:]
	}
	r.mu.Unlock()
}

// read forwards datagrams from conn to the scheduler until conn closes.
func (r *Relay) read(ctx context.Context, conn *net.UDPConn, dir Dir, flow int) {
	buf := make([]byte, MaxPacket)
	for {
		n, addr, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				r.noteErr(err)
			}
			return
		}
		at := time.Now()
		p := append([]byte(nil), buf[:n]...)
		select {
		case r.in <- inbound{dir: dir, addr: addr, flow: flow, payload: p, at: at}:
		case <-ctx.Done():
			return
		}
	}
}

// Run relays until ctx is done. It owns the core: packets are handed to
// the links at their arrival time and written out when their delivery time
// comes.
func (r *Relay) Run(ctx context.Context) error {
	r.start = time.Now()
	ctx, cancel := context.WithCancel(ctx) // also releases readers on an error return
	var upstream []*net.UDPConn
	var wg sync.WaitGroup
	defer func() {
		cancel()
		r.conn.Close()
		for _, c := range upstream {
			c.Close()
		}
		wg.Wait()
	}()
	wg.Add(1)
	go func() { defer wg.Done(); r.read(ctx, r.conn, Up, -1) }()

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var due []Delivery
	for {
		select {
		case <-ctx.Done():
			return nil
		case in := <-r.in:
			now := sim.Time(in.at.Sub(r.start))
			flow := in.flow
			if in.dir == Up {
				f, isNew, err := r.core.Flow(in.addr)
				if err != nil {
					r.noteErr(fmt.Errorf("%v: %v", in.addr, err))
					continue
				}
				if isNew {
					c, err := net.DialUDP("udp", nil, r.target)
					if err != nil {
						return fmt.Errorf("connecting to %v: %v", r.target, err)
					}
					upstream = append(upstream, c)
					wg.Add(1)
					go func() { defer wg.Done(); r.read(ctx, c, Down, f) }()
				}
				flow = f
			}
			r.core.Send(now, flow, in.dir, in.payload)
		case p := <-r.params:
			if err := r.core.SetParams(p[0], p[1]); err != nil {
				r.noteErr(err)
			}
		case <-timer.C:
		}
		due = r.core.Due(sim.Time(time.Since(r.start)), due[:0])
		for _, d := range due {
			var err error
			if d.Dir == Up {
				_, err = upstream[d.Flow].Write(d.Payload)
			} else {
				_, err = r.conn.WriteToUDPAddrPort(d.Payload, r.core.Addr(d.Flow))
			}
			if err != nil {
				r.noteErr(err)
			}
		}
		if next, ok := r.core.Next(); ok {
			timer.Reset(max(time.Duration(next)-time.Since(r.start), 0))
		}
		up, down := r.core.Counters()
		r.mu.Lock()
		r.up, r.down, r.flows = up, down, r.core.Flows()
		r.mu.Unlock()
	}
}
