package live

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"text/tabwriter"
	"time"

	"jitterlab/lab"
	"jitterlab/netem"
	"jitterlab/proxy"
)

// writeProxyFlows lists the live clients: each one's datagrams per
// direction, the mean delay the relay added and the RFC 3550 jitter of its
// relayed streams, and its own settings, if any (own, by address).
func writeProxyFlows(w io.Writer, au proxy.Audit, own map[netip.AddrPort]string) {
	if len(au.Flows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nclients at the end:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "client\tup in\tup out\tup lost\tdown in\tdown out\tdown lost\tdelay up/down\tjitter up/down\town settings")
	for _, f := range au.Flows {
		set := "-"
		if a, err := netip.ParseAddrPort(f.Addr); err == nil && own[a] != "" {
			set = own[a]
		}
		u, d := f.Dirs[proxy.Up], f.Dirs[proxy.Down]
		// "-": no copy written to take a delay of, or fewer than two
		// for a jitter (a server that never answers, say).
		delay := func(a proxy.FlowDirAudit) string { return measuredMs(a.DelayMean, a.Written > 0) }
		jitter := func(a proxy.FlowDirAudit) string { return measuredMs(a.Jitter, a.Written > 1) }
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s/%s\t%s/%s\t%s\n", f.Addr, u.Received, u.Written, u.Lost, d.Received, d.Written, d.Lost,
			delay(u), delay(d), jitter(u), jitter(d), set)
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
