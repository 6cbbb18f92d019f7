package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"jitterlab/lab"
	"jitterlab/netem"
	"jitterlab/param"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/scenarios"
	"jitterlab/tui/proxyscreen"
)

// minProxyEvery is the shortest period of the proxy's counter line.
const minProxyEvery = 100 * time.Millisecond

func cmdProxy(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var listen, target, control, pcapPath, recordPath string
	var every time.Duration
	var flows []flowOverride
	limits := proxy.DefaultLimits()
	fs := newFlagSet("proxy", "--listen 127.0.0.1:7777 --to 127.0.0.1:7778 [--scenario NAME] [--set up.loss=2%]", stderr, withExamples(proxyHelp,
		"lab proxy --listen 127.0.0.1:7777 --to 127.0.0.1:7778 --scenario mobile-4g",
		"lab proxy --to 127.0.0.1:7778 --set link.latency=80ms --flow '127.0.0.1:5001 up.loss=10%'",
		"lab proxy --to 127.0.0.1:7778 --control 127.0.0.1:9000 --duration 10m --no-tui"))
	o.register(fs)
	fs.StringVar(&listen, "listen", "127.0.0.1:7777", "where the game client sends (`host:port`; beyond 127.0.0.1 other machines can use the relay)")
	fs.StringVar(&target, "to", "", "the game server (`host:port`)")
	every = time.Second
	fs.Var(&proxyEveryFlag{p: &every}, "every", "how often to print the counters, a `duration` from 100ms up to the --duration")
	noTUI := fs.Bool("no-tui", false, "print counter lines, not the live screen (the default when standard output is not a terminal)")
	fs.Func("flow", "links of a client's own: `'ADDR KEY=VALUE ...'`, e.g. --flow '127.0.0.1:5001 up.loss=5%' (repeatable)", func(v string) error {
		f, err := parseFlowFlag(v)
		flows = append(flows, f)
		return err
	})
	fs.StringVar(&control, "control", "", "serve the control API (HTTP/JSON, /metrics) on this loopback `host:port`, e.g. 127.0.0.1:9000")
	fs.IntVar(&limits.MaxFlows, "max-clients", limits.MaxFlows, "client addresses relayed at once; a new one beyond evicts the longest idle, a client in a conversation (a reply, then more) last and only after a second without a packet (else the new one is refused)")
	fs.DurationVar(&limits.IdleTimeout, "idle-timeout", limits.IdleTimeout, "forget a client after this long without a packet either way")
	fs.IntVar(&limits.FlowPackets, "inflight-packets", limits.FlowPackets, "datagrams held per client and direction; more are dropped and counted")
	fs.IntVar(&limits.FlowBytes, "inflight-bytes", limits.FlowBytes, "payload bytes held per client and direction; more are dropped and counted")
	fs.StringVar(&pcapPath, "pcap", "", "write the relayed datagrams to `FILE` as pcapng (both sides of the relay, fate as comment)")
	window := &releaseWindowFlag{}
	fs.Var(window, "release-window", "how late a copy may leave (never early) to share a wake-up with the next at high packet rates, a `duration` from 0 (off) up to "+proxy.MaxReleaseWindow.String()+"; 0 turns it off: more CPU, every copy as close to its time as the relay can (default "+proxy.DefaultReleaseWindow.String()+")")
	telemetryAddr := telemetryFlag(fs)
	fs.StringVar(&recordPath, "record", "", "record every relayed datagram to `FILE` (wall time in and out, fate, delay added; 'lab replay', 'export --packets' and 'plot' read it)")
	// The proxy runs until interrupted unless --duration is given; the
	// shared flag's default (a simulated minute) does not apply.
	d := fs.Lookup("duration")
	d.Usage, d.DefValue = "stop after this much wall time, a `duration` (default: run until interrupted)", "0" // the zero value: no second default
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if !o.given("every") && o.given("duration") {
		every = min(every, o.duration) // the default never outlasts the run
	}
	if err := checkProxyFlags(&o, every, &limits); err != nil {
		return cmdLineErr(err)
	}
	if target == "" {
		return badUsage("--to: name the game server, e.g. --to 127.0.0.1:7778")
	}
	if err := checkProxyAddrs(listen, target); err != nil {
		return err
	}
	if err := proxySets(o.sets); err != nil {
		return err
	}
	cfg, sc, err := o.config()
	if err != nil {
		return err
	}
	timeline, late, err := proxyTimeline(cfg, sc, &o)
	if err != nil {
		return cmdLineErr(err)
	}
	for _, l := range late {
		fmt.Fprintf(stderr, "lab proxy: warning: %s\n", l)
	}
	// The files the proxy reads: its scenario, the traces of --set and
	// --flow; a capture written over one would destroy it.
	inputs := o.inputs()
	for _, f := range flows {
		for _, a := range f.set {
			inputs = appendTraceFile(inputs, a.Key, a.Value)
		}
	}
	if err := checkOutputs(map[string]string{"pcap": pcapPath, "record": recordPath}, inputs...); err != nil {
		return err
	}
	for _, out := range []struct{ flag, path string }{{"pcap", pcapPath}, {"record", recordPath}} {
		if out.path == "-" {
			return badUsage("--%s -: the proxy prints its counters on standard output; name a file", out.flag)
		}
	}
	var controlLn net.Listener
	if control != "" {
		if controlLn, err = listenControl(control); err != nil {
			return err
		}
		defer controlLn.Close()
	}
	screen := !*noTUI && isTerminal(stdout)
	var captures proxyrec.Switch
	var feed *relayFeed
	opts := proxy.Options{Listen: listen, Target: target, Seed: cfg.Seed, Up: cfg.Up, Down: cfg.Down, Limits: limits, ReleaseWindow: window.relay}
	capturing := pcapPath != "" || recordPath != ""
	switch {
	case screen:
		feed = newRelayFeed()
		opts.OnPacket = func(e *proxy.PacketEvent) {
			feed.OnPacket(e)
			captures.OnPacket(e)
		}
	case capturing:
		opts.OnPacket = captures.OnPacket
	}
	// The change log: the counter lines print it, the screen's c lists
	// it; a capture that fails mid-run says so there at once.
	changeLog := newChangeLog(proxyctl.MaxPending)
	changes := changeLog.ch
	captures.Failed = func(err error) {
		changeLog.add(appliedChange{ch: proxyctl.Timed{What: err.Error()}, err: errCaptureStopped, at: time.Now(), by: "capture"})
	}
	bound := time.Now() // the captures' zero: no datagram reaches the socket before
	captures.Started(bound)
	r, err := proxy.Listen(opts)
	if err != nil {
		return err
	}
	tel, err := startTelemetry(*telemetryAddr, changeLog, captures.Telemetry)
	if err != nil {
		return err
	}
	defer tel.stop(nil)
	if capt, err := openProxyCaptures(pcapPath, recordPath, stdout, r.Addr(), target, cfg, o.name()); err != nil {
		return err
	} else if capt != nil {
		captures.Start(capt)
	}
	if w := proxy.ListenWarning(r.Addr()); w != "" {
		fmt.Fprintf(stderr, "lab proxy: warning: %s\n", w)
	}
	var start time.Time // set before the relay runs and the timeline is scheduled
	cond := proxyctl.New(cfg, r, func(ch proxyctl.Timed, err error) {
		at := time.Now()
		changeLog.add(appliedChange{ch: ch, err: err, at: at})
	})
	defer cond.Stop()
	// Every change of the settings goes into a recording and splits the
	// audit into periods, whoever made it.
	periods := &auditPeriods{r: r}
	cond.Observe(func(a proxyctl.Applied) {
		captures.Applied(a, time.Now())
		periods.applied(a)
		if feed != nil {
			feed.applied(a) // the screen's links
		}
	})
	for _, f := range flows {
		if err := cond.Set(f.addr, f.set); err != nil {
			return badUsage("--flow %q: %v", f.arg, err)
		}
	}

	ctx, stop, caught := signalContext(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if o.given("duration") {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	ctx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	// Standard output closed by its reader (… | head, a log shipper that
	// died): stop as a signal does, closing the files, and exit as a
	// closed pipe does, rather than die of SIGPIPE mid-recording.
	outClosed := &pipeWatch{w: stdout, stop: cancelRun}
	if !screen {
		signal.Ignore(syscall.SIGPIPE) // a write to it then fails with EPIPE
		stdout = outClosed
	}
	fmt.Fprintf(stdout, "relaying %s → %s: up %s, down %s (seed %d); Ctrl-C stops\n",
		addrText(listen, r.Addr()), addrText(target, r.Target()), linkText(&cfg, "up"), linkText(&cfg, "down"), cfg.Seed)
	tel.printAddr(stdout)
	for _, a := range cond.Flows() {
		fc, own := cond.Config(a)
		fmt.Fprintf(stdout, "client %v has its own links (%s): up %s, down %s\n", a, proxyctl.Describe(own), linkText(&fc, "up"), linkText(&fc, "down"))
	}
	if len(timeline) > 0 {
		noun := "changes"
		if len(timeline) == 1 {
			noun = "change"
		}
		fmt.Fprintf(stdout, "timeline of %s: %d %s, at wall time from now\n", sc.Name, len(timeline), noun)
	}
	if sc != nil {
		if _, dropped, err := lab.TimelineOf(sc, cfg.Duration); err == nil && len(dropped) > 0 {
			fmt.Fprintf(stdout, "timeline entries overridden by --set: %s\n", strings.Join(dropped, ", "))
		}
	}
	start = time.Now()
	periods.begin(start)
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	// The audit per period keeps the clients forgotten during the run.
	go periods.watch(ctx, min(limits.IdleTimeout/2, time.Second))
	if err := cond.Schedule(timeline); err != nil {
		cancelRun()
		<-done
		captures.Stop(time.Since(bound), r.Stats())
		return err
	}
	if controlLn != nil {
		host, _, _ := net.SplitHostPort(control) // checked by listenControl
		srv := proxyctl.Serve(controlLn, proxyctl.NewHandler(cond, r, proxyctl.Options{Log: apiLog(changeLog), Host: host}))
		defer srv.Close()
		fmt.Fprintf(stdout, "control API on http://%v (GET/PUT /params, POST/DELETE /timeline, GET /counters, GET /metrics)\n", controlLn.Addr())
	}
	// finish prints the end of the run and ends the captures.
	finish := func(err error, sig os.Signal) error {
		// A terminal going away hangs up more than once (the kernel, the
		// shell): that must not end it before its files are closed.
		signal.Ignore(syscall.SIGHUP)
		stop() // a second Ctrl-C now ends the process at once
		cond.Stop()
		au := r.Audit()
		// The relay's own run (to its stop), as the audit's: not the time
		// the screen took to notice it ended.
		wall := cmp.Or(au.Wall, time.Since(start))
		writeProxySummary(stdout, wall, r.Stats(), r.Errors())
		writeProxyFlows(stdout, au, cond)
		writeProxyAudit(stdout, au, periods.periods(au), window.inForce())
		tel.stop(stdout)
		note, cerr := captures.Stop(time.Since(bound), r.Stats())
		if note != "" {
			fmt.Fprintf(stderr, "lab proxy: %s\n", note)
		}
		if n := changeLog.lost.Load(); n > 0 {
			fmt.Fprintf(stderr, "lab proxy: %d entries of the change log (API requests, scheduled changes) not logged: it was full\n", n)
		}
		if err = cmp.Or(err, cerr, outClosed.closed()); err == nil {
			if sig = cmp.Or(sig, caught()); sig != nil { // as every lab command a signal stops
				err = interrupted(sig, fmt.Sprintf("stopped after %.1fs; the summary and the audit above cover the run so far", wall.Seconds()))
			}
		}
		return err
	}
	if screen {
		src := newRelaySource(r, cond, target, start, feed)
		src.maxClients = limits.MaxFlows
		src.tel = tel
		src.listen, src.target = addrText(listen, r.Addr()), addrText(target, r.Target()) // as the first line says them
		rec := &screenRecorder{sw: &captures, r: r, cond: cond, dir: ".", name: o.name(), bound: bound}
		for _, f := range []struct{ flag, path string }{{"--record", recordPath}, {"--pcap", pcapPath}} {
			if f.path != "" {
				rec.flags = strings.TrimPrefix(rec.flags+" and "+f.flag+" "+f.path, " and ")
			}
		}
		src.rec = rec
		sig, err := proxyScreen(src, sc, rec, cancelRun, done, changes, stderr)
		return finish(err, sig)
	}
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
	tick := time.NewTicker(every)
	defer tick.Stop()
	errs := errorReporter{w: stderr}
	var evicted, refused uint64 // clients evicted, datagrams refused, as of the last counter line
	for {
		select {
		case err := <-done:
			cond.Stop()
			for len(changes) > 0 {
				printChange(<-changes)
			}
			errs.report(r.Errors())
			return finish(err, nil)
		case c := <-changes:
			printChange(c)
		case now := <-tick.C:
			st := r.Stats()
			full := ""
			if st.Evicted > evicted { // each new client beyond the table evicts the longest idle
				full = fmt.Sprintf("  evicted %d clients: more than --max-clients %d send", st.Evicted-evicted, limits.MaxFlows)
				evicted = st.Evicted
			}
			if st.Refused > refused { // a new client finding every place held by an active conversation
				full += fmt.Sprintf("  refused %d datagrams of new clients: --max-clients %d, each in a conversation active in the last %v", st.Refused-refused, limits.MaxFlows, proxy.ActiveWindow)
				refused = st.Refused
			}
			fmt.Fprintf(stdout, "%s  clients %d  up %s  down %s%s%s\n", stamp(now), st.Flows, dirLine(st.Up), dirLine(st.Down), full, errs.report(r.Errors()))
		}
	}
}

// signalContext is signal.NotifyContext that also tells which signal came
// (nil: none yet): stop restores the signals' default action.
func signalContext(sigs ...os.Signal) (ctx context.Context, stop func(), caught func() os.Signal) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	signalHandlers.Add(1)
	var once sync.Once
	var mu sync.Mutex
	var got os.Signal
	go func() {
		select {
		case sig := <-ch:
			signalCaught.Store(true)
			mu.Lock()
			got = sig
			mu.Unlock()
			cancel()
		case <-ctx.Done():
		}
	}()
	stop = func() {
		signal.Stop(ch)
		cancel()
		once.Do(func() { signalHandlers.Add(-1) })
	}
	caught = func() os.Signal {
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	return ctx, stop, caught
}

// errCaptureStopped is what a capture that failed mid-run does then.
var errCaptureStopped = errors.New("nothing more is written to it; the relay goes on")

// appliedChange is a scheduled change as it applied, or (by "API") a
// control API request as it was answered (err: refused), or (by
// "capture") a capture's file that failed (What) and errCaptureStopped.
type appliedChange struct {
	ch     proxyctl.Timed
	err    error
	at     time.Time
	by     string
	missed uint64 // entries not logged before this one (see changeLog)
}

// apiLog hands the control API's requests, as answered, to the change
// log: the counter lines print them, the screen's c lists them.
func apiLog(l *changeLog) func(what string, err error) {
	return func(what string, err error) {
		l.add(appliedChange{ch: proxyctl.Timed{What: what}, err: err, at: time.Now(), by: "API"})
	}
}

// changeLog is the run's change log: a bounded queue the counter lines or
// the screen read. An entry that finds it full is not kept but counted,
// and the next entry kept says how many went before it (missed); the
// summary says how many in all.
type changeLog struct {
	ch      chan appliedChange
	pending atomic.Uint64 // entries not kept since the last kept
	lost    atomic.Uint64 // in all
}

func newChangeLog(n int) *changeLog { return &changeLog{ch: make(chan appliedChange, n)} }

// add keeps c, or counts it when the log is full.
func (l *changeLog) add(c appliedChange) {
	c.missed = l.pending.Swap(0)
	select {
	case l.ch <- c:
	default:
		l.pending.Add(c.missed + 1)
		l.lost.Add(1)
	}
}

// missedText is what a log line says of the entries not kept before it.
func missedText(n uint64) string {
	if n == 1 {
		return "(1 entry before this one not logged: the log was full) "
	}
	return fmt.Sprintf("(%d entries before this one not logged: the log was full) ", n)
}

// checkProxyAddrs refuses a --listen or --to that is not a host:port
// with a port number, and a --listen that is no address (exit 2); a --to
// whose host does not resolve is found when the relay starts.
func checkProxyAddrs(listen, target string) error {
	for _, a := range []struct {
		flag, addr string
		lo         uint64
	}{{"listen", listen, 0}, {"to", target, 1}} {
		_, port, err := net.SplitHostPort(a.addr)
		if err != nil {
			return badUsage("--%s %q: want host:port, e.g. 127.0.0.1:7777", a.flag, a.addr)
		}
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n < a.lo {
			return badUsage("--%s %q: port %q: allowed %d to 65535", a.flag, a.addr, port, a.lo)
		}
	}
	if _, err := net.ResolveUDPAddr("udp", listen); err != nil {
		return badUsage("--listen %q: %v", listen, err)
	}
	return nil
}

// proxySets refuses --set keys that are not link settings: the proxy
// relays a link; the game's own client and server are the real ones.
func proxySets(sets []string) error {
	for _, a := range sets {
		k, _, err := lab.ParseAssignment(a)
		if err != nil {
			continue // o.config names the malformed assignment
		}
		if _, known := lab.Lookup(k); !known {
			continue // o.config names the unknown key and its neighbours
		}
		switch {
		case k == "sim.seed":
			continue
		case k == "sim.duration":
			return badUsage("--set %s: the proxy relays in wall time, so sim.duration does not apply; for how long it runs give --duration, e.g. --duration 10s (without it, until interrupted)", a)
		case strings.HasPrefix(k, "sim."):
			return badUsage("--set %s: %s does not apply to the proxy: --set takes link keys (up.*, down.*, link.*) and sim.seed", a, k)
		}
		if err := proxyctl.CheckLinkKey(k); err != nil {
			return badUsage("--set %s: %s is not a link setting: the proxy relays a link between your game's real client and server, so the model's client.* and server.* keys do not apply; allowed up.*, down.* and link.* (see lab proxy -h)", a, k)
		}
	}
	return nil
}

// proxyEveryFlag is the proxy's --every, the counter line's period: its
// own rule (100ms up to the run's --duration), not the simulator's
// sample period nor the 1ms of other duration flags.
type proxyEveryFlag struct {
	p   *time.Duration
	err error
}

// proxyEveryRule is what --every allows, as its errors state it.
const proxyEveryRule = "the counter line's period from 100ms up to the run's --duration (without one, up to 1000h)"

func (f *proxyEveryFlag) String() string {
	if f.p == nil {
		return "0" // the flag package's zero value: -h then shows the default
	}
	return f.p.String()
}

func (f *proxyEveryFlag) Set(s string) error {
	d, err := param.Duration("every", s)
	if err != nil || d < minProxyEvery || d > maxFlagDuration {
		f.err = badFlag("every", s, proxyEveryRule, "1s")
		return f.err
	}
	*f.p = d
	return nil
}

func (f *proxyEveryFlag) failure() error { return f.err }

// releaseWindowFlag is the proxy's --release-window: 0 (off) up to
// proxy.MaxReleaseWindow, as proxybench's.
type releaseWindowFlag struct {
	relay time.Duration // what proxy.Options takes (0: its default; negative: off)
	err   error
}

// releaseWindowRule is what --release-window allows, as its errors state it.
var releaseWindowRule = "0 (off) up to " + proxy.MaxReleaseWindow.String() + ", a duration such as 50us"

func (f *releaseWindowFlag) String() string { return "" } // -h states the default in the usage

// inForce is the window the relay runs with (0: off).
func (f *releaseWindowFlag) inForce() time.Duration {
	switch {
	case f.relay < 0:
		return 0
	case f.relay == 0:
		return proxy.DefaultReleaseWindow
	}
	return f.relay
}

func (f *releaseWindowFlag) Set(s string) error {
	f.relay, f.err = relayReleaseWindow(s)
	return f.err
}

func (f *releaseWindowFlag) failure() error { return f.err }

// relayReleaseWindow is --release-window's value as proxy.Options takes
// it: "" (not given) the relay's default, 0 off (negative there).
func relayReleaseWindow(s string) (time.Duration, error) {
	if s == "" {
		return proxy.DefaultReleaseWindow, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil || d < 0 || d > proxy.MaxReleaseWindow:
		return 0, badFlag("release-window", s, releaseWindowRule, "0")
	case d == 0:
		return -1, nil
	}
	return d, nil
}

// checkProxyFlags bounds every numeric flag before anything starts.
func checkProxyFlags(o *runOptions, every time.Duration, l *proxy.Limits) error {
	if o.given("duration") && o.duration <= 0 {
		return fmt.Errorf("--duration %v: allowed a wall time > 0, or leave it out to run until interrupted", o.duration)
	}
	if o.given("every") && o.given("duration") && every > o.duration {
		return fmt.Errorf("--every %v: allowed %s; here --duration is %v", every, proxyEveryRule, o.duration)
	}
	switch {
	case l.MaxFlows < 1 || l.MaxFlows > proxy.MaxMaxFlows:
		return fmt.Errorf("--max-clients %d: allowed 1 to %d", l.MaxFlows, proxy.MaxMaxFlows)
	case l.IdleTimeout < proxy.MinIdleTimeout || l.IdleTimeout > proxy.MaxIdleTimeout:
		return fmt.Errorf("--idle-timeout %v: allowed %v to %v", l.IdleTimeout, proxy.MinIdleTimeout, proxy.MaxIdleTimeout)
	case l.FlowPackets < 1 || l.FlowPackets > proxy.MaxFlowPackets:
		return fmt.Errorf("--inflight-packets %d: allowed 1 to %d", l.FlowPackets, proxy.MaxFlowPackets)
	case l.FlowBytes < proxy.MaxPacket || l.FlowBytes > proxy.MaxFlowBytes:
		return fmt.Errorf("--inflight-bytes %d: allowed %d (one largest datagram) to %d", l.FlowBytes, proxy.MaxPacket, proxy.MaxFlowBytes)
	}
	l.TotalBytes = max(l.TotalBytes, l.FlowBytes)
	return l.Validate()
}

// proxyTimeline is what 'lab run' schedules for the scenario (its
// timeline and the changes its oscillators and flaps make, see
// [lab.TimelineOf]) as changes in wall time from the start; changes at one
// time apply together, in order. Keys that are not link settings are left
// out with a note. With --duration, the timeline's changes it does not
// reach are returned as warnings; without, the oscillators and flaps run
// over the scenario's duration, as in 'lab run', said in a warning.
func proxyTimeline(cfg lab.Config, sc *scenarios.Scenario, o *runOptions) (out []proxyctl.Timed, warn []string, err error) {
	if sc == nil {
		return nil, nil, nil
	}
	changes, _, err := lab.TimelineOf(sc, cfg.Duration) // without pinned keys, as in every command
	if err != nil {
		return nil, nil, err
	}
	if o.given("duration") {
		for _, ch := range sc.Timeline {
			if ch.At >= o.duration {
				var set []string
				for _, a := range ch.Set {
					set = append(set, a.Key+"="+a.Value)
				}
				warn = append(warn, fmt.Sprintf("%s:%d: timeline change at %v (%s) not reached: --duration %v stops the proxy first", ch.File, ch.Line, ch.At, strings.Join(set, " "), o.duration))
			}
		}
	} else if len(sc.Oscillators)+len(sc.Flaps) > 0 {
		warn = append(warn, fmt.Sprintf("the oscillators and flaps of %s run for its %v, as in 'lab run'; give --duration to run them longer", sc.Name, cfg.Duration))
	}
	var what []string
	for _, ch := range changes {
		if o.given("duration") && ch.At >= o.duration {
			continue
		}
		if len(out) == 0 || out[len(out)-1].After != ch.At {
			if len(out) > 0 {
				out[len(out)-1].What = strings.Join(what, " ")
			}
			out, what = append(out, proxyctl.Timed{After: ch.At}), nil
		}
		t := &out[len(out)-1]
		for _, a := range ch.Set {
			p, ok := lab.Lookup(a.Key)
			if ok && !p.Live {
				return nil, nil, fmt.Errorf("%s:%d: %s cannot change during a run", ch.File, a.Line, a.Key)
			}
			if err := lab.Set(&cfg, a.Key, a.Value); err != nil {
				return nil, nil, fmt.Errorf("%s:%d: %w", ch.File, a.Line, err)
			}
			w := a.Key + "=" + a.Value
			if proxyctl.CheckLinkKey(a.Key) != nil {
				w += " (not a link setting: ignored)"
			} else {
				t.Set = append(t.Set, proxyctl.Assignment{Key: a.Key, Value: a.Value})
			}
			what = append(what, w)
		}
	}
	if len(out) > 0 {
		out[len(out)-1].What = strings.Join(what, " ")
	}
	return out, warn, nil
}

// flowOverride is one --flow: a client address and its own assignments.
type flowOverride struct {
	arg  string
	addr netip.AddrPort
	set  []proxyctl.Assignment
}

// parseFlowFlag reads --flow 'ADDR KEY=VALUE ...': the address first, then
// at least one link assignment, separated by spaces or commas.
func parseFlowFlag(v string) (flowOverride, error) {
	f := flowOverride{arg: v}
	fields := lab.SplitAssignments(v)
	if len(fields) < 2 {
		return f, fmt.Errorf("want the client's address and its settings in one value, e.g. --flow '127.0.0.1:5001 up.loss=5%%'")
	}
	addr, err := proxyctl.ParseFlow(fields[0])
	if err != nil {
		return f, err
	}
	f.addr = addr
	for _, a := range fields[1:] {
		k, val, err := lab.ParseAssignment(a)
		if err != nil {
			return f, err
		}
		if err := proxyctl.CheckLinkKey(k); err != nil {
			return f, err
		}
		if err := lab.CheckAssignment(k, val); err != nil {
			return f, err
		}
		f.set = append(f.set, proxyctl.Assignment{Key: k, Value: val})
	}
	return f, nil
}

// listenControl opens the control API's socket, on loopback only: the API
// has no authentication and changes what the relay does. An address that
// is not loopback is a bad command line (exit 2).
func listenControl(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, badUsage("--control %q: want a loopback host:port, e.g. 127.0.0.1:9000", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return nil, badUsage("--control %q: port %q: allowed 0 to 65535 (0: a free port, printed at the start)", addr, port)
	}
	ips, err := net.LookupIP(host)
	if host == "" || err != nil || len(ips) == 0 {
		return nil, badUsage("--control %q: want a loopback host:port, e.g. 127.0.0.1:9000 (the API has no authentication)", addr)
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return nil, badUsage("--control %q: %v is not a loopback address; allowed 127.0.0.1, ::1 or localhost (the API has no authentication)", addr, ip)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--control %q: %v", addr, err)
	}
	return ln, nil
}

// writeProxyFlows lists the live clients: each one's datagrams per
// direction, the mean delay the relay added and the RFC 3550 jitter of its
// relayed streams, and its own settings, if any.
func writeProxyFlows(w io.Writer, au proxy.Audit, cond *proxyctl.Conditions) {
	if len(au.Flows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nclients at the end:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "client\tup in\tup out\tup lost\tdown in\tdown out\tdown lost\tdelay up/down\tjitter up/down\town settings")
	for _, f := range au.Flows {
		own := "-"
		if a, err := netip.ParseAddrPort(f.Addr); err == nil {
			if _, as := cond.Config(a); len(as) > 0 {
				own = proxyctl.Describe(as)
			}
		}
		u, d := f.Dirs[proxy.Up], f.Dirs[proxy.Down]
		// "-": no copy written to take a delay of, or fewer than two
		// for a jitter (a server that never answers, say).
		delay := func(a proxy.FlowDirAudit) string { return measuredMs(a.DelayMean, a.Written > 0) }
		jitter := func(a proxy.FlowDirAudit) string { return measuredMs(a.Jitter, a.Written > 1) }
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s/%s\t%s/%s\t%s\n", f.Addr, u.Received, u.Written, u.Lost, d.Received, d.Written, d.Lost,
			delay(u), delay(d), jitter(u), jitter(d), own)
	}
	tw.Flush()
}

// errorReporter prints each kind of socket error once, when first seen;
// counts go in the counter line and the summary.
type errorReporter struct {
	w       io.Writer
	printed int
}

// report prints the new kinds and returns "  errors N" (or "").
func (e *errorReporter) report(errs []proxy.ErrorCount) string {
	var n uint64
	for i, x := range errs {
		n += x.Count
		if i >= e.printed {
			fmt.Fprintf(e.w, "lab proxy: %s (counted from now on; the summary has the total)\n", x.Msg)
		}
	}
	e.printed = len(errs)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("  errors %d", n)
}

// dirLine is one direction on the counter line: "in" is every datagram that
// reached the proxy's socket, "lost" the link model's, "dropped" the
// proxy's own (kernel, in-flight limit, failed writes, removed clients).
func dirLine(c proxy.Counters) string {
	return fmt.Sprintf("in %d delivered %d lost %d dropped %d dup %d reordered %d",
		c.Received+c.KernelDropped, c.Delivered, c.Lost+c.QueueDropped, c.Dropped()-c.Lost-c.QueueDropped, c.Duplicated, c.Reordered)
}

// writeProxySummary is the final account: every datagram's fate per
// direction, the clients and the socket errors.
func writeProxySummary(w io.Writer, wall time.Duration, st proxy.Stats, errs []proxy.ErrorCount) {
	refused := ""
	if st.Refused > 0 {
		refused = fmt.Sprintf(", %d datagrams of new clients refused (every place held by an active conversation)", st.Refused)
	}
	fmt.Fprintf(w, "\nsummary after %v: clients %d seen, %d at the end, %d expired idle, %d evicted%s\n",
		wall.Round(time.Millisecond), st.FlowsSeen, st.Flows, st.Expired, st.Evicted, refused)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tin\tdelivered\tlost (link)\tqueue (link)\tkernel drop\tover limit\twrite failed\tclient gone\tin flight\tdup\treordered\t")
	for _, r := range []struct {
		name string
		c    proxy.Counters
	}{{"up", st.Up}, {"down", st.Down}} {
		c := r.c
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", r.name, c.Received+c.KernelDropped, c.Delivered,
			c.Lost, c.QueueDropped, c.KernelDropped, c.Overflow, c.WriteFailed, c.Discarded, c.InFlight, c.Duplicated, c.Reordered)
	}
	tw.Flush()
	for _, e := range errs {
		fmt.Fprintf(w, "error ×%d: %s\n", e.Count, e.Msg)
	}
}

func proxyHelp(w io.Writer) {
	fmt.Fprintln(w, `
Each client address gets its own pair of links (seeded streams proxy.N.up
and proxy.N.down for the N-th client) and its own socket to the server.
--flow '127.0.0.1:5001 up.loss=5% down.latency=80ms' gives that client
settings of its own on top of the others' (link keys only; repeatable).
A scenario's timeline applies in wall time from the start, each change
printed as it applies. --control 127.0.0.1:9000 serves an HTTP/JSON API
on loopback: GET/PUT /params[?flow=ADDR], DELETE /params?flow=ADDR,
POST /timeline ([[timeline]] entries, at = from now), DELETE /timeline
(cancels what POST scheduled), GET /counters and GET /metrics
(Prometheus); PUT takes Content-Type: application/json, POST
application/toml, and a request from a web page (another Origin, a Host
not of this machine) is refused. Every datagram is counted: delivered, lost by
the link model, or dropped by the proxy (kernel receive buffer full, the
in-flight limit, a failed write, a client removed). SIGINT, SIGTERM and
SIGHUP stop the relay and print the summary, the clients and the audit,
then exit 128 + the signal as every lab command does (130, 143, 129; the
end of --duration and the screen's q exit 0). The audit gives each
direction's configured link next to the realised one, and per period
of constant settings and per client when the settings changed or a client
has its own. --pcap FILE writes pcapng with the real payloads (both sides
of the relay as interfaces, in time order); --record FILE writes a proxy
recording (every datagram, every change of the settings, each client's
address). The control API's requests are printed as answered. --set
takes link keys (up.*, down.*, link.*) and sim.seed. On a terminal a live
screen shows the relay (--no-tui prints counter lines instead); its keys:`)
	fmt.Fprint(w, proxyscreen.KeyHelp())
	writeParamHelp(w, func(key string) bool { return proxyctl.CheckLinkKey(key) == nil || key == "sim.seed" },
		"--duration (wall time) takes %s;\n  --every takes 100ms up to the --duration (the counter line's period;\n  without --duration up to 1000h).\n")
}

// linkText is one direction's main knobs as the registry prints them.
func linkText(cfg *lab.Config, dir string) string {
	link := cfg.Up
	if dir == "down" {
		link = cfg.Down
	}
	get := func(k string) string {
		p, _ := lab.Lookup(dir + "." + k)
		return p.Get(cfg)
	}
	out := ""
	keys := []string{"latency", "jitter", "loss", "duplicate", "reorder", "rate"}
	if t := link.Trace; t != nil {
		// The trace replaces latency, jitter, loss and reorder.
		how := "looping"
		if link.TraceOnce {
			how = "once"
		}
		out = fmt.Sprintf("trace %s (%d packets over %v, %s) ", t.File, t.Len(), t.Span().Round(time.Millisecond), how)
		keys = []string{"duplicate", "rate"}
	}
	for _, k := range keys {
		if m := get("loss_model"); k == "loss" && m != "random" {
			out += "loss model " + m + " " // it replaces loss and loss_burst
			continue
		}
		out += fmt.Sprintf("%s %s ", k, get(k))
		if k == "jitter" && link.Jitter > 0 { // its kind, when not the default
			if link.JitterDist != netem.Uniform {
				out += get("jitter_dist") + " "
			}
			if link.JitterCorr != 0 {
				out += "correlation " + get("jitter_corr") + " "
			}
		}
	}
	return out[:len(out)-1]
}

// auditRows are the audit's rows, in order.
var auditRows = []string{"delay added", "jitter (RFC 3550)", "loss", "reordered", "duplicated", "rate", "written late by"}

// auditConfigured is the configured cell of an audit row for a link.
func auditConfigured(p netem.Params, row int) string {
	var cfg lab.Config
	cfg.Up = p
	get := func(k string) string {
		q, _ := lab.Lookup("up." + k)
		return q.Get(&cfg)
	}
	// The jitter's distribution, and its correlation when it has one (it
	// changes the expected J: ±5 ms uniform at 0.75 gives 1.609 ms).
	jitter := get("jitter") + " " + get("jitter_dist")
	if p.JitterCorr != 0 {
		jitter += ", correlation " + get("jitter_corr")
	}
	if p.Trace != nil && row <= 2 { // the trace's delays and losses replace these settings
		if row == 0 {
			return "trace " + p.Trace.File
		}
		return "from trace " + p.Trace.File
	}
	switch row {
	case 0:
		if p.Jitter > 0 {
			return get("latency") + " ± " + jitter
		}
		return get("latency")
	case 1:
		if p.Jitter == 0 {
			return get("jitter")
		}
		// The long-run RFC 3550 figure of the model, when it gives one.
		if j, ok := netem.ExpectedJitter(p); ok {
			return jitter + ", J ≈ " + fmtMs(j)
		}
		return jitter
	case 2:
		if p.LossBurst >= 1 {
			return get("loss") + ", bursts of " + get("loss_burst")
		}
		return get("loss")
	case 3:
		return get("reorder")
	case 4:
		return get("duplicate")
	case 5:
		return get("rate")
	}
	return "0"
}

// writeProxyAudit sets what each direction was configured to do next to
// what the relay realised over the whole run: the delay it added (read to
// write), the RFC 3550 jitter of the relayed stream, loss and its bursts,
// reorders, duplicates and the throughput. The configured column is
// everybody's settings; a row whose setting changed during the run says
// how often and its last value, and marks (nil: one configuration for the
// whole run) add the audit per period of constant settings, per client.
func writeProxyAudit(w io.Writer, au proxy.Audit, marks []auditMark, window time.Duration) { // window: the release window in force (0: off)
	secs := au.Wall.Seconds()
	var changed [7][2]int
	switch {
	case len(marks) > 1:
		changed = changedRows(marks, func(p netem.Params, _ proxy.Dir, row int) string { return auditConfigured(p, row) })
		fmt.Fprintf(w, "\naudit over %v: configured → realised; the settings changed during the run, so per period below\n", au.Wall.Round(time.Millisecond))
	case len(marks) == 1:
		fmt.Fprintf(w, "\naudit over %v: configured (everybody's; clients with their own below) → realised\n", au.Wall.Round(time.Millisecond))
	default:
		fmt.Fprintf(w, "\naudit over %v: configured → realised\n", au.Wall.Round(time.Millisecond))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tup configured\tup realised\tdown configured\tdown realised")
	var rows [7][4]string
	for d, da := range au.Dirs {
		c := da.Counters
		copies := c.Sent + c.Duplicated
		pct := func(n, of uint64) string {
			if of == 0 {
				return fmt.Sprintf("%d", n)
			}
			return fmt.Sprintf("%d (%.2f %%)", n, 100*float64(n)/float64(of))
		}
		realDelay := "-"
		if c.Delivered > 0 {
			realDelay = fmt.Sprintf("p50 %s p99 %s max %s", fmtMs(da.DelayP50), fmtMs(da.DelayP99), fmtMs(da.DelayMax))
		}
		realLoss := pct(c.Lost, copies)
		if c.LossBursts > 0 {
			realLoss += fmt.Sprintf(", bursts of %.2f", c.MeanBurst())
		}
		realRate := "-"
		switch span := da.Active.Seconds(); {
		case c.Delivered > 1 && span > 0: // over the traffic, not the idle time around it
			realRate = fmt.Sprintf("%.1f packets/s, %s", float64(c.Delivered)/span, fmtBits(8*float64(da.Bytes)/span))
			if da.Active < au.Wall*9/10 {
				realRate += fmt.Sprintf(" over %.3fs (first to last copy)", span)
			}
		case secs > 0:
			realRate = fmt.Sprintf("%.1f packets/s, %s", float64(c.Delivered)/secs, fmtBits(8*float64(da.Bytes)/secs))
		}
		col := 2 * d
		for row := range rows {
			rows[row][col] = auditConfigured(da.Configured, row)
			if n := changed[row][d]; n > 0 {
				rows[row][col] = "changed " + times(n) + "; last: " + rows[row][col]
			}
		}
		rows[0][col+1], rows[1][col+1] = realDelay, "-"
		if c.Delivered > 1 { // the last reading, and the mean |D| it tends to (what J ≈ expects)
			rows[1][col+1] = fmtMs(da.Jitter) + ", mean |D| " + fmtMs(da.JitterMean)
		}
		if window > 0 { // how late a copy may leave by design, to share a wake-up
			rows[6][col] = "≤ " + window.String()
		}
		rows[6][col+1] = "-"
		if c.Delivered > 0 {
			rows[6][col+1] = fmt.Sprintf("p50 %s p99 %s max %s", fmtMs(da.LateP50), fmtMs(da.LateP99), fmtMs(da.LateMax))
		}
		rows[2][col+1] = realLoss
		rows[3][col+1], rows[4][col+1] = pct(c.Reordered, c.Released), pct(c.Duplicated, c.Sent)
		rows[5][col+1] = realRate
	}
	for i, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", auditRows[i], r[0], r[1], r[2], r[3])
	}
	tw.Flush()
	writeAuditStalls(w, au, window)
	if len(marks) > 0 {
		writeAuditPeriods(w, marks, au)
	}
}

// writeAuditStalls says which of "written late by" was the relay's own
// timing and which the CPU it was not given: copies written more than
// proxy.StallAfter late for want of a CPU are counted apart.
func writeAuditStalls(w io.Writer, au proxy.Audit, window time.Duration) {
	up, down := au.Dirs[proxy.Up], au.Dirs[proxy.Down]
	byDesign := ""
	if window > 0 {
		byDesign = fmt.Sprintf("; a copy may leave up to %v late by design (--release-window)", window)
	}
	if up.Stalled+down.Stalled == 0 {
		if up.Counters.Delivered+down.Counters.Delivered > 0 {
			fmt.Fprintf(w, "no copy stalled: \"written late by\" is the relay's own timing%s\n", byDesign)
		}
		return
	}
	share := func(da proxy.DirAudit) string {
		if da.Counters.Delivered == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (%.2f %%)", da.Stalled, 100*float64(da.Stalled)/float64(da.Counters.Delivered))
	}
	fmt.Fprintf(w, "stalled copies: up %s, down %s, written more than %v late because the relay was not given a CPU (the machine's load, not the link);\n"+
		"  outside them the relay wrote at most %s (up) and %s (down) late%s\n",
		share(up), share(down), proxy.StallAfter, fmtMs(up.LateMaxOutsideStalls), fmtMs(down.LateMaxOutsideStalls), byDesign)
}

// fmtMs writes a duration in milliseconds to the microsecond.
func fmtMs(d time.Duration) string { return fmt.Sprintf("%.3fms", float64(d)/1e6) }

// measuredMs is fmtMs(d), or "-" when there was nothing to measure.
func measuredMs(d time.Duration, measured bool) string {
	if !measured {
		return "-"
	}
	return fmtMs(d)
}

// fmtBits writes a bit rate with its unit.
func fmtBits(b float64) string {
	switch {
	case b >= 1e6:
		return fmt.Sprintf("%.2f Mbit/s", b/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.1f kbit/s", b/1e3)
	}
	return fmt.Sprintf("%.0f bit/s", b)
}

// pipeWatch passes writes on to w; the first that finds the pipe closed
// by its reader calls stop.
type pipeWatch struct {
	w    io.Writer
	stop func()
	mu   sync.Mutex
	err  error
}

func (p *pipeWatch) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if err != nil && closedPipe(err) {
		p.mu.Lock()
		if p.err == nil {
			p.err = err
			p.stop()
		}
		p.mu.Unlock()
	}
	return n, err
}

// closed is the closed pipe's error, or nil.
func (p *pipeWatch) closed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// addrText is an address as the user gave it (given), with the port the
// socket got in place of port 0, and what it became in brackets when
// that is not what it says: "localhost:7778 (127.0.0.1:7778)". An
// unspecified address bound as [::] (every interface either way) stays
// "0.0.0.0:7777", as given.
func addrText(given string, got net.Addr) string {
	ua, ok := got.(*net.UDPAddr)
	host, port, err := net.SplitHostPort(given)
	if !ok || err != nil {
		return got.String()
	}
	bound := strconv.Itoa(ua.Port)
	if port == "0" {
		port = bound
	}
	text := net.JoinHostPort(host, port)
	ip, err := netip.ParseAddr(host)
	same := err == nil && port == bound && (ip.Unmap() == ua.AddrPort().Addr().Unmap() || ip.IsUnspecified() && ua.IP.IsUnspecified())
	if !same {
		text += " (" + ua.String() + ")"
	}
	return text
}
