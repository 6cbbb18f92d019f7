package live

import (
	"fmt"
	"math"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"jitterlab/lab"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
	"jitterlab/telemetry"
)

// relay is what a run reads of its [proxy.Relay] (a test's stand-in too).
type relay interface {
	Audit() proxy.Audit
	Stats() proxy.Stats
	Errors() []proxy.ErrorCount
	Addr() net.Addr
}

// Source is the proxy screen's view of a running relay: its counters,
// its audit (delay percentiles, the relayed stream's jitter, bytes, loss
// bursts) and, from the feed, each snapshot's delays and the jitter of the
// game's streams as they arrive. Link settings go through the run's
// conditions, as --flow and the control API's do.
type Source struct {
	r              relay
	clock          Clock
	cond           *conditions
	feed           *packetFeed // nil: delays and arrival jitter not measured
	listen, target string
	start          time.Time
	maxClients     int
	rec            *recorder     // R, and what records from the start (nil: nothing)
	tel            *telemetryRun // the game's telemetry (nil: none)

	mu        sync.Mutex
	changes   []Change
	stopped   bool
	telFrames uint64                                // the telemetry's frames handed to the screen so far
	telBuf    []telemetry.Received[telemetry.Frame] // reused for them
}

func newSource(r relay, cond *conditions, clock Clock, target string, start time.Time, feed *packetFeed) *Source {
	s := &Source{r: r, cond: cond, clock: clock, feed: feed, listen: r.Addr().String(), target: target, start: start}
	for _, a := range cond.Flows() { // --flow's, set before the start
		_, own := cond.Config(a)
		s.changes = append(s.changes, Change{What: a.String() + ": " + proxyctl.Describe(own), By: "--flow"})
	}
	return s
}

// timeline notes a scheduled change that applied.
func (s *Source) timeline(c appliedChange) {
	pc := Change{At: c.at.Sub(s.start), What: c.ch.What}
	switch {
	case c.by != "":
		pc.By = c.by
	case c.ch.API:
		pc.By, pc.What = "API", fmt.Sprintf("%v after POST /timeline: %s", c.ch.After, c.ch.What)
	default:
		pc.Timeline = true
	}
	if c.err != nil {
		pc.Refused = c.err.Error()
	}
	if c.missed > 0 {
		pc.What = missedText(c.missed) + pc.What
	}
	s.note(pc)
}

// note adds a change to the log (s.mu not held).
func (s *Source) note(pc Change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.changes) >= maxSourceChanges {
		s.changes = slices.Delete(s.changes, 0, len(s.changes)/2)
	}
	s.changes = append(s.changes, pc)
}

// maxSourceChanges bounds the change log the screen keeps (a script may
// call the API all day): beyond, the older half goes.
const maxSourceChanges = 10000

// Snapshot is the relay's state now; each call hands the delays and the
// game's frames since the previous one over once.
func (s *Source) Snapshot() Snapshot {
	au := s.r.Audit() // the relay's lock: never under s.mu
	now := s.clock.Now()
	var errs uint64
	var kinds []string
	for _, e := range s.r.Errors() {
		errs += e.Count
		kinds = append(kinds, e.Msg)
	}
	dir := func(d proxy.Dir) Dir {
		da := &au.Dirs[d]
		c := da.Counters
		nan := math.NaN()
		pd := Dir{In: c.Received + c.KernelDropped, Delivered: c.Delivered, Lost: c.Lost + c.QueueDropped,
			Dropped: c.Dropped() - c.Lost - c.QueueDropped, Duplicated: c.Duplicated, Reordered: c.Reordered,
			Bytes: int64(da.Bytes), LossBursts: int64(c.LossBursts), JitterMs: nan, ArrivalJitterMs: nan}
		if c.Delivered > 0 {
			pd.JitterMs = float64(da.Jitter) / 1e6
		}
		if s.feed != nil {
			pd.DelaysMs, pd.ArrivalJitterMs = s.feed.take(d, now)
			pd.JitterMs = s.feed.jitter(d, now)
		}
		return pd
	}
	up, down := dir(proxy.Up), dir(proxy.Down)
	groups := s.groups(au.Flows, now)
	evicted := s.r.Stats().Evicted
	s.mu.Lock()
	defer s.mu.Unlock()
	return Snapshot{Wall: now.Sub(s.start), Listen: s.listen, Target: s.target, Clients: len(au.Flows), Errors: errs, ErrorKinds: kinds,
		Evicted: evicted, MaxClients: s.maxClients,
		Up: up, Down: down, Groups: groups, Changes: append([]Change(nil), s.changes...), Stopped: s.stopped, Recording: s.rec.recording(),
		Game: s.game()}
}

// game is the telemetry's frames since the previous snapshot, each handed
// over once (nil: no telemetry); s.mu held.
func (s *Source) game() *Game {
	if s.tel == nil {
		return nil
	}
	s.telBuf, s.telFrames = s.tel.l.FramesAfter(s.telBuf[:0], s.telFrames)
	c := s.tel.l.Counts()
	return &Game{Frames: s.telFrames, Refused: c.RefusedTotal(), Points: GamePoints(nil, s.telBuf, s.start)}
}

// groups splits the traffic by link for the screen once some client has
// settings of its own (nil before: everybody's link is every client's):
// each link's counters from the feed, its settings from the conditions.
func (s *Source) groups(live []proxy.FlowAudit, now time.Time) []Group {
	if s.feed == nil {
		return nil
	}
	groups := s.feed.links(now) // hands the delays over: every snapshot takes them
	if len(groups) < 2 {
		return nil
	}
	relayed := map[string]bool{}
	for _, f := range live {
		relayed[f.Addr] = true
	}
	groups[0].Clients = len(live)
	for i := range groups[1:] {
		g := &groups[1+i]
		a, err := netip.ParseAddrPort(g.Addr)
		if err != nil {
			continue
		}
		cfg, own := s.cond.Config(a)
		g.Own = proxyctl.Describe(own)
		g.Set = map[string]string{}
		for _, p := range lab.Params() {
			if strings.HasPrefix(p.Key, "up.") || strings.HasPrefix(p.Key, "down.") {
				g.Set[p.Key] = p.Get(&cfg)
			}
		}
		if relayed[g.Addr] {
			g.Clients = 1
			groups[0].Clients--
		}
	}
	return groups
}

// Get is a link key's value in everybody's settings now ("": no such key).
func (s *Source) Get(key string) string {
	p, ok := lab.Lookup(key)
	if !ok {
		return ""
	}
	cfg, _ := s.cond.Config(netip.AddrPort{})
	return p.Get(&cfg)
}

// Apply checks the assignments as --set does and hands both links to the
// relay for the packets it receives from now on (all or none).
func (s *Source) Apply(sets [][2]string) error {
	var as []proxyctl.Assignment
	var what []string
	for _, kv := range sets {
		if err := lab.CheckAssignment(kv[0], kv[1]); err != nil {
			return err
		}
		as = append(as, proxyctl.Assignment{Key: kv[0], Value: kv[1]})
		what = append(what, kv[0]+"="+kv[1])
	}
	if err := s.cond.Set(netip.AddrPort{}, as); err != nil { // the relay's lock: never under s.mu
		return err
	}
	s.note(Change{At: s.clock.Now().Sub(s.start), What: strings.Join(what, " ")})
	return nil
}
