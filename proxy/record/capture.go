package record

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"jitterlab/capture"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// queueLen is how many packet events the relay may get ahead of the
// capture's writer, and queueBytes how many payload bytes they may
// hold; beyond either, events are dropped and counted, so the relay never
// waits for a disk and a flood of large datagrams costs bounded memory.
const (
	queueLen   = 1 << 14
	queueBytes = 32 << 20
)

// Capture writes the relay's packets to a pcapng capture and/or a
// proxy recording, on a goroutine of its own: the relay's hook
// ([Capture.OnPacket]) copies each event into a bounded queue and
// returns, so the relay never waits for a disk.
type Capture struct {
	pcap           *capture.Writer
	order          *capture.Ordered // puts pcap's frames in time order
	rec            *recordings.Writer
	listen, target netip.AddrPort
	events         chan event
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
	files             []Committer
	// What names each file to the user ("--pcap relay.pcapng", R's
	// recording's path), and failed, when set, is told of the first
	// write error as it happens (the capture's goroutine).
	pcapName, recName string
	failed            func(error)
}

// Committer is a file a capture writes: [Capture.Finish] commits it
// once the capture is closed.
type Committer interface{ Commit() error }

// Options says what a [Capture] writes and to whom it answers.
type Options struct {
	// Pcap and Recording are the files' writers (either may be nil),
	// PcapName and RecordingName what names each to the user in an
	// error ("--pcap relay.pcapng").
	Pcap                    *capture.Writer
	Recording               *recordings.Writer
	PcapName, RecordingName string
	// Listen and Target are the relay's addresses, for the pcapng
	// capture's packets (nil: unknown).
	Listen, Target net.Addr
	// Files are committed by [Capture.Finish].
	Files []Committer
	// Base is the relay's counters when the capture starts, LastFlow the
	// last client it has numbered: a capture started mid-run counts from
	// there, and names only the clients after LastFlow itself.
	Base     proxy.Stats
	LastFlow proxy.FlowID
}

// EndSummary is the summary in a proxy recording's end record (JSON):
// the relay's counters, and the events the capture dropped (the
// recording lacks them).
type EndSummary struct {
	Up             DirSummary `json:"up"`
	Down           DirSummary `json:"down"`
	FlowsSeen      uint64     `json:"flows_seen"`
	CaptureDropped uint64     `json:"capture_dropped"`
	// Settings changes the recording could not hold (more than
	// recordings.MaxChanges, or a value too long).
	ChangesLost uint64 `json:"changes_not_recorded,omitempty"`
}

// DirSummary is what the relay counted of one direction that its
// packets cannot say: datagrams the kernel dropped before the relay read
// them, and copies still in flight when it stopped.
type DirSummary struct {
	Received      uint64 `json:"received"`
	KernelDropped uint64 `json:"kernel_dropped"`
	InFlight      uint64 `json:"in_flight"`
}

func newEndSummary(st proxy.Stats, dropped uint64) EndSummary {
	dir := func(c proxy.Counters) DirSummary { return DirSummary{c.Received, c.KernelDropped, c.InFlight} }
	return EndSummary{Up: dir(st.Up), Down: dir(st.Down), FlowsSeen: st.FlowsSeen, CaptureDropped: dropped}
}

// event is a relay event as queued: the payload copied when the
// capture needs it, and changes of the settings.
type event struct {
	ev        proxy.PacketEvent
	size      int
	settings  *settingsEvent
	telemetry *telemetryEvent
}

// settingsEvent is, for the recording, a change of the links as it took
// effect (whoever made it: --flow, the control API, the editor, a
// timeline), or a new client: flow number flow at address applied.Flow.
type settingsEvent struct {
	at      time.Time
	applied proxyctl.Applied
	flow    proxy.FlowID
}

// Sides are the pcapng capture's two interfaces, as its header describes
// them.
var Sides = [2]string{"the relay's client side: game client ↔ the proxy's listen address",
	"the relay's server side: the proxy's socket for that client ↔ the game server"}

// New starts a capture: it writes what the relay's hook hands it until
// [Capture.Close].
func New(o Options) *Capture {
	addr := func(a net.Addr) netip.AddrPort {
		if u, ok := a.(*net.UDPAddr); ok {
			return u.AddrPort()
		}
		return netip.AddrPort{}
	}
	c := &Capture{pcap: o.Pcap, rec: o.Recording, listen: addr(o.Listen), target: addr(o.Target),
		events: make(chan event, queueLen), done: make(chan struct{}), maxBytes: queueBytes,
		files: o.Files, pcapName: o.PcapName, recName: o.RecordingName, base: o.Base, named: o.LastFlow}
	go c.run()
	return c
}

// OnPacket is the relay's hook (one goroutine: the relay's). The pcapng
// capture takes each datagram as read (with its copies' fates) and each
// copy written; the recording takes every copy's fate: dropped on arrival,
// written or refused by the socket.
func (c *Capture) OnPacket(e *proxy.PacketEvent) {
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
	q := event{ev: *e, size: e.Size}
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
func (c *Capture) drop(e *proxy.PacketEvent) {
	c.dropped.Add(1)
	side := capture.ServerSide
	if (e.Dir == proxy.Up) != isWritten(e) {
		side = capture.ClientSide
	}
	c.droppedSide[side].Add(1)
}

// Applied queues a change of the settings, as it took effect at wall
// time at, for the recording.
func (c *Capture) Applied(a proxyctl.Applied, at time.Time) {
	c.settings(settingsEvent{at: at, applied: a})
}

// FlowStarted records that client addr is flow number flow from wall
// time at: a capture started mid-run names the clients already relayed
// so (the relay's hook names the later ones).
func (c *Capture) FlowStarted(flow proxy.FlowID, addr netip.AddrPort, at time.Time) {
	c.settings(settingsEvent{at: at, flow: flow, applied: proxyctl.Applied{Flow: addr}})
}

// settings queues a change of the settings or a new client for the
// recording.
func (c *Capture) settings(s settingsEvent) {
	if c.rec == nil {
		return
	}
	select {
	case c.events <- event{settings: &s}:
	default:
		c.dropped.Add(1)
	}
}

// Close writes what is queued, then the recording's end at wall time
// end, and flushes. It does not close the files.
func (c *Capture) Close(end time.Duration, stats proxy.Stats) error {
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
		pe := newEndSummary(stats, c.dropped.Load())
		pe.ChangesLost = c.changesLost
		sum, _ := json.Marshal(pe)
		c.recErr = named(c.recName, c.rec.Close(recordings.End{At: max(sim.Time(end), c.last), Summary: sum}))
	}
	return errors.Join(c.pcapErr, c.recErr)
}

func (c *Capture) run() {
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
		if q.telemetry != nil {
			if c.recErr == nil {
				c.recErr = c.fail(c.recName, c.recordTelemetry(q.telemetry))
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
func (c *Capture) fail(name string, err error) error {
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
func (c *Capture) pcapEvent(e *proxy.PacketEvent, size int) capture.Event {
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
func (c *Capture) since(t time.Time) sim.Time {
	return sim.Time(max(c.elapsed(t), 0))
}

// elapsed is t less the relay's start. Both read the same clock, so Sub
// takes the difference of their monotonic readings when they have them: a
// step of the wall clock during the run (NTP, a virtual machine's clock
// catching up under load) moves no time against another, where the wall
// readings' difference would give a packet written before it was read.
func (c *Capture) elapsed(t time.Time) time.Duration {
	if c.origin.IsZero() {
		return time.Duration(t.UnixNano()) - c.epoch
	}
	return t.Sub(c.origin)
}

// recordPacket records one copy's fate: dropped on arrival, or written
// on (or refused by the socket). A record's time is when it was accounted
// for, never before the last.
func (c *Capture) recordPacket(e *proxy.PacketEvent, size int) error {
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
// records in the grammar of [Setting]. What the recording cannot hold is
// counted, never an error: the relay keeps recording.
func (c *Capture) recordSettings(s *settingsEvent) error {
	c.last = max(c.last, c.since(s.at))
	var out []Setting
	client := s.applied.Flow.String()
	switch {
	case s.flow != 0:
		out = append(out, Setting{Flow: uint64(s.flow), Client: client})
	case s.applied.Cleared:
		out = append(out, Setting{Client: client, Cleared: true})
	default:
		for _, a := range s.applied.Set {
			set := Setting{Key: a.Key, Value: a.Value}
			if s.applied.Flow.IsValid() {
				set.Client = client
			}
			out = append(out, set)
		}
	}
	for _, set := range out {
		set.At = c.last
		ch := set.Change()
		if c.changes >= recordings.MaxChanges || len(ch.Key) > recordings.MaxChangeText || len(ch.Value) > recordings.MaxChangeText {
			c.changesLost++
			continue
		}
		if err := c.rec.Change(ch); err != nil {
			return err
		}
		c.changes++
	}
	return nil
}

// Header is a proxy recording's header made from h, a session's (as
// lab.HeaderOf makes it from the relay's settings): the link settings it
// started with, by the registry's keys, and nothing of the game.
func Header(h recordings.Header) recordings.Header {
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

// Note is the proxy summary's line about the capture: what it dropped,
// what a failed file lost ("" if nothing).
func (c *Capture) Note() string {
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

// Finish ends the capture ([Capture.Close]) and commits its files.
func (c *Capture) Finish(wall time.Duration, st proxy.Stats) error {
	err := c.Close(wall, st)
	for _, f := range c.files { // each file closed, whatever the other's fate
		err = errors.Join(err, f.Commit())
	}
	return err
}

// Switch is the relay's capture hook: the capture running now, if
// any, which may start and stop while the relay runs (--pcap and --record
// run from the start; a proxy screen's R can start and stop a recording as
// R does in the lab). With none running, an event costs a read lock.
type Switch struct {
	mu     sync.RWMutex
	cur    *Capture
	epoch  time.Duration // the relay's start since the Unix epoch
	origin time.Time     // the relay's start as read
	// Failed is told of a capture's first write error as it happens (on
	// the capture's goroutine): set before any capture starts.
	Failed func(error)
}

// OnPacket is the relay's hook: it hands the event to the running capture.
func (s *Switch) OnPacket(e *proxy.PacketEvent) {
	s.mu.RLock()
	if s.cur != nil {
		s.cur.OnPacket(e)
	}
	s.mu.RUnlock()
}

// Applied hands a change of the settings, as it took effect at wall time
// at, to the running capture.
func (s *Switch) Applied(a proxyctl.Applied, at time.Time) {
	s.mu.RLock()
	if s.cur != nil {
		s.cur.Applied(a, at)
	}
	s.mu.RUnlock()
}

// Started records the captures' zero: the relay's start, or before it
// (when its socket was bound: no datagram is read earlier).
func (s *Switch) Started(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.epoch, s.origin = time.Duration(t.UnixNano()), t
	if s.cur != nil {
		s.cur.epoch, s.cur.origin = s.epoch, s.origin
	}
}

// Start makes c the running capture; one runs at a time.
func (s *Switch) Start(c *Capture) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		return errors.New("a capture is already running: stop it first")
	}
	c.epoch, c.origin, c.failed, s.cur = s.epoch, s.origin, s.Failed, c
	return nil
}

// Stop ends the running capture, if any, at wall time wall since the
// relay started: it writes what is queued, closes and commits its files.
// note says what it dropped ("" if nothing).
func (s *Switch) Stop(wall time.Duration, st proxy.Stats) (note string, err error) {
	s.mu.Lock()
	c := s.cur
	s.cur = nil
	s.mu.Unlock()
	if c == nil {
		return "", nil
	}
	err = c.Finish(wall, st)
	return c.Note(), err
}
