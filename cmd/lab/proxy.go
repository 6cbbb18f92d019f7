package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"jitterlab/lab"
	"jitterlab/proxy"
	"jitterlab/scenarios"
)

// minProxyEvery is the shortest period of the proxy's counter line.
const minProxyEvery = 100 * time.Millisecond

func cmdProxy(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var listen, target, pcapPath, recordPath string
	var every time.Duration
	limits := proxy.DefaultLimits()
	fs := newFlagSet("proxy", "--listen 127.0.0.1:7777 --to 127.0.0.1:7778 [--scenario NAME] [--set up.loss=2%]", stderr, proxyHelp)
	o.register(fs)
	fs.StringVar(&listen, "listen", "127.0.0.1:7777", "where the game client sends (`host:port`; beyond 127.0.0.1 other machines can use the relay)")
	fs.StringVar(&target, "to", "", "the game server (`host:port`)")
	fs.DurationVar(&every, "every", time.Second, "how often to print the counters (at least 100ms)")
	noTUI := fs.Bool("no-tui", false, "print counter lines, not the live screen (the default when standard output is not a terminal)")
	fs.IntVar(&limits.MaxFlows, "max-clients", limits.MaxFlows, "client addresses relayed at once; a new one beyond evicts the longest idle")
	fs.DurationVar(&limits.IdleTimeout, "idle-timeout", limits.IdleTimeout, "forget a client after this long without a packet either way")
	fs.IntVar(&limits.FlowPackets, "inflight-packets", limits.FlowPackets, "datagrams held per client and direction; more are dropped and counted")
	fs.IntVar(&limits.FlowBytes, "inflight-bytes", limits.FlowBytes, "payload bytes held per client and direction; more are dropped and counted")
	fs.StringVar(&pcapPath, "pcap", "", "write the relayed datagrams to `FILE` as pcapng (both sides of the relay, fate as comment)")
	fs.StringVar(&recordPath, "record", "", "record every relayed datagram to `FILE` (wall time in and out, fate, delay added; 'lab replay', 'export --packets' and 'plot' read it)")
	// The proxy runs until interrupted unless --duration is given; the
	// shared flag's default (a simulated minute) does not apply.
	d := fs.Lookup("duration")
	d.Usage, d.DefValue = "stop after this much wall time, a `duration` (default: run until interrupted)", "0s"
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !o.given("every") && o.given("duration") {
		every = min(every, o.duration) // the default never outlasts the run
	}
	if err := checkProxyFlags(&o, every, &limits); err != nil {
		return err
	}
	if target == "" {
		return fmt.Errorf("--to: name the game server, e.g. --to 127.0.0.1:7778")
	}
	cfg, sc, err := o.config()
	if err != nil {
		return err
	}
	timeline, err := proxyTimeline(cfg, sc, &o)
	if err != nil {
		return err
	}
	if err := distinctOutputs(map[string]string{"pcap": pcapPath, "record": recordPath}); err != nil {
		return err
	}
	changes := make(chan proxy.Change, len(timeline))
	var captures captureSwitch
	opts := proxy.Options{Listen: listen, Target: target, Seed: cfg.Seed, Up: cfg.Up, Down: cfg.Down,
		Limits: limits, Timeline: timeline, OnChange: func(c proxy.Change) {
			changes <- c
			captures.Change(c)
		}}
	if pcapPath != "" || recordPath != "" {
		opts.OnPacket = captures.OnPacket
	}
	r, err := proxy.Listen(opts)
	if err != nil {
		return err
	}
	if capt, err := openProxyCaptures(pcapPath, recordPath, stdout, r.Addr(), target, cfg, o.name()); err != nil {
		return err
	} else if capt != nil {
		captures.start(capt)
	}
	if w := proxy.ListenWarning(r.Addr()); w != "" {
		fmt.Fprintf(stderr, "lab proxy: warning: %s\n", w)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if o.given("duration") {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	fmt.Fprintf(stdout, "relaying %v → %s: up %s, down %s (seed %d); Ctrl-C stops\n",
		r.Addr(), target, linkText(&cfg, "up"), linkText(&cfg, "down"), cfg.Seed)
	if len(timeline) > 0 {
		fmt.Fprintf(stdout, "timeline of %s: %d changes, at wall time from now\n", sc.Name, len(timeline))
	}
	if sc != nil {
		if _, dropped := lab.Unpinned(sc.Pinned, sc.Timeline); len(dropped) > 0 {
			fmt.Fprintf(stdout, "timeline entries overridden by --set: %s\n", strings.Join(dropped, ", "))
		}
	}
	if !*noTUI && isTerminal(stdout) {
		return proxyScreen(ctx, r, cfg, target, changes, stdout, stderr)
	}
	start := time.Now()
	captures.started(start) // the relay's times count from here
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	tick := time.NewTicker(every)
	defer tick.Stop()
	stamp := func(t time.Time) string {
		return fmt.Sprintf("%s +%.1fs", t.Format("15:04:05.000"), t.Sub(start).Seconds())
	}
	errs := errorReporter{w: stderr}
	for {
		select {
		case err := <-done:
			stop() // a second Ctrl-C now ends the process at once
			for len(changes) > 0 {
				c := <-changes
				fmt.Fprintf(stdout, "%s  change at %v: %s\n", stamp(start.Add(c.At)), c.At, c.What)
			}
			errs.report(r.Errors())
			wall := time.Since(start)
			writeProxySummary(stdout, wall, r.Stats(), r.Errors())
			note, cerr := captures.stop(wall, r.Stats())
			if note != "" {
				fmt.Fprintf(stderr, "lab proxy: %s\n", note)
			}
			return cmp.Or(err, cerr)
		case c := <-changes:
			fmt.Fprintf(stdout, "%s  change at %v: %s\n", stamp(time.Now()), c.At, c.What)
		case now := <-tick.C:
			st := r.Stats()
			fmt.Fprintf(stdout, "%s  clients %d  up %s  down %s%s\n", stamp(now), st.Flows, dirLine(st.Up), dirLine(st.Down), errs.report(r.Errors()))
		}
	}
}

// checkProxyFlags bounds every numeric flag before anything starts.
func checkProxyFlags(o *runOptions, every time.Duration, l *proxy.Limits) error {
	if o.given("duration") && o.duration <= 0 {
		return fmt.Errorf("--duration %v: allowed a wall time > 0, or leave it out to run until interrupted", o.duration)
	}
	if o.given("every") && every < minProxyEvery {
		return fmt.Errorf("--every %v: allowed from %v up to the run's --duration", every, minProxyEvery)
	}
	if o.given("every") && o.given("duration") && every > o.duration {
		return fmt.Errorf("--every %v: allowed from %v up to the run's --duration (%v)", every, minProxyEvery, o.duration)
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

// proxyTimeline turns the scenario's timeline into link settings over wall
// time: each entry's assignments on top of everything before it.
func proxyTimeline(cfg lab.Config, sc *scenarios.Scenario, o *runOptions) ([]proxy.Change, error) {
	if sc == nil {
		return nil, nil
	}
	var out []proxy.Change
	keep, _ := lab.Unpinned(sc.Pinned, sc.Timeline) // --set pins its key, as in every command
	for _, ch := range keep {
		if o.given("duration") && ch.At >= o.duration {
			return nil, fmt.Errorf("%s:%d: timeline change at %v is not before --duration %v stops the proxy", sc.File, ch.Line, ch.At, o.duration)
		}
		var what []string
		for _, a := range ch.Set {
			p, ok := lab.Lookup(a.Key)
			if ok && !p.Live {
				return nil, fmt.Errorf("%s:%d: %s cannot change during a run", sc.File, a.Line, a.Key)
			}
			if err := lab.Set(&cfg, a.Key, a.Value); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", sc.File, a.Line, err)
			}
			w := a.Key + "=" + a.Value
			if !strings.HasPrefix(a.Key, "up.") && !strings.HasPrefix(a.Key, "down.") && !strings.HasPrefix(a.Key, "link.") {
				w += " (not a link setting: ignored)"
			}
			what = append(what, w)
		}
		out = append(out, proxy.Change{At: ch.At, Up: cfg.Up, Down: cfg.Down, What: strings.Join(what, " ")})
	}
	return out, nil
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
	fmt.Fprintf(w, "\nsummary after %v: clients %d seen, %d at the end, %d expired idle, %d evicted\n",
		wall.Round(time.Millisecond), st.FlowsSeen, st.Flows, st.Expired, st.Evicted)
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
Each client address gets its own pair of links and its own socket to the
server. A scenario's timeline applies in wall time from the start, each
change printed as it applies. Every datagram is counted: delivered, lost by
the link model, or dropped by the proxy (kernel receive buffer full, the
in-flight limit, a failed write, a client removed). SIGINT, SIGTERM and
SIGHUP stop the relay and print the summary.`)
	paramHelp(w)
}

// linkText is one direction's main knobs as the registry prints them.
func linkText(cfg *lab.Config, dir string) string {
	out := ""
	for _, k := range []string{"latency", "jitter", "loss", "duplicate", "reorder", "rate"} {
		p, _ := lab.Lookup(dir + "." + k)
		out += fmt.Sprintf("%s %s ", k, p.Get(cfg))
	}
	return out[:len(out)-1]
}
