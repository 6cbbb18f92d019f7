package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
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
	Limits Limits // the zero value means DefaultLimits

	// Timeline changes both links at wall times after Run starts, in
	// order; OnChange, if set, is called on Run's goroutine as each applies.
	Timeline []Change
	OnChange func(Change)

	// OnPacket, if set, hears of every datagram on Run's goroutine: when
	// it is read (with the fate of each copy) and when a copy is written
	// on. It must be quick (hand the event to another goroutine) and not
	// keep the event or its payload. Nil costs nothing.
	OnPacket func(*PacketEvent)
}

// PacketEvent is one datagram at the relay, for captures. Times are wall
// time since Run started.
type PacketEvent struct {
	Out     bool // false: read (In); true: a copy written on, or failing to be
	Dir     Dir
	Flow    FlowID
	At      sim.Time       // read, or written
	Payload []byte         // valid during the call only
	Client  netip.AddrPort // the flow's client
	// Upstream is the relay's socket to the server for this flow (zero
	// when it has none).
	Upstream netip.AddrPort

	// In: what became of each copy, and when scheduled ones are due.
	Send SendResult
	// Out: when the copy was read and was due, which copy, whether it
	// comes after a later-read datagram, and whether the write failed.
	SentAt, Due sim.Time
	Copy        int
	Reordered   bool
	Failed      bool
}

// Change is one timeline entry: from At after the relay starts, packets
// arriving use Up and Down. What says what changed, for the log.
type Change struct {
	At       time.Duration
	Up, Down netem.Params
	What     string
}

// inboundQueue is how many datagrams the readers may have read and the
// core not yet taken: with Limits, at most inboundQueue × MaxPacket bytes
// (16 MiB) more than the core holds; beyond it the kernel's buffer fills
// and its drops are counted.
const inboundQueue = 256

type inbound struct {
	dir     Dir
	addr    netip.AddrPort // the client, for Up
	flow    FlowID         // the flow, for Down
	payload []byte
	at      time.Time
}

// ErrorCount is one kind of socket error and how often it happened.
type ErrorCount struct {
	Msg   string
	Count uint64
}

// maxErrorKinds bounds the distinct error messages kept; later kinds are
// counted under the last one.
const maxErrorKinds = 16

// socket is one of the relay's sockets and the kernel's drop count for it
// as far as the relay has counted it.
type socket struct {
	conn  *net.UDPConn
	dir   Dir // the direction of the datagrams it receives
	inode uint64
	seen  atomic.Uint32
}

// observe counts the drops up to the kernel's cumulative count c (which
// wraps at 2³²) that were not counted yet.
func (s *socket) observe(c uint32, total *atomic.Uint64) {
	for {
		old := s.seen.Load()
		if int32(c-old) <= 0 {
			return
		}
		if s.seen.CompareAndSwap(old, c) {
			total.Add(uint64(c - old))
			return
		}
	}
}

// Relay is a running UDP relay. Every packet from a client address goes
// through that address's up link to the target from a socket of its own;
// replies to that socket go back through the down link. Times are wall
// time since Run started.
type Relay struct {
	opts   Options
	core   *Core
	conn   *net.UDPConn // the listen socket
	listen *socket
	target *net.UDPAddr
	in     chan inbound
	params chan [2]netem.Params

	kernelDrops [2]atomic.Uint64

	mu      sync.Mutex
	stats   Stats
	errs    []ErrorCount
	errKind map[string]int
}

// Listen binds the listen socket and checks the target address. It
// refuses a target that is the listen socket itself (a loop).
func Listen(o Options) (*Relay, error) {
	if o.Limits == (Limits{}) {
		o.Limits = DefaultLimits()
	}
	core, err := NewCore(o.Seed, o.Up, o.Down, o.Limits)
	if err != nil {
		return nil, err
	}
	for i, ch := range o.Timeline {
		if i > 0 && ch.At < o.Timeline[i-1].At {
			return nil, fmt.Errorf("timeline: change at %v after one at %v; want time order", ch.At, o.Timeline[i-1].At)
		}
		if err := ch.Up.Validate("up"); err != nil {
			return nil, fmt.Errorf("timeline at %v: %w", ch.At, err)
		}
		if err := ch.Down.Validate("down"); err != nil {
			return nil, fmt.Errorf("timeline at %v: %w", ch.At, err)
		}
	}
	ta, err := resolveTarget(o.Target)
	if err != nil {
		return nil, err
	}
	la, err := net.ResolveUDPAddr("udp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %v", o.Listen, err)
	}
	conn, err := net.ListenUDP("udp", la)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %v", o.Listen, err)
	}
	bound := conn.LocalAddr().(*net.UDPAddr)
	if isSelf(bound, ta) {
		conn.Close()
		return nil, fmt.Errorf("--to %q is the proxy's own listen address %v: the relay would send to itself", o.Target, bound)
	}
	return &Relay{opts: o, core: core, conn: conn, listen: newSocket(conn, Up), target: ta, in: make(chan inbound, inboundQueue),
		params: make(chan [2]netem.Params, 1), errKind: map[string]int{}}, nil
}

func newSocket(c *net.UDPConn, d Dir) *socket {
	return &socket{conn: c, dir: d, inode: enableDropCount(c)}
}

// pollDrops brings the kernel's drop counts of these sockets up to date
// (Linux), including drops after the last datagram read.
func (r *Relay) pollDrops(socks ...*socket) {
	m := procDrops()
	for _, s := range socks {
		if c, ok := m[s.inode]; ok && s.inode != 0 {
			s.observe(c, &r.kernelDrops[s.dir])
		}
	}
}

// resolveTarget reads host:port, telling a malformed address from a name
// that does not resolve.
func resolveTarget(s string) (*net.UDPAddr, error) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return nil, fmt.Errorf("--to %q: want the server's host:port, e.g. 127.0.0.1:7778", s)
	}
	if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
		return nil, fmt.Errorf("--to %q: port %q: allowed 1 to 65535", s, port)
	}
	ta, err := net.ResolveUDPAddr("udp", s)
	if err != nil {
		var dns *net.DNSError
		if errors.As(err, &dns) {
			return nil, fmt.Errorf("--to %q: looking up host %q failed (DNS): %v", s, host, dns.Err)
		}
		return nil, fmt.Errorf("--to %q: %v", s, err)
	}
	return ta, nil
}

// isSelf says whether sending to target reaches the socket bound at bound.
func isSelf(bound, target *net.UDPAddr) bool {
	if bound.Port != target.Port {
		return false
	}
	if bound.IP.Equal(target.IP) || bound.IP.IsUnspecified() && target.IP.IsLoopback() {
		return true
	}
	if !bound.IP.IsUnspecified() {
		return false
	}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(target.IP) {
			return true
		}
	}
	return false
}

// ListenWarning is a warning for a listen address that accepts packets
// from beyond this machine, or "" for a loopback one.
func ListenWarning(addr net.Addr) string {
	ua, ok := addr.(*net.UDPAddr)
	if !ok || ua.IP.IsLoopback() {
		return ""
	}
	where := "on " + ua.IP.String()
	if ua.IP.IsUnspecified() {
		where = "on every interface"
	}
	return fmt.Sprintf("listening %s (%v): other machines can send through this relay; use --listen 127.0.0.1:%d to stay on this machine", where, addr, ua.Port)
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

// Stats returns the counters: the core's, with the kernel's drops at the
// relay's sockets and the outcome of its writes.
func (r *Relay) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.stats
	st.Up.KernelDropped, st.Down.KernelDropped = r.kernelDrops[Up].Load(), r.kernelDrops[Down].Load()
	return st
}

// Errors returns each kind of socket error seen, in the order first seen,
// with its count.
func (r *Relay) Errors() []ErrorCount {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]ErrorCount(nil), r.errs...)
}

// noteErr counts an error under what happened and its cause, so the same
// failure on every packet is one line with a count.
func (r *Relay) noteErr(what string, err error) {
	cause := err.Error()
	var errno syscall.Errno
	if errors.As(err, &errno) {
		cause = errno.Error()
	}
	msg := what + ": " + cause
	r.mu.Lock()
	defer r.mu.Unlock()
	i, ok := r.errKind[msg]
	if !ok {
		if len(r.errs) < maxErrorKinds {
			i = len(r.errs)
			r.errs = append(r.errs, ErrorCount{Msg: msg})
		} else {
			i = len(r.errs) - 1
			r.errs[i].Msg = "other socket errors"
		}
		r.errKind[msg] = i
	}
	r.errs[i].Count++
}

// read forwards datagrams from a socket to the scheduler until it closes
// or ctx ends. Errors are counted and reading goes on: an ICMP "port
// unreachable" while the server restarts makes one read fail, not the flow.
func (r *Relay) read(ctx context.Context, s *socket, flow FlowID) {
	buf := make([]byte, MaxPacket)
	oob := make([]byte, 64)
	dir := s.dir
	for {
		n, oobn, _, addr, err := s.conn.ReadMsgUDPAddrPort(buf, oob)
		if err != nil {
			if errors.Is(err, net.ErrClosed) || ctx.Err() != nil {
				return
			}
			if errors.Is(err, syscall.ECONNREFUSED) {
				r.noteErr(fmt.Sprintf("the server %v is not answering (ICMP port unreachable)", r.target), err)
				continue
			}
			r.noteErr("reading "+dir.String(), err)
			select { // an error that repeats must not spin
			case <-time.After(10 * time.Millisecond):
			case <-ctx.Done():
				return
			}
			continue
		}
		at := time.Now()
		if c, ok := dropCount(oob[:oobn]); ok {
			s.observe(c, &r.kernelDrops[dir])
		}
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
// comes; timeline changes apply at their time.
func (r *Relay) Run(ctx context.Context) error {
	start := time.Now()
	since := func(t time.Time) sim.Time { return sim.Time(t.Sub(start)) }
	ctx, cancel := context.WithCancel(ctx) // also releases readers on an error return
	upstream := map[FlowID]*socket{}
	var wg sync.WaitGroup
	var written, failed [2]uint64
	publish := func() {
		st := r.core.Stats()
		for d, c := range [2]*Counters{&st.Up, &st.Down} {
			c.Delivered, c.WriteFailed = written[d], failed[d]
		}
		r.mu.Lock()
		r.stats = st
		r.mu.Unlock()
	}
	all := func() []*socket {
		socks := []*socket{r.listen}
		for _, s := range upstream {
			socks = append(socks, s)
		}
		return socks
	}
	defer func() {
		cancel()
		r.pollDrops(all()...)
		r.conn.Close()
		for _, s := range upstream {
			s.conn.Close()
		}
		wg.Wait()
		publish()
	}()
	wg.Add(1)
	go func() { defer wg.Done(); r.read(ctx, r.listen, 0) }()
	dial := func(id FlowID) {
		c, err := net.DialUDP("udp", nil, r.target)
		if err != nil {
			r.noteErr(fmt.Sprintf("opening a socket to the server %v", r.target), err)
			return
		}
		s := newSocket(c, Down)
		upstream[id] = s
		wg.Add(1)
		go func() { defer wg.Done(); r.read(ctx, s, id) }()
	}
	timeline := r.opts.Timeline
	applyTimeline := func(now sim.Time) {
		for len(timeline) > 0 && sim.Time(timeline[0].At) <= now {
			ch := timeline[0]
			timeline = timeline[1:]
			r.core.SetParams(ch.Up, ch.Down) // validated by Listen
			if r.opts.OnChange != nil {
				r.opts.OnChange(ch)
			}
		}
	}

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	arm := func() { // wake for the next release or timeline change
		wake := time.Duration(-1)
		if next, ok := r.core.Next(); ok {
			wake = time.Duration(next)
		}
		if len(timeline) > 0 && (wake < 0 || timeline[0].At < wake) {
			wake = timeline[0].At
		}
		if wake >= 0 {
			timer.Reset(max(wake-time.Since(start), 0))
		}
	}
	arm()
	expiry := time.NewTicker(min(r.opts.Limits.IdleTimeout/4, time.Second))
	defer expiry.Stop()
	var due []Delivery
	var removed []FlowID
	var ev PacketEvent
	local := func(id FlowID) netip.AddrPort {
		if s := upstream[id]; s != nil {
			if a, ok := s.conn.LocalAddr().(*net.UDPAddr); ok {
				return a.AddrPort()
			}
		}
		return netip.AddrPort{}
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case in := <-r.in:
			now := since(in.at)
			applyTimeline(now)
			id := in.flow
			if in.dir == Up {
				f, _, err := r.core.Flow(now, in.addr)
				if err != nil {
					return err
				}
				if upstream[f] == nil {
					dial(f)
				}
				id = f
			}
			res := r.core.Send(now, id, in.dir, in.payload)
			if r.opts.OnPacket != nil {
				client := in.addr
				if in.dir == Down {
					client, _ = r.core.Addr(id)
				}
				ev = PacketEvent{Dir: in.dir, Flow: id, At: now, Payload: in.payload, Client: client, Upstream: local(id), Send: res}
				r.opts.OnPacket(&ev)
			}
		case p := <-r.params:
			if err := r.core.SetParams(p[0], p[1]); err != nil {
				return err
			}
		case <-expiry.C:
			r.core.Expire(since(time.Now()))
			r.pollDrops(all()...)
		case <-timer.C:
		}
		removed = r.core.TakeRemoved(removed[:0])
		for _, id := range removed {
			if s := upstream[id]; s != nil {
				r.pollDrops(s)
				s.conn.Close()
				delete(upstream, id)
			}
		}
		now := since(time.Now())
		applyTimeline(now)
		due = r.core.Due(now, due[:0])
		for _, d := range due {
			var err error
			if d.Dir == Up {
				if s := upstream[d.Flow]; s != nil {
					_, err = s.conn.Write(d.Payload)
				} else {
					err = errors.New("no socket")
				}
			} else {
				_, err = r.conn.WriteToUDPAddrPort(d.Payload, d.Addr)
			}
			if err != nil {
				failed[d.Dir]++
				if d.Dir == Up {
					r.noteErr(fmt.Sprintf("writing to the server %v", r.target), err)
				} else {
					r.noteErr("writing to a client", err)
				}
			} else {
				written[d.Dir]++
			}
			if r.opts.OnPacket != nil {
				ev = PacketEvent{Out: true, Dir: d.Dir, Flow: d.Flow, At: since(time.Now()), Payload: d.Payload, Client: d.Addr,
					Upstream: local(d.Flow), SentAt: d.SentAt, Due: d.At, Copy: d.Copy, Reordered: d.Reordered, Failed: err != nil}
				r.opts.OnPacket(&ev)
			}
		}
		arm()
		publish()
	}
}
