package live

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"jitterlab/lab"
	"jitterlab/netem"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
)

// maxAuditPeriods bounds the periods of constant settings the audit keeps:
// beyond, the changes fold into the last period, which says so.
const maxAuditPeriods = 20

// maxAuditClients bounds the clients listed per period.
const maxAuditClients = 8

// auditMark is the start of a period of constant settings: the change that
// began it and the relay's audit just after (its counters are the period's
// start; its configured links the period's settings).
type auditMark struct {
	at     time.Duration                            // since the relay started
	what   string                                   // the change ("" for the start)
	au     proxy.Audit                              // the counters when it began
	cfg    proxy.Audit                              // everybody's settings in force (the last change's, when folded)
	own    map[netip.AddrPort][]proxyctl.Assignment // the clients' own settings then
	folded int                                      // changes folded into it past maxAuditPeriods
	gone   []proxy.FlowAudit                        // clients forgotten during the period, as last seen (bounded)
	goneN  int                                      // clients forgotten during the period, all
}

// maxGoneClients bounds the forgotten clients a period keeps.
const maxGoneClients = maxAuditClients

// configOf is the link a client had in the period: everybody's, with its
// own settings on top.
func (m *auditMark) configOf(addr string) (up, down netem.Params) {
	cfg := lab.DefaultConfig()
	cfg.Up, cfg.Down = m.cfg.Dirs[proxy.Up].Configured, m.cfg.Dirs[proxy.Down].Configured
	if a, err := netip.ParseAddrPort(addr); err == nil {
		for _, as := range m.own[netip.AddrPortFrom(a.Addr().Unmap(), a.Port())] {
			lab.Set(&cfg, as.Key, as.Value) // checked when set
		}
	}
	return cfg.Up, cfg.Down
}

// auditPeriods splits the run at every change of the settings, whoever
// made it, so the audit compares each period with its own settings.
type auditPeriods struct {
	mu      sync.Mutex
	r       interface{ Audit() proxy.Audit }
	clock   Clock
	start   time.Time
	running bool
	marks   []auditMark
	own     map[netip.AddrPort][]proxyctl.Assignment // the clients' own settings now
	seen    []proxy.FlowAudit                        // the clients as last observed
}

// observe notes the clients of audit au: one observed before and gone
// since (forgotten idle, or evicted) is kept, as last seen, in the current
// period, so the audit still has its packets. Called every second or so
// (see watch), and at every change.
func (p *auditPeriods) observe(au proxy.Audit) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.observeLocked(au)
}

func (p *auditPeriods) observeLocked(au proxy.Audit) {
	if len(p.marks) > 0 {
		live := map[proxy.FlowID]bool{}
		for _, f := range au.Flows {
			live[f.ID] = true
		}
		m := &p.marks[len(p.marks)-1]
		for _, f := range p.seen {
			if live[f.ID] {
				continue
			}
			m.goneN++
			if len(m.gone) < maxGoneClients {
				m.gone = append(m.gone, f)
			}
		}
	}
	p.seen = au.Flows
}

// watch observes the relay every period until ctx is done.
func (p *auditPeriods) watch(ctx context.Context, every time.Duration) {
	t := p.clock.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			p.observe(p.r.Audit())
		}
	}
}

// begin marks the start: the settings then (--flow's included).
func (p *auditPeriods) begin(start time.Time) {
	au := p.r.Audit()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.start, p.running = start, true
	p.marks = []auditMark{{au: au, cfg: au, own: maps.Clone(p.own)}}
	p.seen = au.Flows
}

// applied marks a change of the settings as it took effect (called with
// the conditions' lock held: it reads the relay, never the conditions).
func (p *auditPeriods) applied(a proxyctl.Applied) {
	p.mu.Lock()
	switch {
	case a.Cleared:
		delete(p.own, a.Flow)
	case a.Flow.IsValid():
		if p.own == nil {
			p.own = map[netip.AddrPort][]proxyctl.Assignment{}
		}
		p.own[a.Flow] = append(slices.Clone(p.own[a.Flow]), a.Set...)
	}
	running, own := p.running, maps.Clone(p.own)
	p.mu.Unlock()
	if !running {
		return // before the start: part of the first period's settings
	}
	au := p.r.Audit() // the relay's lock: never under p.mu
	p.mu.Lock()
	defer p.mu.Unlock()
	p.observeLocked(au)
	if len(p.marks) >= maxAuditPeriods {
		last := &p.marks[len(p.marks)-1]
		last.folded++
		last.cfg, last.own = au, own
		return
	}
	p.marks = append(p.marks, auditMark{at: p.clock.Now().Sub(p.start), what: describeApplied(a), au: au, cfg: au, own: own})
}

// describeApplied is a change as the audit names it.
func describeApplied(a proxyctl.Applied) string {
	switch {
	case a.Cleared:
		return "client " + a.Flow.String() + " back on everybody's settings"
	case a.Flow.IsValid():
		return "client " + a.Flow.String() + " " + proxyctl.Describe(a.Set)
	}
	return proxyctl.Describe(a.Set)
}

// periods returns the marks (nil: no change and no client with settings
// of its own, so the whole run is one configuration).
func (p *auditPeriods) periods(end proxy.Audit) []auditMark {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.marks) == 0 {
		return nil
	}
	if len(p.marks) == 1 && len(p.marks[0].own) == 0 {
		return nil
	}
	p.observeLocked(end)
	return append([]auditMark(nil), p.marks...)
}

// configText is a link's settings in a line: the audit's delay and loss
// cells, and the duplicate, reorder and rate settings that are not off.
func configText(p netem.Params) string {
	s := auditConfigured(p, 0)
	if p.Trace == nil { // a trace's losses are its own
		s += ", loss " + auditConfigured(p, 2)
	}
	for _, k := range []struct {
		name string
		row  int
	}{{"duplicate", 4}, {"reorder", 3}, {"rate", 5}} {
		if v := auditConfigured(p, k.row); v != "0" && v != "0%" {
			s += ", " + k.name + " " + v
		}
	}
	return s
}

// writeAuditPeriods prints, per period of constant settings, each
// client's configured link (its own, or everybody's) and what its packets
// met in that period: the delay added (mean), the loss and the rate.
func writeAuditPeriods(w io.Writer, marks []auditMark, end proxy.Audit) {
	fmt.Fprintln(w, "\naudit per period of constant settings (each client's own link, or everybody's; realised over the period's packets):")
	for i, m := range marks {
		next := end
		if i+1 < len(marks) {
			next = marks[i+1].au
		}
		to := end.Wall
		if i+1 < len(marks) {
			to = marks[i+1].at
		}
		why := "the start"
		if m.what != "" {
			why = "after " + m.what
		}
		if m.folded > 0 {
			why += fmt.Sprintf(" and %d more changes (more than %d periods): the settings as they ended", m.folded, maxAuditPeriods)
		}
		fmt.Fprintf(w, "period %d: +%.3fs to +%.3fs (%.3fs), %s\n", i+1, m.at.Seconds(), to.Seconds(), (to - m.at).Seconds(), why)
		before := map[proxy.FlowID]proxy.FlowAudit{}
		for _, f := range m.au.Flows {
			before[f.ID] = f
		}
		secs := (to - m.at).Seconds()
		shown := 0
		// The clients at the period's end, then those forgotten during it.
		flows := slices.Concat(next.Flows, m.gone)
		all := len(next.Flows) + m.goneN
		for _, f := range flows {
			b := before[f.ID] // zero: the client came during the period
			if shown == maxAuditClients {
				fmt.Fprintf(w, "  … %d more clients\n", all-shown)
				break
			}
			shown++
			up, down := m.configOf(f.Addr)
			for d := range f.Dirs {
				set := up
				if d == int(proxy.Down) {
					set = down
				}
				name := ""
				if d == 0 {
					name = f.Addr
				}
				cur, was := f.Dirs[d], b.Dirs[d]
				in, out, lost := cur.Received-was.Received, cur.Written-was.Written, cur.Lost-was.Lost
				real := fmt.Sprintf("lost %d of %d", lost, in)
				if in > 0 {
					real += fmt.Sprintf(" (%.1f %%)", 100*float64(lost)/float64(in))
				}
				if out > 0 {
					sum := float64(cur.DelayMean)*float64(cur.Written) - float64(was.DelayMean)*float64(was.Written)
					real = fmt.Sprintf("delay added mean %s, ", fmtMs(time.Duration(sum/float64(out)))) + real
				}
				if secs > 0 {
					real += fmt.Sprintf(", %.1f packets/s written", float64(out)/secs)
				}
				fmt.Fprintf(w, "  %-22s %-4s  set %s\n  %-22s       real %s\n", name, proxy.Dir(d).String(), configText(set), "", real)
			}
		}
		if shown == 0 {
			fmt.Fprintln(w, "  no clients")
		}
	}
}

// changedRows counts, per audit row and direction, how often the defaults'
// cell changed from one period to the next; last is the cell's text then.
func changedRows(marks []auditMark, cell func(p netem.Params, dir proxy.Dir, row int) string) (n [7][2]int) {
	for i := 1; i < len(marks); i++ {
		for d := range 2 {
			for row := range 7 {
				if cell(marks[i].cfg.Dirs[d].Configured, proxy.Dir(d), row) != cell(marks[i-1].cfg.Dirs[d].Configured, proxy.Dir(d), row) {
					n[row][d] += 1 + marks[i].folded
				}
			}
		}
	}
	return n
}

func times(n int) string {
	if n == 1 {
		return "1 time"
	}
	return fmt.Sprintf("%d times", n)
}

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
