package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/netip"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"jitterlab/lab"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/recordings"
	"jitterlab/scenarios"
	"jitterlab/telemetry"
	"jitterlab/tui"
	"jitterlab/tui/proxyscreen"

	"github.com/gdamore/tcell/v2"
)

// maxFeedDelays bounds the delays kept between two snapshots per
// direction (the chart draws each column's range: more add nothing).
const maxFeedDelays = 1 << 13

// maxFeedFlows bounds the clients whose arrivals the feed follows; beyond,
// it starts over (memory stays bounded whatever addresses send).
const maxFeedFlows = 1024

// relayFeed takes the relay's packet events for the proxy screen: the
// delays added to the copies written since the last snapshot, the jitter
// of each client's stream as it reaches the proxy, and the counters of
// each link (everybody's, and each client's with settings of its own),
// so that the screen compares each link's settings with its own traffic.
type relayFeed struct {
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

func newRelayFeed() *relayFeed {
	return &relayFeed{flows: [2]map[proxy.FlowID]*arrivals{{}, {}}, own: map[netip.AddrPort]*linkFeed{}}
}

// applied follows the conditions (called with their lock held, never
// with the relay's): a client given settings of its own gets a link of its
// own, counted from now, and one put back on everybody's leaves it.
func (f *relayFeed) applied(a proxyctl.Applied) {
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
func (f *relayFeed) link(addr netip.AddrPort) *linkFeed {
	if l := f.own[addr]; l != nil {
		return l
	}
	return &f.everybody
}

// OnPacket is the relay's hook (called with its lock held: quick, and no
// call back into the relay).
func (f *relayFeed) OnPacket(e *proxy.PacketEvent) {
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
func (f *relayFeed) take(d proxy.Dir, now time.Time) (delays []float64, jitterMs float64) {
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
func (f *relayFeed) transitJitter(d proxy.Dir, l *linkFeed, now time.Time) float64 {
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
func (f *relayFeed) jitter(d proxy.Dir, now time.Time) float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.transitJitter(d, nil, now)
}

// links hands over each link's counters, and its delays since the last
// call: everybody's first, then the clients' own in address order.
func (f *relayFeed) links(now time.Time) []proxyscreen.Group {
	f.mu.Lock()
	defer f.mu.Unlock()
	addrs := slices.SortedFunc(maps.Keys(f.own), netip.AddrPort.Compare)
	out := make([]proxyscreen.Group, 0, 1+len(addrs))
	group := func(addr netip.AddrPort, l *linkFeed) proxyscreen.Group {
		g := proxyscreen.Group{}
		if addr.IsValid() {
			g.Addr = addr.String()
		}
		for d, pd := range []*proxyscreen.Dir{&g.Up, &g.Down} {
			ld := &l[d]
			*pd = proxyscreen.Dir{In: ld.in, Delivered: ld.delivered, Lost: ld.lost, Duplicated: ld.duplicated, Reordered: ld.reordered,
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

// relaySource is the proxy screen's view of a proxy.Relay: its counters,
// its audit (delay percentiles, the relayed stream's jitter, bytes, loss
// bursts) and, from the feed, each snapshot's delays and the jitter of the
// game's streams as they arrive. Link settings go through the run's
// conditions, as --flow and the control API's do.
type relaySource struct {
	r              *proxy.Relay
	cond           *proxyctl.Conditions
	feed           *relayFeed // nil: delays and arrival jitter not measured
	listen, target string
	start          time.Time
	maxClients     int
	rec            *screenRecorder // R, and what records from the start (nil: nothing)
	tel            *proxyTelemetry // the game's telemetry (nil: none)

	mu        sync.Mutex
	changes   []proxyscreen.Change
	stopped   bool
	telFrames uint64                                // the telemetry's frames handed to the screen so far
	telBuf    []telemetry.Received[telemetry.Frame] // reused for them
}

func newRelaySource(r *proxy.Relay, cond *proxyctl.Conditions, target string, start time.Time, feed *relayFeed) *relaySource {
	s := &relaySource{r: r, cond: cond, feed: feed, listen: r.Addr().String(), target: target, start: start}
	for _, a := range cond.Flows() { // --flow's, set before the start
		_, own := cond.Config(a)
		s.changes = append(s.changes, proxyscreen.Change{What: a.String() + ": " + proxyctl.Describe(own), By: "--flow"})
	}
	return s
}

// timeline notes a scheduled change that applied.
func (s *relaySource) timeline(c appliedChange) {
	pc := proxyscreen.Change{At: c.at.Sub(s.start), What: c.ch.What}
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
func (s *relaySource) note(pc proxyscreen.Change) {
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

func (s *relaySource) Snapshot() proxyscreen.Snapshot {
	au := s.r.Audit() // the relay's lock: never under s.mu
	now := time.Now()
	var errs uint64
	var kinds []string
	for _, e := range s.r.Errors() {
		errs += e.Count
		kinds = append(kinds, e.Msg)
	}
	dir := func(d proxy.Dir) proxyscreen.Dir {
		da := &au.Dirs[d]
		c := da.Counters
		nan := math.NaN()
		pd := proxyscreen.Dir{In: c.Received + c.KernelDropped, Delivered: c.Delivered, Lost: c.Lost + c.QueueDropped,
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
	return proxyscreen.Snapshot{Wall: now.Sub(s.start), Listen: s.listen, Target: s.target, Clients: len(au.Flows), Errors: errs, ErrorKinds: kinds,
		Evicted: evicted, MaxClients: s.maxClients,
		Up: up, Down: down, Groups: groups, Changes: append([]proxyscreen.Change(nil), s.changes...), Stopped: s.stopped, Recording: s.rec.recording(),
		Game: s.game()}
}

// game is the telemetry's frames since the previous snapshot, each handed
// over once (nil: no telemetry); s.mu held.
func (s *relaySource) game() *proxyscreen.Game {
	if s.tel == nil {
		return nil
	}
	s.telBuf, s.telFrames = s.tel.l.FramesAfter(s.telBuf[:0], s.telFrames)
	c := s.tel.l.Counts()
	return &proxyscreen.Game{Frames: s.telFrames, Refused: c.RefusedTotal(), Points: proxyscreen.GamePoints(nil, s.telBuf, s.start)}
}

// groups splits the traffic by link for the screen once some client has
// settings of its own (nil before: everybody's link is every client's):
// each link's counters from the feed, its settings from the conditions.
func (s *relaySource) groups(live []proxy.FlowAudit, now time.Time) []proxyscreen.Group {
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

func (s *relaySource) Get(key string) string {
	p, ok := lab.Lookup(key)
	if !ok {
		return ""
	}
	cfg, _ := s.cond.Config(netip.AddrPort{})
	return p.Get(&cfg)
}

// Apply checks the assignments as --set does and hands both links to the
// relay for the packets it receives from now on (all or none).
func (s *relaySource) Apply(sets [][2]string) error {
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
	s.note(proxyscreen.Change{At: time.Since(s.start), What: strings.Join(what, " ")})
	return nil
}

// screenRecorder is the proxy screen's R: it starts a proxy recording of
// the relayed traffic from now into a new file in dir, through the
// captures' switch, and R again closes it. The recording starts with the
// clients already relayed and their own settings, so it reads as one that
// ran from the start would from then on.
type screenRecorder struct {
	sw    *proxyrec.Switch
	r     *proxy.Relay
	cond  *proxyctl.Conditions
	dir   string
	name  string    // the scenario's
	bound time.Time // the captures' zero
	flags string    // the --record/--pcap capture running from the start ("": none)
	path  string    // the screen's recording running now ("": none)
	mu    sync.Mutex
}

// recording is what records now: R's file, or --record's and --pcap's
// ("" for none; nil recorder: none).
func (s *screenRecorder) recording() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return cmp.Or(s.path, s.flags)
}

// toggle starts or stops the screen's recording; the text is for the
// status line.
func (s *screenRecorder) toggle() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flags != "" {
		return "", fmt.Errorf("already capturing from the start (%s), closed when the proxy stops: R records only without them", s.flags)
	}
	if s.path != "" {
		path := s.path
		s.path = ""
		note, err := s.sw.Stop(time.Since(s.bound), s.r.Stats())
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if note != "" {
			note = " (" + note + ")"
		}
		return "recorded " + path + note + "; lab replay, export and plot read it", nil
	}
	cfg, _ := s.cond.Config(netip.AddrPort{})
	f, path, err := tui.CreateUnique(s.dir, "jitterlab-proxy-"+time.Now().Format("20060102-150405"), ".jlrec")
	if err != nil {
		return "", err
	}
	out := &output{w: f, name: path, f: f}
	w, err := recordings.NewWriter(out, proxyrec.Header(lab.HeaderOf(cfg, s.name, 0)))
	if err != nil {
		out.Abort()
		return "", err
	}
	flows := s.r.Audit().Flows // the clients relayed now, numbered as they came
	var last proxy.FlowID
	for _, fl := range flows {
		last = max(last, fl.ID) // the relay's hook names the later ones
	}
	c := proxyrec.New(proxyrec.Options{Recording: w, Listen: s.r.Addr(), Files: []proxyrec.Committer{out}, Base: s.r.Stats(), LastFlow: last})
	if err := s.sw.Start(c); err != nil {
		c.Finish(time.Since(s.bound), s.r.Stats())
		return "", errors.Join(err, os.Remove(path))
	}
	now := time.Now()
	for _, fl := range flows { // named first: their own settings then carry their flow
		if a, err := netip.ParseAddrPort(fl.Addr); err == nil {
			c.FlowStarted(fl.ID, a, now)
		}
	}
	for _, a := range s.cond.Flows() { // the clients' own settings in force
		_, own := s.cond.Config(a)
		c.Applied(proxyctl.Applied{Flow: a, Set: own}, now)
	}
	s.path = path
	return "recording to " + path + " (R stops)", nil
}

// proxyScreen shows the running relay (done reports its end) until q, a
// signal or the relay's end (--duration); q and signals stop the relay
// through stop. It returns the signal that stopped it (nil: none) and the
// relay's error once the screen has closed.
func proxyScreen(src *relaySource, sc *scenarios.Scenario, rec *screenRecorder, stop func(), done <-chan error, changes <-chan appliedChange, stderr io.Writer) (os.Signal, error) {
	view := proxyscreen.New(src, proxyscreen.Options{Scenario: sc, Record: rec.toggle})
	return runScreen(view, src, rec, stop, done, changes, stderr)
}

// screenView is the screen proxyScreen runs (a *proxyscreen.View).
type screenView interface {
	Run(tcell.Screen) error
	Signal() os.Signal
	Stop()
}

// screenGrace is how long the screen may take to close once the relay
// has stopped (a signal, --duration): it closes at its next tick, a tenth
// of a second. One that has not closed by then (a draw that never ends)
// is left behind, so that a signal always stops the proxy and closes its
// files.
const screenGrace = 2 * time.Second

// runScreen is proxyScreen with its view.
func runScreen(view screenView, src *relaySource, rec *screenRecorder, stop func(), done <-chan error, changes <-chan appliedChange, stderr io.Writer) (os.Signal, error) {
	ended := make(chan error, 1)
	quit := make(chan struct{})
	go func() {
		err := <-done
		src.mu.Lock()
		src.stopped = true
		src.mu.Unlock()
		ended <- err
	}()
	go func() {
		for {
			select {
			case c := <-changes:
				src.timeline(c)
			case <-quit:
				return
			}
		}
	}()
	shown := make(chan error, 1)
	go func() { shown <- view.Run(nil) }()
	var verr, err error
	relayEnded, abandoned := false, false
	select {
	case verr = <-shown:
	case err = <-ended:
		relayEnded = true
		select {
		case verr = <-shown:
		case <-time.After(screenGrace):
			abandoned = true
			go view.Stop() // it may wait for the draw for ever
			fmt.Fprintf(stderr, "lab proxy: the screen did not close within %v of the relay's end; stopping without it (if the terminal looks wrong, type reset)\n", screenGrace)
		}
	}
	stop()
	rec.mu.Lock()
	if rec.path != "" {
		fmt.Fprintf(stderr, "lab proxy: the recording R started, %s, is closed with the proxy\n", rec.path)
	}
	rec.mu.Unlock()
	close(quit)
	if !relayEnded {
		err = <-ended
	}
	var sig os.Signal
	if !abandoned {
		sig = view.Signal()
	}
	if errors.Is(verr, io.EOF) { // the terminal went away: a hangup, whichever came first
		io.WriteString(stderr, "lab proxy: stopped: the terminal went away\n")
		sig, verr = syscall.SIGHUP, nil
	}
	return sig, cmp.Or(verr, err)
}
