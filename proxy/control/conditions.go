package control

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"jitterlab/netem"
)

// Relay is what Conditions drive (a *proxy.Relay).
type Relay interface {
	SetParams(up, down netem.Params) error
	SetFlowParams(addr netip.AddrPort, up, down netem.Params) error
	ClearFlowParams(addr netip.AddrPort)
}

// Assignment is one key=value in the registry's spelling.
type Assignment struct{ Key, Value string }

// MaxPending bounds the scheduled changes not yet applied.
const MaxPending = 10000

// MaxOwnSettings bounds the clients with settings of their own (--flow,
// PUT /params?flow=): the API takes any address, and memory must not grow
// with what it is sent.
const MaxOwnSettings = 10000

// Conditions are a proxy run's link settings: the defaults and, per client
// address, assignments applied on top of them, so a client keeps its own
// settings while the defaults change under it. Every method is safe for
// concurrent use.
type Conditions struct {
	mu       sync.Mutex
	reg      Registry
	base     netem.Pair
	flows    map[netip.AddrPort][]Assignment
	relay    Relay
	onChange func(ch Timed, err error)
	observe  func(Applied)
	// The changes scheduled and not applied, in the order they apply:
	// by due time, then as scheduled (seq); one timer, for the first.
	pending []pendingChange
	seq     uint64
	timer   *time.Timer
	stopped bool
	// reporting keeps onChange's calls in the order the changes applied
	// (taken before mu is let go).
	reporting sync.Mutex
}

// pendingChange is a scheduled change and when it is due.
type pendingChange struct {
	due time.Time
	seq uint64
	ch  Timed
}

// New returns the conditions of base (the defaults) driving relay, taking
// the keys of reg. onChange, if set, is told of every scheduled change as
// it applies (err: it was refused then), on a timer's goroutine.
func New(reg Registry, base netem.Pair, relay Relay, onChange func(ch Timed, err error)) *Conditions {
	return &Conditions{reg: reg, base: base, relay: relay, onChange: onChange, flows: map[netip.AddrPort][]Assignment{}}
}

// Applied is one change as it took effect: assignments to the defaults
// (Flow invalid) or to one client's own settings, or (Cleared) a client
// put back on the defaults.
type Applied struct {
	Flow    netip.AddrPort
	Set     []Assignment
	Cleared bool
}

// Observe has fn told of every change as it takes effect — --flow, the
// control API, the screen's editor and scheduled changes alike — in the
// order they apply. fn is called with the conditions' lock held: it must
// be quick and must not call back into them.
func (c *Conditions) Observe(fn func(Applied)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.observe = fn
}

func (c *Conditions) applied(a Applied) {
	if c.observe != nil {
		c.observe(a)
	}
}

// ParseFlow reads a client address as the flow options take it.
func ParseFlow(s string) (netip.AddrPort, error) {
	a, err := netip.ParseAddrPort(strings.TrimSpace(s))
	if err != nil || a.Port() == 0 {
		return netip.AddrPort{}, fmt.Errorf("flow %q: want the client's ip:port as the proxy sees it, e.g. 127.0.0.1:5001 or [::1]:5001", s)
	}
	ip := a.Addr().Unmap()
	if ip.IsUnspecified() || ip.IsMulticast() || ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return netip.AddrPort{}, fmt.Errorf("flow %q: no datagram comes from %v (an unspecified, multicast or broadcast address): want the client's own ip:port as the proxy sees it, e.g. 127.0.0.1:5001 or [::1]:5001", s, ip)
	}
	return netip.AddrPortFrom(ip, a.Port()), nil
}

// CheckAPIKey refuses what the control API must not take: a trace names a
// file, and the API has no authentication, so a trace (and its loop
// setting) is chosen at start only. The error shows nothing of the value.
func CheckAPIKey(key string) error {
	if strings.HasSuffix(key, ".trace") || strings.HasSuffix(key, ".trace_loop") {
		return fmt.Errorf("%s: a trace is chosen at start (--set or --flow), not through the control API", key)
	}
	return nil
}

// checkAPI is CheckAPIKey of every assignment.
func checkAPI(as []Assignment) error {
	for _, a := range as {
		if err := CheckAPIKey(a.Key); err != nil {
			return err
		}
	}
	return nil
}

// apply sets the assignments on links, stopping at the first error.
func (r Registry) apply(links *netem.Pair, as []Assignment) error {
	for _, a := range as {
		if err := r.Set(links, a.Key, a.Value); err != nil {
			return err
		}
	}
	return nil
}

// Set applies assignments to the defaults (flow invalid) or to one client,
// all or none: on an error nothing changes and the error is --set's.
func (c *Conditions) Set(flow netip.AddrPort, as []Assignment) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set(flow, as)
}

func (c *Conditions) set(flow netip.AddrPort, as []Assignment) error {
	if !flow.IsValid() {
		cfg := c.base
		if err := c.reg.apply(&cfg, as); err != nil {
			return err
		}
		// Every client with its own settings is the new defaults plus
		// its assignments; check them all before changing anything.
		eff := map[netip.AddrPort]netem.Pair{}
		for addr, own := range c.flows {
			fc := cfg
			if err := c.reg.apply(&fc, own); err != nil {
				return fmt.Errorf("flow %v: %w", addr, err)
			}
			eff[addr] = fc
		}
		if err := c.relay.SetParams(cfg.Up, cfg.Down); err != nil {
			return err
		}
		c.base = cfg
		for addr, fc := range eff {
			c.relay.SetFlowParams(addr, fc.Up, fc.Down) // validated above
		}
		c.applied(Applied{Set: slices.Clone(as)})
		return nil
	}
	if _, ok := c.flows[flow]; !ok && len(c.flows) >= MaxOwnSettings {
		return fmt.Errorf("flow %v: %d clients have settings of their own: allowed at most %d (DELETE /params?flow=ADDR puts one back on everybody's)", flow, len(c.flows), MaxOwnSettings)
	}
	// One assignment per key, the latest, in the order last given: the
	// same as applying them all in order (a key sets the same fields each
	// time), and bounded however often a script changes a client.
	own := slices.Clone(c.flows[flow])
	for _, a := range as {
		own = slices.DeleteFunc(own, func(b Assignment) bool { return b.Key == a.Key })
		own = append(own, a)
	}
	fc := c.base
	if err := c.reg.apply(&fc, own); err != nil {
		return err
	}
	if err := c.relay.SetFlowParams(flow, fc.Up, fc.Down); err != nil {
		return err
	}
	c.flows[flow] = own
	c.applied(Applied{Flow: flow, Set: slices.Clone(as)})
	return nil
}

// Clear puts a client back on the defaults; false: it had no settings of
// its own.
func (c *Conditions) Clear(flow netip.AddrPort) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, had := c.flows[flow]
	delete(c.flows, flow)
	c.relay.ClearFlowParams(flow)
	if had {
		c.applied(Applied{Flow: flow, Cleared: true})
	}
	return had
}

// Config is the links the client at flow gets (the defaults for an
// invalid flow) and the assignments it has of its own.
func (c *Conditions) Config(flow netip.AddrPort) (netem.Pair, []Assignment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cfg := c.base
	own := slices.Clone(c.flows[flow])
	c.reg.apply(&cfg, own) // checked when set
	return cfg, own
}

// Flows lists the clients with settings of their own, in address order.
func (c *Conditions) Flows() []netip.AddrPort {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]netip.AddrPort, 0, len(c.flows))
	for a := range c.flows {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b netip.AddrPort) int { return a.Compare(b) })
	return out
}

// Timed is one scheduled change: at After from when it was scheduled,
// Set applies to Flow (the defaults when invalid). What describes it.
type Timed struct {
	After time.Duration
	Flow  netip.AddrPort
	Set   []Assignment
	What  string
	API   bool // scheduled through POST /timeline (After counts from then)
}

// Schedule applies each change at its time (Go timers: within about a
// millisecond). Changes due at the same time apply in the order they
// were scheduled — a file's order — one after the other, before anything
// else touches the settings. Each is validated against the settings now,
// so a bad key or value is refused at once; one that fails when it
// applies (a later change made it invalid) is reported through onChange,
// in the order they apply.
func (c *Conditions) Schedule(changes []Timed) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return errors.New("the proxy is stopping")
	}
	if len(c.pending)+len(changes) > MaxPending {
		return fmt.Errorf("timeline: %d changes pending and %d more: allowed at most %d", len(c.pending), len(changes), MaxPending)
	}
	for _, ch := range changes {
		if ch.API {
			if err := checkAPI(ch.Set); err != nil {
				return fmt.Errorf("timeline at %v: %w", ch.After, err)
			}
		}
		cfg := c.base
		if ch.Flow.IsValid() {
			c.reg.apply(&cfg, c.flows[ch.Flow])
		}
		if err := c.reg.apply(&cfg, ch.Set); err != nil {
			return fmt.Errorf("timeline at %v: %w", ch.After, err)
		}
	}
	now := time.Now()
	for _, ch := range changes {
		c.seq++
		p := pendingChange{due: now.Add(max(ch.After, 0)), seq: c.seq, ch: ch}
		// After every change due no later: the latest scheduled goes last.
		i, _ := slices.BinarySearchFunc(c.pending, p, func(a, b pendingChange) int {
			if a.due.After(b.due) {
				return 1
			}
			return -1
		})
		c.pending = slices.Insert(c.pending, i, p)
	}
	c.arm()
	return nil
}

// arm sets the timer for the first pending change (c.mu held).
func (c *Conditions) arm() {
	if len(c.pending) == 0 || c.stopped {
		if c.timer != nil {
			c.timer.Stop()
		}
		return
	}
	d := time.Until(c.pending[0].due)
	if c.timer == nil {
		c.timer = time.AfterFunc(d, c.due)
		return
	}
	c.timer.Reset(d)
}

// due applies, in order, every pending change whose time has come, then
// tells onChange of each, in the same order.
func (c *Conditions) due() {
	type result struct {
		ch  Timed
		err error
	}
	var done []result
	c.mu.Lock()
	now := time.Now()
	n := 0
	for n < len(c.pending) && !c.pending[n].due.After(now) {
		ch := c.pending[n].ch
		done = append(done, result{ch, c.set(ch.Flow, ch.Set)})
		n++
	}
	c.pending = slices.Delete(c.pending, 0, n)
	c.arm()
	c.reporting.Lock()
	defer c.reporting.Unlock()
	c.mu.Unlock()
	if c.onChange != nil {
		for _, r := range done {
			c.onChange(r.ch, r.err)
		}
	}
}

// Cancel takes back the changes the control API scheduled (POST
// /timeline) that have not applied: every one, or (flow valid) that
// client's. A scenario's timeline stays. It returns how many it
// cancelled.
func (c *Conditions) Cancel(flow netip.AddrPort) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.pending)
	c.pending = slices.DeleteFunc(c.pending, func(p pendingChange) bool { return p.ch.API && (!flow.IsValid() || p.ch.Flow == flow) })
	c.arm()
	return n - len(c.pending)
}

// Pending is how many scheduled changes have not applied yet.
func (c *Conditions) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// Stop cancels the changes not yet applied.
func (c *Conditions) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	c.pending = nil
	c.arm()
}

// Describe writes assignments as key=value separated by spaces.
func Describe(as []Assignment) string {
	var b strings.Builder
	for i, a := range as {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.Key + "=" + a.Value)
	}
	return b.String()
}
