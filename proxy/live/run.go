package live

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strings"
	"time"

	"jitterlab/lab"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/scenarios"
)

// Options say what a run relays, what it writes and where it says so.
type Options struct {
	Listen, Target string     // as the user gave them (--listen, --to)
	Config         lab.Config // everybody's links (Up, Down) and the seed
	// Scenario is the scenario whose timeline runs (nil: none), Name its
	// name as recordings carry it, Timeline its changes ([Timeline]).
	Scenario      *scenarios.Scenario
	Name          string
	Timeline      []proxyctl.Timed
	Flows         []Flow        // clients with settings of their own from the start
	Limits        proxy.Limits  // validated
	ReleaseWindow time.Duration // as proxy.Options takes it (0: its default; negative: off)
	// Control is the control API's socket (nil: none), asked for on
	// ControlHost; the caller closes it.
	Control     net.Listener
	ControlHost string
	Telemetry   string // where the game's telemetry comes, host:port ("": none)
	// Pcap and Record are the captures' paths ("": none), opened by Open
	// (flag names the flag: "pcap", "record"). Create makes R's new files:
	// base+ext, or base-2+ext, … when that exists.
	Pcap, Record string
	Open         func(flag, path string) (File, error)
	Create       func(base, ext string) (f File, path string, err error)
	// Screen: a live screen reads the run ([Run.Source]); else a counter
	// line goes to Stdout every Every, the change log as it comes.
	Screen bool
	Every  time.Duration
	// Clock is the run's wall clock (nil: [System]). A run that captures
	// (Pcap, Record, R) wants the real one: the relay stamps its
	// datagrams with it, the captures their bounds and changes with this.
	Clock Clock
	// Stdout gets the first lines and the counter lines, Stderr the
	// warnings and what goes wrong as it does.
	Stdout, Stderr io.Writer
	// Ending (nil: nothing) is called once, when the relay has stopped and
	// before the files close (lab proxy stops catching signals then).
	Ending func()
}

// FlowError is a --flow the conditions refused: a bad command line.
type FlowError struct {
	Arg string
	Err error
}

func (e *FlowError) Error() string { return fmt.Sprintf("--flow %q: %v", e.Arg, e.Err) }

// Run is a relay running: [Start] starts it, [Run.Wait] waits for its end.
type Run struct {
	o        Options
	clock    Clock
	r        *proxy.Relay
	cond     *conditions
	log      *changeLog
	captures proxyrec.Switch
	periods  *auditPeriods
	tel      *telemetryRun
	srv      interface{ Close() error }
	src      *Source   // with Screen
	rec      *recorder // with Screen
	bound    time.Time // the captures' zero
	start    time.Time // the relay's
	done     chan error
	cancel   context.CancelFunc
}

// Start listens, opens the captures, starts the relay, the telemetry,
// the timeline and the control API, and writes the first lines (where it
// relays, the links, the clients' own, the timeline) to o.Stdout. The run
// ends when ctx is done, the screen quits or the relay fails; [Run.Wait]
// says how.
func Start(ctx context.Context, o Options) (_ *Run, err error) {
	clock := cmp.Or[Clock](o.Clock, System)
	cfg := o.Config
	ru := &Run{o: o, clock: clock, done: make(chan error, 1)}
	var feed *packetFeed
	opts := proxy.Options{Listen: o.Listen, Target: o.Target, Seed: cfg.Seed, Up: cfg.Up, Down: cfg.Down, Limits: o.Limits, ReleaseWindow: o.ReleaseWindow}
	switch {
	case o.Screen:
		feed = newPacketFeed()
		opts.OnPacket = func(e *proxy.PacketEvent) {
			feed.OnPacket(e)
			ru.captures.OnPacket(e)
		}
	case o.Pcap != "" || o.Record != "":
		opts.OnPacket = ru.captures.OnPacket
	}
	// The change log: the counter lines print it, the screen's c lists
	// it; a capture that fails mid-run says so there at once.
	ru.log = newChangeLog(proxyctl.MaxPending, clock)
	ru.captures.Failed = func(err error) {
		ru.log.log(proxyctl.Timed{What: err.Error()}, errCaptureStopped, "capture")
	}
	ru.bound = clock.Now() // the captures' zero: no datagram reaches the socket before
	ru.captures.Started(ru.bound)
	r, err := proxy.Listen(opts)
	if err != nil {
		return nil, err
	}
	ru.r = r
	ctx, ru.cancel = context.WithCancel(ctx)
	defer func() {
		if err != nil { // the relay never ran: let it close its sockets
			ru.cancel()
			r.Run(ctx)
			ru.tel.stop()
			if ru.cond != nil {
				ru.cond.Stop()
			}
		}
	}()
	if capt, err := openCaptures(&o, r.Addr()); err != nil {
		return nil, err
	} else if capt != nil {
		ru.captures.Start(capt)
	}
	// The telemetry listens once the captures are open: it reads on its
	// own goroutine from the start, and a datagram decoded before would
	// be missing from the recording.
	if ru.tel, err = startTelemetry(o.Telemetry, ru.log, &o.Config, ru.captures.Telemetry); err != nil {
		return nil, err
	}
	for _, w := range []string{proxy.ListenWarning(r.Addr()), r.ReceiveBufferWarning()} {
		if w != "" {
			fmt.Fprintf(o.Stderr, "lab proxy: warning: %s\n", w)
		}
	}
	ru.cond = newConditions(cfg, r, func(ch proxyctl.Timed, err error) { ru.log.log(ch, err, "") })
	// Every change of the settings goes into a recording and splits the
	// audit into periods, whoever made it.
	ru.periods = &auditPeriods{r: r, clock: clock}
	ru.cond.Observe(func(a proxyctl.Applied) {
		ru.captures.Applied(a, clock.Now())
		ru.periods.applied(a)
		if feed != nil {
			feed.applied(a) // the screen's links
		}
	})
	for _, f := range o.Flows {
		if err := ru.cond.Set(f.Addr, f.Set); err != nil {
			return nil, &FlowError{Arg: f.Arg, Err: err}
		}
	}
	stdout := o.Stdout
	fmt.Fprintf(stdout, "relaying %s → %s: up %s, down %s (seed %d)%s; Ctrl-C stops\n",
		addrText(o.Listen, r.Addr()), addrText(o.Target, r.Target()), linkText(&cfg, "up"), linkText(&cfg, "down"), cfg.Seed, bufferText(r.ReceiveBuffer()))
	ru.tel.printAddr(stdout)
	for _, a := range ru.cond.Flows() {
		fc, own := ru.cond.Config(a)
		fmt.Fprintf(stdout, "client %v has its own links (%s): up %s, down %s\n", a, proxyctl.Describe(own), linkText(&fc, "up"), linkText(&fc, "down"))
	}
	sc := o.Scenario
	if n := len(o.Timeline); n > 0 {
		noun := "changes"
		if n == 1 {
			noun = "change"
		}
		fmt.Fprintf(stdout, "timeline of %s: %d %s, at wall time from now\n", sc.Name, n, noun)
	}
	if sc != nil {
		if _, dropped, err := scenarios.TimelineOf(sc, cfg.Duration); err == nil && len(dropped) > 0 {
			fmt.Fprintf(stdout, "timeline entries overridden by --set: %s\n", strings.Join(dropped, ", "))
		}
	}
	ru.start = clock.Now()
	ru.periods.begin(ru.start)
	go func() { ru.done <- r.Run(ctx) }()
	// The audit per period keeps the clients forgotten during the run.
	go ru.periods.watch(ctx, min(o.Limits.IdleTimeout/2, time.Second))
	if err := ru.cond.Schedule(o.Timeline); err != nil {
		ru.cancel()
		<-ru.done
		ru.cond.Stop()
		ru.tel.stop()
		ru.captures.Stop(clock.Now().Sub(ru.bound), r.Stats())
		return nil, err
	}
	if o.Control != nil {
		ru.srv = proxyctl.Serve(o.Control, proxyctl.NewHandler(ru.cond.Conditions, r, proxyctl.Options{Log: ru.log.apiLog, Host: o.ControlHost}))
		fmt.Fprintf(stdout, "control API on http://%v (GET/PUT /params, POST/DELETE /timeline, GET /counters, GET /metrics)\n", o.Control.Addr())
	}
	if o.Screen {
		ru.src = newSource(r, ru.cond, clock, o.Target, ru.start, feed)
		ru.src.maxClients = o.Limits.MaxFlows
		ru.src.tel = ru.tel
		ru.src.listen, ru.src.target = addrText(o.Listen, r.Addr()), addrText(o.Target, r.Target()) // as the first line says them
		ru.rec = &recorder{sw: &ru.captures, r: r, cond: ru.cond, clock: clock, create: o.Create, name: o.Name, bound: ru.bound}
		for _, f := range []struct{ flag, path string }{{"--record", o.Record}, {"--pcap", o.Pcap}} {
			if f.path != "" {
				ru.rec.flags = strings.TrimPrefix(ru.rec.flags+" and "+f.flag+" "+f.path, " and ")
			}
		}
		ru.src.rec = ru.rec
	}
	return ru, nil
}

// bufferText is the first line's account of the receive buffer the
// kernel granted each of the relay's sockets ("" where not known).
func bufferText(bytes int) string {
	if bytes == 0 {
		return ""
	}
	return "; receive buffer " + proxy.ByteSize(bytes) + " a socket"
}

// Source is what the live screen reads (nil without Options.Screen).
func (ru *Run) Source() *Source { return ru.src }

// Record is the screen's R: it starts a recording of the relayed traffic
// from now into a new file, or stops the one running; the text is for
// the status line.
func (ru *Run) Record() (string, error) { return ru.rec.toggle() }

// Result is how a run ended and what it relayed: [Result.WriteText] is
// the closing text.
type Result struct {
	Wall   time.Duration // the relay's run, to its stop
	Err    error         // the relay's, or a capture's that failed
	Signal os.Signal     // what closed the screen (nil: none, or q)
	// Notes are for standard error after the closing text: a capture's
	// account, change log entries lost.
	Notes []string

	stats  proxy.Stats
	errs   []proxy.ErrorCount
	audit  proxy.Audit
	marks  []auditMark
	own    map[netip.AddrPort]string // each client's own settings at the end
	window time.Duration             // the release window in force (0: off)
	tel    *telemetryRun
}

// Wait shows view (nil: the counter lines) until the run ends, then stops
// the relay's conditions, the telemetry and the captures, and returns the
// run's account.
func (ru *Run) Wait(view Screen) Result {
	var err error
	var sig os.Signal
	if view != nil {
		sig, err = runScreen(view, ru.src, ru.rec, ru.cancel, ru.done, ru.log.ch, ru.o.Stderr)
	} else {
		err = ru.counterLines()
	}
	defer ru.cancel()
	if ru.o.Ending != nil {
		ru.o.Ending()
	}
	ru.cond.Stop()
	au := ru.r.Audit()
	res := Result{Signal: sig, stats: ru.r.Stats(), errs: ru.r.Errors(), audit: au, marks: ru.periods.periods(au),
		own: map[netip.AddrPort]string{}, window: inForce(ru.o.ReleaseWindow), tel: ru.tel}
	// The relay's own run (to its stop), as the audit's: not the time
	// the screen took to notice it ended.
	res.Wall = cmp.Or(au.Wall, ru.clock.Now().Sub(ru.start))
	for _, a := range ru.cond.Flows() {
		if _, as := ru.cond.Config(a); len(as) > 0 {
			res.own[a] = proxyctl.Describe(as)
		}
	}
	ru.tel.stop()
	note, cerr := ru.captures.Stop(ru.clock.Now().Sub(ru.bound), res.stats)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	if n := ru.log.lost.Load(); n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d entries of the change log (API requests, scheduled changes) not logged: it was full", n))
	}
	if ru.srv != nil {
		ru.srv.Close()
	}
	res.Err = cmp.Or(err, cerr)
	return res
}

// inForce is the release window a relay runs with (0: off), given what
// proxy.Options took.
func inForce(relay time.Duration) time.Duration {
	switch {
	case relay < 0:
		return 0
	case relay == 0:
		return proxy.DefaultReleaseWindow
	}
	return relay
}

// WriteText writes the end of the run: the summary, the clients at the
// end, the audit and the telemetry's account.
func (res *Result) WriteText(w io.Writer) {
	writeProxySummary(w, res.Wall, res.stats, res.errs)
	writeProxyFlows(w, res.audit, res.own)
	writeProxyAudit(w, res.audit, res.marks, res.window)
	res.tel.writeAccount(w)
}

// counterLines prints a counter line every o.Every and the change log
// as it comes until the relay ends, and returns its error.
func (ru *Run) counterLines() error {
	stdout, stderr := ru.o.Stdout, ru.o.Stderr
	r, start := ru.r, ru.start
	stamp := func(t time.Time) string {
		return fmt.Sprintf("%s +%.1fs", t.Format("15:04:05.000"), t.Sub(start).Seconds())
	}
	printChange := func(c appliedChange) {
		what := c.ch.What
		if c.err != nil {
			what += " — refused: " + c.err.Error()
		}
		what = strings.ReplaceAll(what, "\n", " ") // one line per change, whatever the error's text
		if c.missed > 0 {
			what = missedText(c.missed) + what
		}
		switch {
		case c.by == "capture" || c.by == "telemetry":
			fmt.Fprintf(stderr, "lab proxy: %s %s\n", stamp(c.at), strings.Replace(what, " — refused: ", ": ", 1))
			return
		case c.by == "API":
			fmt.Fprintf(stdout, "%s  API %s\n", stamp(c.at), what)
			return
		case c.ch.API:
			fmt.Fprintf(stdout, "%s  change %v after POST /timeline: %s\n", stamp(c.at), c.ch.After, what)
			return
		}
		fmt.Fprintf(stdout, "%s  change at %v: %s\n", stamp(c.at), c.ch.After, what)
	}
	tick := ru.clock.NewTicker(ru.o.Every)
	defer tick.Stop()
	errs := errorReporter{w: stderr}
	var evicted, refused uint64 // clients evicted, datagrams refused, as of the last counter line
	max := ru.o.Limits.MaxFlows
	for {
		select {
		case err := <-ru.done:
			ru.cond.Stop()
			for len(ru.log.ch) > 0 {
				printChange(<-ru.log.ch)
			}
			errs.report(r.Errors())
			return err
		case c := <-ru.log.ch:
			printChange(c)
		case now := <-tick.C():
			st := r.Stats()
			full := ""
			if st.Evicted > evicted { // each new client beyond the table evicts the longest idle
				full = fmt.Sprintf("  evicted %d clients: more than --max-clients %d send", st.Evicted-evicted, max)
				evicted = st.Evicted
			}
			if st.Refused > refused { // a new client finding every place held by an active conversation
				full += fmt.Sprintf("  refused %d datagrams of new clients: --max-clients %d, each in a conversation active in the last %v", st.Refused-refused, max, proxy.ActiveWindow)
				refused = st.Refused
			}
			fmt.Fprintf(stdout, "%s  clients %d  up %s  down %s%s%s\n", stamp(now), st.Flows, dirLine(st.Up), dirLine(st.Down), full, errs.report(r.Errors()))
		}
	}
}
