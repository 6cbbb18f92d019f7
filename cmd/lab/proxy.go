package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"jitterlab/internal/files"
	"jitterlab/param"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
	"jitterlab/proxy/live"
	"jitterlab/tui"
	"jitterlab/tui/proxyscreen"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// minProxyEvery is the shortest period of the proxy's counter line.
const minProxyEvery = 100 * time.Millisecond

func cmdProxy(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var listen, target, control, pcapPath, recordPath string
	var every time.Duration
	var flows []live.Flow
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
		f, err := live.ParseFlow(v)
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
	gateFlags := proxyCheckFlags(fs)
	fs.StringVar(&recordPath, "record", "", "record every relayed datagram to `FILE` (wall time in and out, fate, delay added; 'lab replay', 'export --packets' and 'plot' read it)")
	// The proxy runs until interrupted unless --duration is given; the
	// shared flag's default (a simulated minute) does not apply.
	d := fs.Lookup("duration")
	d.Usage, d.DefValue = "stop after this much wall time, a `duration` (default: run until interrupted)", "0" // the zero value: no second default
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	var wall time.Duration // the run's --duration (0: until interrupted)
	if o.given("duration") {
		wall = o.duration
		if !o.given("every") {
			every = min(every, o.duration) // the default never outlasts the run
		}
	}
	if err := checkProxyFlags(&o, every, &limits); err != nil {
		return cmdLineErr(err)
	}
	if target == "" {
		return badUsage("--to: name the game server, e.g. --to 127.0.0.1:7778")
	}
	if err := cmp.Or(live.CheckAddrs(listen, target), live.CheckSets(o.sets)); err != nil {
		return cmdLineErr(err)
	}
	cfg, sc, err := o.config()
	if err != nil {
		return err
	}
	timeline, late, err := live.Timeline(cfg, sc, wall)
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
		for _, a := range f.Set {
			inputs = appendTraceFile(inputs, a.Key, a.Value)
		}
	}
	gate, err := gateFlags.load(o.given, *telemetryAddr)
	if err != nil {
		return err
	}
	outs := map[string]string{"pcap": pcapPath, "record": recordPath}
	gateFlags.outputs(outs)
	if gate != nil {
		inputs = append(inputs, gate.File)
	}
	if err := checkOutputs(outs, inputs...); err != nil {
		return err
	}
	for _, out := range []struct{ flag, path string }{{"pcap", pcapPath}, {"record", recordPath}} {
		if out.path == "-" {
			return badUsage("--%s -: the proxy prints its counters on standard output; name a file", out.flag)
		}
	}
	if a := *telemetryAddr; a != "" {
		if _, _, err := net.SplitHostPort(a); err != nil {
			return badUsage("--telemetry %q: want host:port, e.g. 127.0.0.1:7790 (%v)", a, err)
		}
	}
	opts := live.Options{Listen: listen, Target: target, Config: cfg, Scenario: sc, Name: o.name(), Timeline: timeline, Flows: flows,
		Limits: limits, ReleaseWindow: window.relay, Telemetry: *telemetryAddr, Pcap: pcapPath, Record: recordPath,
		Screen: !*noTUI && isTerminal(stdout), Every: every, Stdout: stdout, Stderr: stderr}
	proxyOutputs(&opts, stdout)
	if control != "" {
		if err := live.CheckControl(control); err != nil {
			return cmdLineErr(err)
		}
		if opts.Control, err = net.Listen("tcp", control); err != nil {
			return fmt.Errorf("--control %q: %v", control, err)
		}
		defer opts.Control.Close()
		opts.ControlHost, _, _ = net.SplitHostPort(control) // checked by CheckControl
	}
	ctx, caught, outClosed, done := proxyEnds(wall, &opts)
	defer done()
	run, err := live.Start(ctx, opts)
	if _, ok := errors.AsType[*live.FlowError](err); ok {
		return cmdLineErr(err)
	} else if err != nil {
		return err
	}
	var view live.Screen
	if opts.Screen {
		view = proxyView{proxyscreen.New(run.Source(), proxyscreen.Options{Scenario: sc, Record: run.Record})}
	}
	res := run.Wait(view)
	res.WriteText(opts.Stdout)
	for _, n := range res.Notes {
		fmt.Fprintf(stderr, "lab proxy: %s\n", n)
	}
	err = cmp.Or(res.Err, outClosed.closed())
	if gate != nil && err == nil {
		// The gate's verdict is the exit status, however the run ended:
		// a signal ends a run without --duration as the end of one does.
		rep := res.Check(gate, gateFlags.strict, version())
		if err := writeCheck(rep, false, gateFlags.junit, gateFlags.summary, opts.Stdout, stderr); err != nil {
			return err
		}
		return checkStatus(rep)
	}
	if err == nil {
		if sig := cmp.Or(res.Signal, caught()); sig != nil { // as every lab command a signal stops
			err = interrupted(sig, fmt.Sprintf("stopped after %.1fs; the summary and the audit above cover the run so far", res.Wall.Seconds()))
		}
	}
	return err
}

// proxyEnds is what ends a proxy run from outside: SIGINT, SIGTERM and
// SIGHUP (caught says which came), the end of --duration (wall > 0), and
// standard output closed by its reader (… | head, a log shipper that
// died). That one stops the run as a signal does, closing the files, and
// exits as a closed pipe does (outClosed), rather than die of SIGPIPE
// mid-recording. It sets o.Stdout without the screen and o.Ending; done
// releases it all.
func proxyEnds(wall time.Duration, o *live.Options) (ctx context.Context, caught func() os.Signal, outClosed *pipeWatch, done func()) {
	ctx, stop, caught := signalContext(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	cancelWall := context.CancelFunc(func() {})
	if wall > 0 {
		ctx, cancelWall = context.WithTimeout(ctx, wall)
	}
	ctx, cancelRun := context.WithCancel(ctx)
	outClosed = &pipeWatch{w: o.Stdout, stop: cancelRun}
	if !o.Screen {
		signal.Ignore(syscall.SIGPIPE) // a write to it then fails with EPIPE
		o.Stdout = outClosed
	}
	o.Ending = func() {
		// A terminal going away hangs up more than once (the kernel, the
		// shell): that must not end it before its files are closed.
		signal.Ignore(syscall.SIGHUP)
		stop() // a second Ctrl-C now ends the process at once
	}
	return ctx, caught, outClosed, func() {
		cancelRun()
		cancelWall()
		stop()
	}
}

// proxyOutputs are lab proxy's files: --pcap and --record are outputs as
// every command's, R's recordings new files in the working folder.
func proxyOutputs(o *live.Options, stdout io.Writer) {
	o.Open = func(flag, path string) (live.File, error) {
		f, err := openOutput(path, stdout, stream)
		if err != nil {
			return nil, flagFileError(flag, path, err)
		}
		return f, nil
	}
	o.Create = func(base, ext string) (live.File, string, error) {
		f, path, err := tui.CreateUnique(".", base, ext)
		if err != nil {
			return nil, "", err
		}
		return files.NewOutput(f, path), path, nil
	}
}

// proxyView is the proxy's screen as the run shows it.
type proxyView struct{ *proxyscreen.View }

func (v proxyView) Run() error { return v.View.Run(nil) }

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

// checkProxyFlags bounds every numeric flag before anything starts
// (live.CheckLimits the relay's limits).
func checkProxyFlags(o *runOptions, every time.Duration, l *proxy.Limits) error {
	if o.given("duration") && o.duration <= 0 {
		return fmt.Errorf("--duration %v: allowed a wall time > 0, or leave it out to run until interrupted", o.duration)
	}
	if o.given("every") && o.given("duration") && every > o.duration {
		return fmt.Errorf("--every %v: allowed %s; here --duration is %v", every, proxyEveryRule, o.duration)
	}
	return live.CheckLimits(l)
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
in-flight limit, a failed write, a client removed). Each of the relay's
sockets asks the kernel for a `+proxy.ByteSize(proxy.DefaultReceiveBuffer)+` receive buffer: the first line says what
it got, standard error how to raise net.core.rmem_max when that capped
it. SIGINT, SIGTERM and
SIGHUP stop the relay and print the summary, the clients and the audit,
then exit 128 + the signal as every lab command does (130, 143, 129; the
end of --duration and the screen's q exit 0). The audit gives each
direction's configured link next to the realised one, and per period
of constant settings and per client when the settings changed or a client
has its own. --pcap FILE writes pcapng with the real payloads (both sides
of the relay as interfaces, in time order); --record FILE writes a proxy
recording (every datagram, every change of the settings, each client's
address). The control API's requests are printed as answered. --set
takes link keys (up.*, down.*, link.*) and sim.seed. --check FILE (with
--telemetry) judges the game's report card at the end of the run by the
[[assert]] entries of a lab check gate (docs/guide/ci-gate.md), with lab
check's outputs (--strict, --junit, --summary) and exit status, however
the run ended (a signal too): 0 passed, 3 an assertion failed, 4 one is
inconclusive under --strict. One run has no seeds, so no interval: a bound
passes when the run's figure is within it (on it included), fails when
past it, and is inconclusive when the run did not measure the figure.
The file's seeds, link and timeline are not the run's (give it to
--scenario too for its link); a figure telemetry does not carry (the
corrections, the server's input delay and shares), one not on the report
card and max_worse are refused when the gate is read (exit 2). On a
terminal a live screen shows the relay (--no-tui prints counter lines
instead); its keys:`)
	fmt.Fprint(w, proxyscreen.KeyHelp())
	writeParamHelp(w, func(key string) bool { return proxyctl.IsLinkKey(key) || key == "sim.seed" },
		"--duration (wall time) takes %s;\n  --every takes 100ms up to the --duration (the counter line's period;\n  without --duration up to 1000h).\n")
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
