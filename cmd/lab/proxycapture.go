package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"jitterlab/capture"
	"jitterlab/lab"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// proxyQueue is how many packet events the relay may get ahead of the
// capture writer, and proxyQueueBytes how many payload bytes they may
// hold; beyond either, events are dropped and counted, so the relay never
// waits for a disk and a flood of large datagrams costs bounded memory.
const (
	proxyQueue      = 1 << 14
	proxyQueueBytes = 32 << 20
)

// proxyCapture writes the relay's packets to a pcapng capture and/or a
// proxy recording, on a goroutine of its own: the relay's hook copies
// each event into a bounded queue and returns.
type proxyCapture struct {
	pcap           *capture.Writer
	order          *capture.Ordered // puts pcap's frames in time order
	rec            *recordings.Writer
	listen, target netip.AddrPort
	events         chan proxyEvent
	done           chan struct{} // closed when run has written everything
	queuedBytes    atomic.Int64  // payload bytes in the queue
	maxBytes       int64
	dropped        atomic.Uint64
	droppedSide    [2]atomic.Uint64 // of the packet events, by capture side
	last           sim.Time         // the recording's time: never goes back
	named          proxy.FlowID     // the last flow whose client address is recorded (the relay's goroutine)
	changes        int              // change records written
	changesLost    uint64           // changes not recorded: beyond the recording's bounds
	epoch          time.Duration    // the relay's start since the Unix epoch: the capture's timestamps are wall time
	origin         time.Time        // the relay's start as read (with its monotonic reading): times are measured from it
	base           proxy.Stats      // the relay's counters when the capture started (R on the screen: mid-run)
	// Each file's first write error: the file stops there (what it
	// wrote stays), the other goes on; lost counts the events the
	// failed file did not get.
	pcapErr, recErr   error
	pcapLost, recLost uint64
	outs              []*output
	// What names each file to the user ("--pcap relay.pcapng", R's
	// recording's path), and failed, when set, is told of the first
	// write error as it happens (the capture's goroutine).
	pcapName, recName string
	failed            func(error)
}

// proxyEnd is the summary in a proxy recording's end record: the relay's
// counters, and the events the capture dropped (the recording lacks
// them).
type proxyEnd struct {
	Up             proxyDirEnd `json:"up"`
	Down           proxyDirEnd `json:"down"`
	FlowsSeen      uint64      `json:"flows_seen"`
	CaptureDropped uint64      `json:"capture_dropped"`
	// Settings changes the recording could not hold (more than
	// recordings.MaxChanges, or a value too long).
	ChangesLost uint64 `json:"changes_not_recorded,omitempty"`
}

// proxyDirEnd is what the relay counted of one direction that its
// packets cannot say: datagrams the kernel dropped before the relay read
// them, and copies still in flight when it stopped.
type proxyDirEnd struct {
	Received      uint64 `json:"received"`
	KernelDropped uint64 `json:"kernel_dropped"`
	InFlight      uint64 `json:"in_flight"`
}

func newProxyEnd(st proxy.Stats, dropped uint64) proxyEnd {
	dir := func(c proxy.Counters) proxyDirEnd { return proxyDirEnd{c.Received, c.KernelDropped, c.InFlight} }
	return proxyEnd{Up: dir(st.Up), Down: dir(st.Down), FlowsSeen: st.FlowsSeen, CaptureDropped: dropped}
}

// proxyEvent is a relay event as queued: the payload copied when the
// capture needs it, and changes of the settings.
type proxyEvent struct {
	ev       proxy.PacketEvent
	size     int
	settings *settingsEvent
}

// settingsEvent is, for the recording, a change of the links as it took
// effect (whoever made it: --flow, the control API, the editor, a
// timeline), or a new client: flow number flow at address applied.Flow.
type settingsEvent struct {
	at      time.Time
	applied proxyctl.Applied
	flow    proxy.FlowID
}

var relaySides = [2]string{"the relay's client side: game client ↔ the proxy's listen address",
	"the relay's server side: the proxy's socket for that client ↔ the game server"}

func newProxyCapture(pcap *capture.Writer, rec *recordings.Writer, listen, target net.Addr) *proxyCapture {
	addr := func(a net.Addr) netip.AddrPort {
		if u, ok := a.(*net.UDPAddr); ok {
			return u.AddrPort()
		}
		return netip.AddrPort{}
	}
	c := &proxyCapture{pcap: pcap, rec: rec, listen: addr(listen), target: addr(target),
		events: make(chan proxyEvent, proxyQueue), done: make(chan struct{}), maxBytes: proxyQueueBytes}
	go c.run()
	return c
}

// OnPacket is the relay's hook (one goroutine: the relay's). The pcapng
// capture takes each datagram as read (with its copies' fates) and each
// copy written; the recording takes every copy's fate: dropped on arrival,
// written or refused by the socket.
func (c *proxyCapture) OnPacket(e *proxy.PacketEvent) {
	if c.rec != nil && e.Read && e.Flow > c.named {
		// Flows are numbered as their clients first send: the first
		// datagram read of each names it.
		c.named = e.Flow
		c.settings(settingsEvent{at: e.In, flow: e.Flow, applied: proxyctl.Applied{Flow: e.Addr}})
	}
	written := isWritten(e)
	toPcap := c.pcap != nil && (e.Read || written && e.Fate == proxy.FateDelivered)
	if !toPcap && (c.rec == nil || e.Read) {
		return
	}
	q := proxyEvent{ev: *e, size: e.Size}
	q.ev.Payload = nil
	if toPcap {
		if c.queuedBytes.Load()+int64(q.size) > c.maxBytes {
			c.drop(e)
			return
		}
		q.ev.Payload = append(make([]byte, 0, len(e.Payload)), e.Payload...) // empty, never nil: nil is a simulated packet's
	}
	select {
	case c.events <- q:
		c.queuedBytes.Add(int64(len(q.ev.Payload)))
	default:
		c.drop(e)
	}
}

// isWritten says whether the event is a copy written out (or refused by
// the socket), not a datagram read or a copy dropped on arrival.
func isWritten(e *proxy.PacketEvent) bool {
	return !e.Read && (e.Fate == proxy.FateDelivered || e.Fate == proxy.FateWriteFailed)
}

// drop counts an event the queue had no room for, by capture side.
func (c *proxyCapture) drop(e *proxy.PacketEvent) {
	c.dropped.Add(1)
	side := capture.ServerSide
	if (e.Dir == proxy.Up) != isWritten(e) {
		side = capture.ClientSide
	}
	c.droppedSide[side].Add(1)
}

// settings queues a change of the settings or a new client for the
// recording.
func (c *proxyCapture) settings(s settingsEvent) {
	if c.rec == nil {
		return
	}
	select {
	case c.events <- proxyEvent{settings: &s}:
	default:
		c.dropped.Add(1)
	}
}

// Close writes what is queued, then the recording's end at wall time
// end, and flushes. It does not close the files.
func (c *proxyCapture) Close(end time.Duration, stats proxy.Stats) error {
	close(c.events)
	<-c.done
	named := func(name string, err error) error {
		if err != nil && name != "" {
			return fmt.Errorf("%s: %w", name, err)
		}
		return err
	}
	if c.pcap != nil {
		if c.pcapErr == nil {
			c.pcapErr = named(c.pcapName, c.order.Flush())
		}
		for side := range c.droppedSide {
			c.pcap.Dropped(capture.Side(side), c.droppedSide[side].Load())
		}
		c.pcapErr = cmp.Or(c.pcapErr, named(c.pcapName, c.pcap.Close()))
	}
	if c.rec != nil && c.recErr == nil {
		for _, p := range [][2]*proxy.Counters{{&stats.Up, &c.base.Up}, {&stats.Down, &c.base.Down}} {
			p[0].Received -= p[1].Received
			p[0].KernelDropped -= p[1].KernelDropped
		}
		stats.FlowsSeen -= c.base.FlowsSeen
		pe := newProxyEnd(stats, c.dropped.Load())
		pe.ChangesLost = c.changesLost
		sum, _ := json.Marshal(pe)
		c.recErr = named(c.recName, c.rec.Close(recordings.End{At: max(sim.Time(end), c.last), Summary: sum}))
	}
	return errors.Join(c.pcapErr, c.recErr)
}

func (c *proxyCapture) run() {
	if c.pcap != nil {
		c.order = capture.NewOrdered(c.pcap, capture.OrderWindow, capture.OrderMaxEvents, capture.OrderMaxBytes)
	}
	// Each file on its own: one that fails stops (its events counted
	// as lost to it), the other goes on; the queue is always drained, so
	// the relay never blocks.
	for q := range c.events {
		c.queuedBytes.Add(-int64(len(q.ev.Payload)))
		if q.settings != nil {
			if c.recErr == nil {
				c.recErr = c.fail(c.recName, c.recordSettings(q.settings))
			}
			continue
		}
		if c.pcap != nil && (q.ev.Read || q.ev.Fate == proxy.FateDelivered) {
			if c.pcapErr != nil {
				c.pcapLost++
			} else {
				e := c.pcapEvent(&q.ev, q.size)
				c.pcapErr = c.fail(c.pcapName, c.order.Write(&e)) // keeps e.Payload, the event's own copy
			}
		}
		if c.rec != nil && !q.ev.Read {
			if c.recErr != nil {
				c.recLost++
			} else {
				c.recErr = c.fail(c.recName, c.recordPacket(&q.ev, q.size))
			}
		}
	}
	close(c.done)
}

// fail is a write error of the file named name (nil: none) as the
// capture keeps it, said at once: that file stops there (what it wrote
// stays), the other file and the relay go on.
func (c *proxyCapture) fail(name string, err error) error {
	if err == nil {
		return nil
	}
	if name != "" {
		err = fmt.Errorf("%s: %w", name, err)
	}
	if c.failed != nil {
		c.failed(err)
	}
	return err
}

var relayFates = [...]capture.Fate{proxy.FateScheduled: capture.Delivered, proxy.FateLost: capture.Lost,
	proxy.FateQueueDropped: capture.QueueDropped, proxy.FateOverflow: capture.OverLimit, proxy.FateDiscarded: capture.Discarded}

// pcapEvent is the capture's view of a relay event: a datagram read on
// the side it came from, a copy written on the side it goes to, with the
// real addresses; timestamps are wall time: the relay's start on the wall
// clock plus the time since (see elapsed).
func (c *proxyCapture) pcapEvent(e *proxy.PacketEvent, size int) capture.Event {
	at := e.In
	if !e.Read {
		at = e.Out
	}
	out := capture.Event{Arrived: !e.Read, At: c.epoch + c.elapsed(at), Dir: capture.Dir(e.Dir), Flow: uint64(e.Flow), Size: size, Payload: e.Payload}
	clientSide := [2]netip.AddrPort{e.Addr, c.listen}
	serverSide := [2]netip.AddrPort{e.Upstream, c.target}
	if out.Side() == capture.ClientSide {
		out.Src, out.Dst = clientSide[0], clientSide[1]
	} else {
		out.Src, out.Dst = serverSide[0], serverSide[1]
	}
	if e.Dir == proxy.Down {
		out.Src, out.Dst = out.Dst, out.Src
	}
	for _, a := range []*netip.AddrPort{&out.Src, &out.Dst} {
		if !a.IsValid() { // a flow already removed, a socket that failed to open
			*a = netip.AddrPortFrom(netip.IPv4Unspecified(), 0)
		}
	}
	if e.Read {
		for i, f := range e.Send.Copy[:e.Send.Copies] {
			out.Copies[i].Fate = relayFates[f]
			if f == proxy.FateScheduled {
				out.Copies[i].Delay = e.Send.Delay[i]
			}
		}
		return out
	}
	out.Delay, out.Duplicate, out.Reordered = e.Delay, e.Copy == 1, e.Reordered
	return out
}

var recordFates = [...]recordings.PacketFate{proxy.FateDelivered: recordings.PacketDelivered, proxy.FateLost: recordings.PacketLost,
	proxy.FateQueueDropped: recordings.PacketQueueDropped, proxy.FateOverflow: recordings.PacketOverLimit,
	proxy.FateDiscarded: recordings.PacketDiscarded, proxy.FateWriteFailed: recordings.PacketWriteFailed}

// since is a time as the recording counts it: from the relay's start,
// never before it.
func (c *proxyCapture) since(t time.Time) sim.Time {
	return sim.Time(max(c.elapsed(t), 0))
}

// elapsed is t less the relay's start. Both read the same clock, so Sub
// takes the difference of their monotonic readings when they have them: a
// step of the wall clock during the run (NTP, a virtual machine's clock
// catching up under load) moves no time against another, where the wall
// readings' difference would give a packet written before it was read.
func (c *proxyCapture) elapsed(t time.Time) time.Duration {
	if c.origin.IsZero() {
		return time.Duration(t.UnixNano()) - c.epoch
	}
	return t.Sub(c.origin)
}

// recordPacket records one copy's fate: dropped on arrival, or written
// on (or refused by the socket). A record's time is when it was accounted
// for, never before the last.
func (c *proxyCapture) recordPacket(e *proxy.PacketEvent, size int) error {
	in := c.since(e.In)
	at := in
	if isWritten(e) {
		at = c.since(e.Out)
	}
	c.last = max(c.last, at)
	p := recordings.Packet{At: c.last, In: in, Dir: uint8(e.Dir), Flow: uint64(e.Flow), Size: size, Copy: uint8(e.Copy), Fate: recordFates[e.Fate]}
	if isWritten(e) {
		p.Out, p.Scheduled, p.Reordered = at, e.Due.Sub(e.In), e.Reordered
	}
	return c.rec.Packet(&p)
}

// recordSettings records a change of the settings or a new client, at
// the time it took effect (or the last record's, if later), as change
// records a proxy recording spells so (see [proxySettingOf]): KEY = VALUE
// for everybody's settings, "client ADDR KEY" = VALUE for one client's,
// "client ADDR" = "cleared" when it is put back on everybody's, and
// "flow N" = ADDR when the N-th client first sends. What the recording
// cannot hold is counted, never an error: the relay keeps recording.
func (c *proxyCapture) recordSettings(s *settingsEvent) error {
	c.last = max(c.last, c.since(s.at))
	var out []recordings.Change
	client := "client " + s.applied.Flow.String()
	switch {
	case s.flow != 0:
		out = append(out, recordings.Change{Key: "flow " + strconv.FormatUint(uint64(s.flow), 10), Value: s.applied.Flow.String()})
	case s.applied.Cleared:
		out = append(out, recordings.Change{Key: client, Value: proxyCleared})
	default:
		for _, a := range s.applied.Set {
			k := a.Key
			if s.applied.Flow.IsValid() {
				k = client + " " + k
			}
			out = append(out, recordings.Change{Key: k, Value: a.Value})
		}
	}
	for _, ch := range out {
		if c.changes >= recordings.MaxChanges || len(ch.Key) > recordings.MaxChangeText || len(ch.Value) > recordings.MaxChangeText {
			c.changesLost++
			continue
		}
		ch.At = c.last
		if err := c.rec.Change(ch); err != nil {
			return err
		}
		c.changes++
	}
	return nil
}

// proxyHeader is a proxy recording's header: the link settings it started
// with, by the registry's keys.
func proxyHeader(cfg lab.Config, name string) recordings.Header {
	h := lab.HeaderOf(cfg, name, 0)
	h.Kind = recordings.KindProxy
	var params [][2]string
	for _, kv := range h.Params {
		if strings.HasPrefix(kv[0], "up.") || strings.HasPrefix(kv[0], "down.") {
			params = append(params, kv)
		}
	}
	h.Params, h.Segments = params, nil
	return h
}

// captureNote is the summary's line about the captures.
func (c *proxyCapture) note() string {
	var notes []string
	if n := c.dropped.Load(); n > 0 {
		notes = append(notes, fmt.Sprintf("%d events dropped (the writer fell behind)", n))
	}
	for _, f := range []struct {
		name string
		err  error
		lost uint64
	}{{c.pcapName, c.pcapErr, c.pcapLost}, {c.recName, c.recErr, c.recLost}} {
		if f.err != nil && f.lost > 0 {
			notes = append(notes, fmt.Sprintf("%s failed: %d events after it not written to it", cmp.Or(f.name, "a file"), f.lost))
		}
	}
	if c.order != nil && c.order.Late() > 0 {
		notes = append(notes, fmt.Sprintf("%d pcapng frames stamped late, past the %v reorder window (their comments say by how much)", c.order.Late(), capture.OrderWindow))
	}
	if len(notes) == 0 {
		return ""
	}
	return "capture: " + strings.Join(notes, "; ")
}

// openProxyCaptures opens the proxy's --pcap and --record files (either
// may be ""), or returns nil when neither is asked for.
func openProxyCaptures(pcapPath, recordPath string, stdout io.Writer, listen net.Addr, target string,
	cfg lab.Config, name string) (*proxyCapture, error) {
	if pcapPath == "" && recordPath == "" {
		return nil, nil
	}
	var outs []*output
	fail := func(err error) (*proxyCapture, error) {
		for _, f := range outs {
			f.Abort()
		}
		return nil, err
	}
	var pw *capture.Writer
	var rw *recordings.Writer
	if pcapPath != "" {
		f, err := openOutput(pcapPath, stdout, stream)
		if err != nil {
			return fail(flagFileError("pcap", pcapPath, err))
		}
		outs = append(outs, f)
		if pw, err = capture.NewWriter(f, capture.Options{Epoch: time.Unix(0, 0), Sides: relaySides, Application: "jitterlab lab proxy",
			Comment: fmt.Sprintf("lab proxy %v → %s, seed %d: timestamps are wall time", listen, target, cfg.Seed)}); err != nil {
			return fail(fmt.Errorf("--pcap %s: %w", pcapPath, err))
		}
	}
	if recordPath != "" {
		f, err := openOutput(recordPath, stdout, stream)
		if err != nil {
			return fail(flagFileError("record", recordPath, err))
		}
		outs = append(outs, f)
		if rw, err = recordings.NewWriter(f, proxyHeader(cfg, name)); err != nil {
			return fail(fmt.Errorf("--record %s: %w", recordPath, err))
		}
	}
	ta, _ := net.ResolveUDPAddr("udp", target)
	c := newProxyCapture(pw, rw, listen, ta)
	c.outs = outs
	c.pcapName, c.recName = "--pcap "+pcapPath, "--record "+recordPath
	return c, nil
}

// flagFileError names the flag whose file could not be opened, and the
// file once.
func flagFileError(flag, path string, err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		err = pe.Err
	}
	return fmt.Errorf("--%s %s: %w", flag, path, err)
}

// finish ends the captures (Close) and commits their files.
func (c *proxyCapture) finish(wall time.Duration, st proxy.Stats) error {
	err := c.Close(wall, st)
	for _, f := range c.outs { // each file closed, whatever the other's fate
		err = errors.Join(err, f.Commit())
	}
	return err
}

// captureSwitch is the relay's capture hook: the capture running now, if
// any, which may start and stop while the relay runs (--pcap and --record
// run from the start; a proxy screen's R can start and stop a recording as
// R does in the lab). With none running, an event costs a read lock.
type captureSwitch struct {
	mu     sync.RWMutex
	cur    *proxyCapture
	epoch  time.Duration // the relay's start since the Unix epoch
	origin time.Time     // the relay's start as read
	// failed is told of a capture's first write error as it happens (on
	// the capture's goroutine): set before any capture starts.
	failed func(error)
}

// OnPacket is the relay's hook: it hands the event to the running capture.
func (s *captureSwitch) OnPacket(e *proxy.PacketEvent) {
	s.mu.RLock()
	if s.cur != nil {
		s.cur.OnPacket(e)
	}
	s.mu.RUnlock()
}

// Applied hands a change of the settings, as it took effect at wall time
// at, to the running capture.
func (s *captureSwitch) Applied(a proxyctl.Applied, at time.Time) {
	s.mu.RLock()
	if s.cur != nil {
		s.cur.settings(settingsEvent{at: at, applied: a})
	}
	s.mu.RUnlock()
}

// started records the captures' zero: the relay's start, or before it
// (when its socket was bound: no datagram is read earlier).
func (s *captureSwitch) started(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.epoch, s.origin = time.Duration(t.UnixNano()), t
	if s.cur != nil {
		s.cur.epoch, s.cur.origin = s.epoch, s.origin
	}
}

// start makes c the running capture; one runs at a time.
func (s *captureSwitch) start(c *proxyCapture) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		return errors.New("a capture is already running: stop it first")
	}
	c.epoch, c.origin, c.failed, s.cur = s.epoch, s.origin, s.failed, c
	return nil
}

// stop ends the running capture, if any, at wall time wall since the
// relay started: it writes what is queued, closes and commits its files.
// note says what it dropped ("" if nothing).
func (s *captureSwitch) stop(wall time.Duration, st proxy.Stats) (note string, err error) {
	s.mu.Lock()
	c := s.cur
	s.cur = nil
	s.mu.Unlock()
	if c == nil {
		return "", nil
	}
	err = c.finish(wall, st)
	return c.note(), err
}
