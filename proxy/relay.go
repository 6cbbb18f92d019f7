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
	// order; OnChange, if set, is called on a relay goroutine as each
	// applies (it must not call the Relay's methods).
	Timeline []Change
	OnChange func(Change)

	// OnPacket, if set, is told of every datagram as it is read (an
	// event with Read set: what became of each copy), then of every
	// copy's fate as it is decided: written out (or refused by the socket)
	// at its release, or dropped on arrival. It is called on the relay's goroutines with the
	// relay's lock held, so it must be quick and must not call the
	// Relay's methods; the event is reused after it returns. Nil costs
	// nothing.
	OnPacket func(*PacketEvent)

	// ReleaseWindow trades precision for CPU at high packet rates
	// (Linux): while copies are due about once per window or more often,
	// one may be written up to this long after its time (never before)
	// so that it shares a wake-up and a sendmmsg with the next ones. Zero
	// means DefaultReleaseWindow; a negative value turns it off, so every
	// copy leaves as close to its time as the relay can. At most
	// MaxReleaseWindow.
	ReleaseWindow time.Duration

	// ReceiveBuffer is the receive buffer asked of the kernel for each of
	// the relay's sockets (SO_RCVBUF), in bytes. Zero means
	// DefaultReceiveBuffer; at most MaxReceiveBuffer. The kernel may give
	// less ([Relay.ReceiveBufferWarning]).
	ReceiveBuffer int
}

// The release window's default and bound (see [Options].ReleaseWindow).
const (
	DefaultReleaseWindow = 100 * time.Microsecond
	MaxReleaseWindow     = time.Millisecond
)

// PacketEvent is one copy of a relayed datagram and what became of it.
type PacketEvent struct {
	In    time.Time      // wall time the proxy read it
	Out   time.Time      // wall time its write began (or it was refused); zero when dropped on arrival
	Dir   Dir            // Up: client → server
	Flow  FlowID         // the client's flow
	Addr  netip.AddrPort // the client's address
	Size  int            // payload bytes
	Fate  Fate           // FateDelivered, FateWriteFailed, or a drop
	Delay time.Duration  // Out − In, the delay the proxy added (0 when dropped on arrival)

	// For captures. Read: the datagram as read, before the events of its
	// copies; Send says what became of each copy, and Out, Fate and Delay
	// are unset. Payload is the datagram's bytes, valid during the call
	// only. Upstream is the relay's socket to the server for the flow
	// (invalid when it has none). Copy is 0 for the original, 1 for the
	// link's duplicate. A written copy has the time the link gave it (Due)
	// and Reordered: it left after a datagram read later than it.
	Read      bool
	Send      Outcome
	Payload   []byte
	Upstream  netip.AddrPort
	Copy      int
	Due       time.Time
	Reordered bool

	// Stalled: the relay came back for this release more than StallAfter
	// after the time it meant to (Linux: the kernel woke it late, or it
	// was kept from the CPU before it could wait), or took that long from
	// then to writing it, so the copy's lateness is the CPU it was not
	// given (the scheduler's or the hypervisor's), not the relay's timing.
	Stalled bool
}

// StallAfter is how late a wake-up must be to count as a stall (see
// [PacketEvent].Stalled).
const StallAfter = 500 * time.Microsecond

// Change is one timeline entry: from At after the relay starts, packets
// arriving use Up and Down. What says what changed, for the log.
type Change struct {
	At       time.Duration
	Up, Down netem.Params
	What     string
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
	fd    int    // Linux: the relay's own descriptor of it (see attach)
	flow  FlowID // the flow it belongs to (0 for the listen socket)
	dir   Dir    // the direction of the datagrams it receives
	inode uint64
	seen  atomic.Uint32
	local netip.AddrPort // its own address

	rcvbuf int // the receive buffer the kernel granted it (0: not known)
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
//
// Each datagram is taken with the time the kernel received it
// (SO_TIMESTAMPNS), copied into a pooled buffer and handed to the core; it
// is written out when its release time comes. On Linux one goroutine does
// all of it in an epoll loop whose waits end on the kernel's
// high-resolution timers (epoll_pwait2, 1 ns of timer slack), reading and
// writing datagrams in batches (recvmmsg, sendmmsg), so a datagram leaves
// within tens of microseconds of its time when the relay gets the CPU;
// when datagrams come often it wakes only for releases (io_linux.go).
// Elsewhere a reader goroutine per socket and a Go timer do it
// (io_other.go).
type Relay struct {
	opts   Options
	conn   *net.UDPConn // the listen socket
	listen *socket
	target *net.UDPAddr
	pool   *bufPool
	io     ioState // the platform's part (io_linux.go, io_other.go)

	kernelDrops [2]atomic.Uint64

	mu       sync.Mutex // guards everything below
	core     *Core
	start    time.Time // Run's start; zero before
	stopped  time.Time
	upstream map[FlowID]*socket
	stopping bool // Run is closing the sockets: open no more
	timeline []Change
	waitFor  sim.Time // Run's next wake-up (maxTime while idle)
	written  [2]uint64
	failed   [2]uint64
	audit    auditor
	ev       PacketEvent
	removed  []FlowID
	retiring []*socket // removed flows' sockets, no longer read, closed once their drop counts are read
	due      []Delivery
	werr     [maxBatch]error // writeOut's result per copy
	stalled  bool            // this wake-up came StallAfter late or more
	arrived  sim.Time        // the earliest arrival read since the Linux loop last came back (maxTime: none)
	wg       sync.WaitGroup

	maintEvery time.Duration // upkeep period
	lastMaint  time.Time
	errs       []ErrorCount
	errKind    map[string]int
}

const maxTime = sim.Time(1<<63 - 1)

// maxBatch bounds the copies one writeOut call takes.
const maxBatch = 32

// Listen binds the listen socket and checks the target address. It
// refuses a target that is the listen socket itself (a loop).
func Listen(o Options) (*Relay, error) {
	if o.Limits == (Limits{}) {
		o.Limits = DefaultLimits()
	}
	switch {
	case o.ReleaseWindow > MaxReleaseWindow:
		return nil, fmt.Errorf("release window %v: allowed up to %v (negative: off)", o.ReleaseWindow, MaxReleaseWindow)
	case o.ReleaseWindow == 0:
		o.ReleaseWindow = DefaultReleaseWindow
	case o.ReleaseWindow < 0:
		o.ReleaseWindow = 0
	}
	switch {
	case o.ReceiveBuffer < 0 || o.ReceiveBuffer > MaxReceiveBuffer:
		return nil, fmt.Errorf("receive buffer %d bytes: allowed 0 (the default, %s) up to %d (%s)", o.ReceiveBuffer, ByteSize(DefaultReceiveBuffer), MaxReceiveBuffer, ByteSize(MaxReceiveBuffer))
	case o.ReceiveBuffer == 0:
		o.ReceiveBuffer = DefaultReceiveBuffer
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
	return &Relay{opts: o, core: core, conn: conn, listen: newSocket(conn, Up, o.ReceiveBuffer), target: ta, pool: newBufPool(),
		upstream: map[FlowID]*socket{}, timeline: o.Timeline, waitFor: maxTime, arrived: maxTime,
		audit: newAuditor(), errKind: map[string]int{}}, nil
}

// newSocket takes c into the relay: it asks the kernel for its drop
// counts, arrival stamps and a receive buffer of rcvbuf bytes.
func newSocket(c *net.UDPConn, d Dir, rcvbuf int) *socket {
	s := &socket{conn: c, fd: -1, dir: d, inode: enableDropCount(c), rcvbuf: askReceiveBuffer(c, rcvbuf)}
	if a, ok := c.LocalAddr().(*net.UDPAddr); ok {
		s.local = a.AddrPort()
	}
	return s
}

// readDrops reads the kernel's drop counts (procDrops; a test counts the
// reads).
var readDrops = procDrops

// pollDrops brings the kernel's drop counts of these sockets up to date
// (Linux), including drops after the last datagram read.
func (r *Relay) pollDrops(socks ...*socket) {
	m := make(map[uint64]uint32, len(socks))
	for _, s := range socks {
		if s.inode != 0 {
			m[s.inode] = s.seen.Load()
		}
	}
	readDrops(m)
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

// Target is the server's address as --to resolved it.
func (r *Relay) Target() net.Addr { return r.target }

// SetParams changes both links of every flow for packets received from
// now, whether or not Run is running.
func (r *Relay) SetParams(up, down netem.Params) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wake()
	return r.core.SetParams(up, down)
}

// SetFlowParams gives the client at addr links of its own (see
// [Core.SetFlowParams]), whether or not Run is running.
func (r *Relay) SetFlowParams(addr netip.AddrPort, up, down netem.Params) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wake()
	return r.core.SetFlowParams(addr, up, down)
}

// ClearFlowParams puts the client at addr back on the default links.
func (r *Relay) ClearFlowParams(addr netip.AddrPort) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wake()
	r.core.ClearFlowParams(addr)
}

// Stats returns the counters: the core's, with the kernel's drops at the
// relay's sockets and the outcome of its writes.
func (r *Relay) Stats() Stats {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.core.Stats()
	for d, c := range [2]*Counters{&st.Up, &st.Down} {
		c.Delivered, c.WriteFailed = r.written[d], r.failed[d]
		c.KernelDropped = r.kernelDrops[d].Load()
	}
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
// failure on every packet is one line with a count. The caller holds r.mu.
func (r *Relay) noteErr(what string, err error) {
	cause := err.Error()
	var errno syscall.Errno
	if errors.As(err, &errno) {
		cause = errno.Error()
	}
	msg := what + ": " + cause
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

// errNoSocket: the flow's socket to the server could not be opened.
var errNoSocket = errors.New("no socket to the server")

func (r *Relay) since(t time.Time) sim.Time { return sim.Time(t.Sub(r.start)) }

// received takes a datagram read from s at clock reading c into the relay: it counts the
// kernel's drops and uses the kernel's arrival stamp when it is plausible
// (the delay is added from when the datagram reached the socket, however
// late the relay got to read it; see [clockRead.at]). p is a pooled copy
// of the payload. The caller holds r.mu. It reports whether the datagram
// is now the earliest to release.
func (r *Relay) received(s *socket, addr netip.AddrPort, p []byte, oob []byte, c clockRead) (earliest bool) {
	m := readOOB(oob)
	if m.hasDrops {
		s.observe(m.drops, &r.kernelDrops[s.dir])
	}
	at := c.at(m.stamp, m.hasStamp)
	r.arrived = min(r.arrived, r.since(at))
	return r.arrive(s.dir, addr, s.flow, p, at)
}

// arrive hands a datagram read at wall time at to the core. The caller
// holds r.mu.
func (r *Relay) arrive(dir Dir, addr netip.AddrPort, flow FlowID, p []byte, at time.Time) (earliest bool) {
	now := r.since(at)
	r.applyTimeline(now)
	id := flow
	if dir == Up {
		f, _, err := r.core.Flow(now, addr)
		if errors.Is(err, ErrFull) { // counted in Stats.Refused
			r.pool.put(p)
			return false
		}
		if err != nil { // the links' parameters were validated: cannot happen
			r.noteErr("opening a flow", err)
			r.pool.put(p)
			return false
		}
		if r.upstream[f] == nil {
			r.dial(f)
		}
		r.closeRemoved()
		id = f
	}
	out := r.core.Send(now, id, dir, p)
	if r.opts.OnPacket != nil {
		ev := &r.ev
		*ev = PacketEvent{In: at, Dir: dir, Flow: id, Size: len(p), Read: true, Send: out, Payload: p, Upstream: r.upstreamAddr(id)}
		ev.Addr, _ = r.core.Addr(id)
		if dir == Up && !ev.Addr.IsValid() {
			ev.Addr = addr
		}
		r.opts.OnPacket(ev)
		ev.Read, ev.Send = false, Outcome{}
		for i, f := range out.Copy[:out.Copies] {
			if f != FateScheduled {
				ev.Fate, ev.Copy = f, i
				r.opts.OnPacket(ev)
			}
		}
	}
	if !out.Kept {
		r.pool.put(p)
		return false
	}
	if next, ok := r.core.Next(); ok && next < r.waitFor {
		r.waitFor = next
		return true
	}
	return false
}

// upstreamAddr is the address of a flow's socket to the server, if it
// has one. The caller holds r.mu.
func (r *Relay) upstreamAddr(id FlowID) netip.AddrPort {
	if s := r.upstream[id]; s != nil {
		return s.local
	}
	return netip.AddrPort{}
}

// dial opens a flow's socket to the server and starts reading it. The
// caller holds r.mu.
func (r *Relay) dial(id FlowID) {
	if r.stopping {
		return
	}
	c, err := net.DialUDP("udp", nil, r.target)
	if err != nil {
		r.noteErr(fmt.Sprintf("opening a socket to the server %v", r.target), err)
		return
	}
	s := newSocket(c, Down, r.opts.ReceiveBuffer)
	s.flow = id
	if err := r.attach(s); err != nil {
		c.Close()
		r.noteErr(fmt.Sprintf("opening a socket to the server %v", r.target), err)
		return
	}
	r.upstream[id] = s
}

// retireBatch is how many removed flows' sockets wait, unread, for one
// read of their drop counts: /proc/net/udp lists every UDP socket of the
// machine, so reading it per evicted client (source-port churn evicts
// thousands a second) would take the relay's CPU.
const retireBatch = 64

// closeRemoved stops reading the sockets of the flows the core removed
// and closes them, their drop counts read together: when retireBatch
// wait, or at the upkeep (closeRetiring). The caller holds r.mu.
func (r *Relay) closeRemoved() {
	r.removed = r.core.TakeRemoved(r.removed[:0])
	for _, id := range r.removed {
		r.audit.retire(id)
		if s := r.upstream[id]; s != nil {
			r.unwatch(s)
			r.retiring = append(r.retiring, s)
			delete(r.upstream, id)
		}
	}
	if len(r.retiring) >= retireBatch {
		r.closeRetiring()
	}
}

// closeRetiring reads the drop counts of the removed flows' sockets, in
// one read, and closes them. The caller holds r.mu.
func (r *Relay) closeRetiring() {
	if len(r.retiring) == 0 {
		return
	}
	r.pollDrops(r.retiring...)
	for i, s := range r.retiring {
		r.detach(s)
		r.retiring[i] = nil
	}
	r.retiring = r.retiring[:0]
}

// applyTimeline applies the changes due at now. The caller holds r.mu.
func (r *Relay) applyTimeline(now sim.Time) {
	for len(r.timeline) > 0 && sim.Time(r.timeline[0].At) <= now {
		ch := r.timeline[0]
		r.timeline = r.timeline[1:]
		r.core.SetParams(ch.Up, ch.Down) // validated by Listen
		if r.opts.OnChange != nil {
			r.opts.OnChange(ch)
		}
	}
}

// sockets are the relay's open sockets. The caller holds r.mu.
func (r *Relay) sockets() []*socket {
	socks := []*socket{r.listen}
	for _, s := range r.upstream {
		socks = append(socks, s)
	}
	return socks
}

// Run relays until ctx is done. Packets are handed to the links at the
// wall time they reached the proxy and written out when their delivery
// time comes; timeline changes apply at their time. A relay runs once.
func (r *Relay) Run(ctx context.Context) error {
	r.mu.Lock()
	if !r.start.IsZero() {
		r.mu.Unlock()
		return errors.New("proxy: Run called twice")
	}
	r.start = time.Now()
	r.maintEvery = min(r.opts.Limits.IdleTimeout/4, time.Second)
	r.lastMaint = r.start
	err := r.attach(r.listen)
	r.mu.Unlock()
	if err != nil {
		return err
	}
	defer func() {
		r.mu.Lock()
		r.stopping = true
		socks := append(r.sockets(), r.retiring...)
		r.retiring = nil
		r.pollDrops(socks...)
		for _, s := range socks {
			r.detach(s)
		}
		r.closePoller()
		r.mu.Unlock()
		r.wg.Wait()
		r.mu.Lock()
		r.stopped = time.Now()
		r.mu.Unlock()
	}()
	r.wg.Add(1)
	go func() { defer r.wg.Done(); r.watchDrops(ctx) }()
	return r.loop(ctx)
}

// watchDrops brings the kernel's drop counts up to date every upkeep
// period, off the release path: /proc/net/udp lists every UDP socket of the
// machine, and reading it can take a millisecond.
func (r *Relay) watchDrops(ctx context.Context) {
	t := time.NewTicker(r.maintEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.mu.Lock()
			socks := r.sockets()
			r.mu.Unlock()
			r.pollDrops(socks...) // atomics only: no lock needed
		}
	}
}

// step does what is due at wall time wall: the periodic upkeep (idle
// flows), timeline changes and releases. It returns
// when the next thing is due. The caller holds r.mu.
func (r *Relay) step(wall time.Time) sim.Time {
	now := r.since(wall)
	if wall.Sub(r.lastMaint) >= r.maintEvery {
		r.core.Expire(now)
		r.closeRemoved()
		r.closeRetiring()
		r.lastMaint = wall
	}
	r.applyTimeline(now)
	r.due = r.core.Due(now, r.due[:0])
	r.release(r.due, wall)
	next := r.since(r.lastMaint.Add(r.maintEvery))
	if at, ok := r.core.Next(); ok {
		next = min(next, at)
	}
	if len(r.timeline) > 0 {
		next = min(next, sim.Time(r.timeline[0].At))
	}
	r.waitFor = next
	return next
}

// release writes out the copies whose time has come, a batch per system
// call where the platform can. The caller holds r.mu.
func (r *Relay) release(due []Delivery, wall time.Time) {
	for len(due) > 0 {
		// A copy's Out is when its write began: loopback delivers inside
		// the system call, so the server's answer can be stamped by the
		// kernel before the call returns (TestAnAnswerIsNeverStampedBeforeItsRequest).
		out := time.Now()
		n := r.writeOut(due, r.werr[:])
		stalled := r.stalled || time.Since(wall) > StallAfter // late waking, or kept from the CPU since
		for i := range due[:n] {
			r.released(&due[i], r.werr[i], out, stalled)
			r.werr[i] = nil
		}
		due = due[n:]
	}
}

// released accounts for a copy written (or refused) at wall time out and
// returns its payload to the pool once it was the last copy (out: when
// the write began). The caller
// holds r.mu.
func (r *Relay) released(d *Delivery, err error, out time.Time, stalled bool) {
	fate := FateDelivered
	if err != nil {
		fate = FateWriteFailed
		r.failed[d.Dir]++
		if d.Dir == Up {
			r.noteErr(fmt.Sprintf("writing to the server %v", r.target), err)
		} else {
			r.noteErr("writing to a client", err)
		}
	} else {
		r.written[d.Dir]++
		r.audit.delivered(d, r.since(out), stalled)
	}
	if r.opts.OnPacket != nil {
		in := r.start.Add(time.Duration(d.Arrived))
		r.ev = PacketEvent{In: in, Out: out, Dir: d.Dir, Flow: d.Flow, Addr: d.Addr, Size: len(d.Payload), Fate: fate, Delay: out.Sub(in),
			Payload: d.Payload, Upstream: r.upstreamAddr(d.Flow), Copy: d.Copy, Due: r.start.Add(time.Duration(d.Due)), Reordered: d.Reordered,
			Stalled: stalled}
		r.opts.OnPacket(&r.ev)
	}
	if d.Last {
		r.pool.put(d.Payload)
	}
	d.Payload = nil
}
