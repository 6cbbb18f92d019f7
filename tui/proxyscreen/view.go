package proxyscreen

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"jitterlab/internal/clip"
	"jitterlab/internal/plural"
	"jitterlab/lab"
	"jitterlab/netem"
	"jitterlab/scenarios"
	"jitterlab/tui/preset"
	"jitterlab/tui/widget"
)

// Source is a running relay as the proxy's screen sees it: plain
// data, so the screen does not depend on the relay's package. Its methods
// are called on the screen's event goroutine while the relay runs on its
// own: an implementation guards its state.
type Source interface {
	// Snapshot is the relay's state now.
	Snapshot() Snapshot
	// Get is a link key's value in force (up.* and down.*), as --set writes it.
	Get(key string) string
	// Apply sets link keys now, all or none; the error names the key, the
	// value and what is allowed, as --set's does.
	Apply(sets [][2]string) error
}

// Options start the proxy's screen.
type Options struct {
	Every    time.Duration       // chart sample period (100ms)
	Scenario *scenarios.Scenario // the scenario whose timeline runs (nil: none), for c
	// Record is R: it starts a recording of the relayed traffic, or stops
	// the one running, and says which for the status line (nil: R does
	// nothing).
	Record func() (string, error)
	// Status is the first status line ("": the relay's, that the editor
	// changes the links now).
	Status string
}

// proxySample is one chart column's worth: per direction the added
// delay's range, the arrival rate and the game's jitter.
type proxySample struct {
	delayLo, delayHi [2]float64
	rate             [2]float64
	jitter           [2]float64
	wall             time.Duration // the snapshot's
	in               [2]uint64     // datagrams in, totals
	delivered        [2]uint64     // copies written out, totals
	lost, reordered  [2]uint64     // totals
	duplicated       [2]uint64     // totals
	bursts           [2]int64      // runs of losses, totals (< 0: not measured)
	bytes            [2]int64      // payload bytes written out, totals (< 0: not measured)
	outRate, kbit    [2]float64    // copies and kbit/s written out over the same span as rate (kbit NaN: not measured)
	game             gameFigures   // the game's frames in the column (none: not measured)
}

// rateSpan is the span packet rates are averaged over: a game's 20 or 60
// packets/s are 2 or 6 a sample, too few for a steady rate.
const rateSpan = time.Second

// realSpan is the span the realised figures (delay p50/p99, loss, bursts,
// reorders, duplicates) are taken over, cut at the latest change of the
// links so that they compare with the settings in force.
const realSpan = 10 * time.Second

// View is the live screen of 'lab proxy': the relay's charts, the
// configured and the realised link side by side, the link editor, the
// status line and the keys, laid out like the lab's for 80×24 first.
type View struct {
	app   *tview.Application
	src   Source
	every time.Duration
	scen  *scenarios.Scenario
	rec   func() (string, error)

	header, keys        *widget.FitLine
	statusRow, table    *tview.TextView
	log                 *widget.ScrollText
	delay, rate, jitter *widget.Chart
	offset, interval    *widget.Chart // the game's (with telemetry)
	visErr              *widget.Chart
	card                *tview.TextView // the game's report card (with telemetry), under the editor
	right               *tview.Flex     // the editor (or the change log) above the card
	game                bool            // the relay receives the game's telemetry: its charts and card show
	cardHidden          bool            // p: the card's rows go to the editor
	linkCharts          bool            // g: a column too low for six charts shows the link's, not the game's
	spanText            string          // the charts' time axis, "−30s"
	editor              *widget.Editor
	upper               widget.Layers // the editor or the change log
	pages               widget.Layers
	rows                *tview.Flex
	statusText, status  string
	editing             bool
	window              int
	samples             []proxySample
	refused             []Change    // values the editor refused, for c (bounded: the oldest go)
	last                Snapshot    // the latest snapshot
	prev                Snapshot    // the one the latest sample's rates start from
	pending             proxySample // delays gathered toward the next sample
	pendingN            [2]int
	recent              [2]delayWindow            // the copies' delays over the realised figures' span
	groups              map[string]*realGroup     // each link's realised figures, by Group.Addr
	groupOrder          []string                  // the links in the latest snapshot, everybody's first
	selected            string                    // the link the box shows (f): a Group.Addr
	expected            map[netem.Params]setCells // the set rows' model figures, by link (bounded)
	measured            [2]bool                   // the source measures a direction's delays
	haveLast            bool
	tableWidth          int  // the box's inner width at the latest draw (0: not drawn yet)
	ended               bool // the relay stopped, and the screen with it
	signal              os.Signal
	clock               *widget.Clock
}

// proxyTableHeight is the configured-and-realised box: a heading row, two
// rows per direction and the border.
const proxyTableHeight = 7

// New builds the proxy's screen over src.
func New(src Source, opts Options) *View {
	if opts.Every <= 0 {
		opts.Every = 100 * time.Millisecond
	}
	v := &View{app: tview.NewApplication(), src: src, every: opts.Every, scen: opts.Scenario, rec: opts.Record, window: 1, clock: widget.NewClock(),
		groups: map[string]*realGroup{}, expected: map[netem.Params]setCells{},
		header: widget.NewFitLine(), keys: widget.NewFitLine(), editor: newLinkEditor(),
		statusRow: tview.NewTextView().SetDynamicColors(true).SetWrap(false),
		table:     tview.NewTextView().SetDynamicColors(true).SetWrap(false),
		card:      tview.NewTextView().SetWrap(false),
		log:       widget.NewScrollText()}
	for _, t := range []*tview.TextView{v.statusRow, v.table, v.card} {
		t.SetBackgroundColor(tcell.ColorDefault)
	}
	v.table.SetBorder(true).SetTitle(" configured (set) and realised, per direction ").SetTitleAlign(tview.AlignLeft)
	v.card.SetBorder(true).SetTitleAlign(tview.AlignLeft)
	v.app.SetAfterDrawFunc(func(tcell.Screen) { _, _, v.tableWidth, _ = v.table.GetInnerRect() })
	v.delay = widget.NewChart("added delay (ms)")
	v.delay.Color = tcell.ColorAqua
	v.delay.Format = "%.1f"
	v.delay.Short = "delay ms"
	v.rate = widget.NewChart("packets/s in")
	v.rate.Color, v.rate.Short = tcell.ColorYellow, "pkt/s in"
	v.jitter = widget.NewChart("jitter in (ms)")
	v.jitter.Short = "jitter ms"
	v.jitter.Color = tcell.ColorFuchsia
	v.jitter.Format = "%.1f"
	for _, c := range []*widget.Chart{v.delay, v.rate, v.jitter} {
		c.Color2 = tcell.ColorWhite
	}
	v.offset, v.interval, v.visErr = gameCharts()
	v.editor.Get = src.Get
	v.editor.Set = v.set
	v.upper = widget.Layers{Pages: tview.NewPages()}
	v.upper.AddPage("log", v.log, true, false).AddPage("editor", v.editor, true, true)
	charts := &chartColumn{Flex: tview.NewFlex().SetDirection(tview.FlexRow), v: v}
	// The card has no rows until the game's telemetry comes (showGame).
	v.right = tview.NewFlex().SetDirection(tview.FlexRow).AddItem(v.upper, 0, 1, true).AddItem(v.card, 0, 0, false)
	main := tview.NewFlex().AddItem(charts, 0, 1, false).AddItem(v.right, widget.SideWidth, 0, true)
	v.rows = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(v.header, 1, 0, false).
		AddItem(main, 0, 1, true).
		AddItem(v.table, proxyTableHeight, 0, false).
		AddItem(v.statusRow, 1, 0, false).
		AddItem(v.keys, 1, 0, false)
	v.pages = widget.Layers{Pages: tview.NewPages()}
	v.pages.AddPage("main", v.rows, true, true)
	v.setKeys()
	v.app.SetRoot(&widget.SizeGuard{Primitive: v.pages, MinW: widget.MinWidth, MinH: widget.MinHeight, Fit: v.fitStatus}, true).SetInputCapture(v.onKey)
	v.status = cmp.Or(opts.Status, "relaying; the editor changes the links now (enter types a value, + - step)")
	v.sample()
	v.refresh()
	return v
}

// setKeys lays out the key row (g once the game's charts show).
func (v *View) setKeys() {
	segs := []widget.Segment{{Text: "[yellow]↑↓←→[-] select", Prio: 60}, {Text: "[yellow]+-[-] step", Prio: 70},
		{Text: "[yellow]enter[-] type", Prio: 80}, {Text: "[yellow]1-9[-] preset", Prio: 50}}
	if v.game {
		segs = append(segs, widget.Segment{Text: "[yellow]g[-] charts", Prio: 35}, widget.Segment{Text: "[yellow]p[-] card", Prio: 33})
	}
	segs = append(segs, widget.Segment{Text: "[yellow]z[-] zoom", Prio: 20}, widget.Segment{Text: "[yellow]c[-] changes", Prio: 30}, widget.Segment{Text: "[yellow]f[-] links", Prio: 25}, widget.Segment{Text: "[yellow]R[-] record", Prio: 40},
		widget.Segment{Text: "[yellow]?[-] help", Prio: widget.MustKeep}, widget.Segment{Text: "[yellow]q[-] quit", Prio: widget.MustKeep})
	v.keys.Set("  ", segs...)
}

// Run shows the screen until q, Ctrl-C or SIGTERM, SIGHUP or SIGINT (nil
// screen: the terminal); the relay keeps running meanwhile. It returns
// io.EOF when the terminal went away.
func (v *View) Run(screen tcell.Screen) error {
	if screen != nil {
		v.app.SetScreen(screen)
	}
	t := time.NewTicker(time.Second / 10)
	defer t.Stop()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
	defer signal.Stop(sigs)
	sig, err := v.clock.Run(v.app, t.C, time.Now(), sigs, v.advance)
	v.signal = sig
	return err
}

// Stop ends Run (from any goroutine: the relay ended).
func (v *View) Stop() { v.app.Stop() }

// Signal is the signal that ended Run, or nil.
func (v *View) Signal() os.Signal { return v.signal }

// advance takes a snapshot and redraws; wall time is the relay's own.
func (v *View) advance(time.Duration) {
	v.sample()
	v.refresh()
	if v.last.Stopped && !v.ended {
		v.ended = true
		v.app.Stop()
	}
}

// sample reads a snapshot: its delays go into the pending sample, and once
// a sample period has passed since the last sample the pending one is
// kept with the arrival rates over that period.
func (v *View) sample() {
	s := v.src.Snapshot()
	// A new kind of socket error is announced on the status line, once.
	if n := len(s.ErrorKinds); n > len(v.last.ErrorKinds) {
		v.status = "[red]relay: " + tview.Escape(s.ErrorKinds[n-1]) + "[-] (counted in the header from now on)"
	}
	// Clients evicting one another: more send than the table holds.
	if s.Evicted > v.last.Evicted {
		v.status = fmt.Sprintf("[red]evicted %d clients[-]: more than --max-clients %d send (each new one evicts the longest idle, one in a conversation last)", s.Evicted-v.last.Evicted, s.MaxClients)
	}
	// A change since by the timeline or the API (made or refused) is
	// announced on the status line.
	for _, c := range s.Changes[min(len(v.last.Changes), len(s.Changes)):] {
		switch {
		case c.Refused != "" && c.Who() != "":
			v.status = "[red]" + c.Who() + " refused[-] +" + fmtWall(c.At) + " " + tview.Escape(clip.String(c.What, maxChangeText)+": "+clip.String(c.Refused, maxChangeText))
		case c.Who() != "":
			v.status = "[yellow]" + c.Who() + "[-] +" + fmtWall(c.At) + " " + tview.Escape(clip.String(c.What, maxChangeText))
		}
	}
	v.last = s
	changed := v.latestChange()
	for d, pd := range []*Dir{&s.Up, &s.Down} {
		v.measured[d] = v.measured[d] || pd.DelaysMs != nil
		v.recent[d].cutAt(changed)
		v.recent[d].add(s.Wall, pd.DelaysMs)
		for _, ms := range pd.DelaysMs {
			if v.pendingN[d] == 0 || ms < v.pending.delayLo[d] {
				v.pending.delayLo[d] = ms
			}
			if v.pendingN[d] == 0 || ms > v.pending.delayHi[d] {
				v.pending.delayHi[d] = ms
			}
			v.pendingN[d]++
		}
	}
	if s.Game != nil {
		if !v.game {
			v.game = true
			v.setKeys()
			v.showCard()
		}
		for _, p := range s.Game.Points {
			v.pending.game.add(p)
		}
	}
	v.sampleGroups(changed)
	if !v.haveLast {
		v.prev, v.haveLast = s, true
		return
	}
	dt := (s.Wall - v.prev.Wall).Seconds()
	if dt < v.every.Seconds() {
		return
	}
	x := v.pending
	x.game = x.game.figures()
	x.wall, x.in = s.Wall, [2]uint64{s.Up.In, s.Down.In}
	x.delivered, x.bytes = [2]uint64{s.Up.Delivered, s.Down.Delivered}, [2]int64{s.Up.Bytes, s.Down.Bytes}
	x.lost, x.reordered = [2]uint64{s.Up.Lost, s.Down.Lost}, [2]uint64{s.Up.Reordered, s.Down.Reordered}
	x.duplicated, x.bursts = [2]uint64{s.Up.Duplicated, s.Down.Duplicated}, [2]int64{s.Up.LossBursts, s.Down.LossBursts}
	// The rates since the newest sample at least rateSpan old, or the first.
	from := proxySample{wall: v.prev.Wall, in: [2]uint64{v.prev.Up.In, v.prev.Down.In},
		delivered: [2]uint64{v.prev.Up.Delivered, v.prev.Down.Delivered}, bytes: [2]int64{v.prev.Up.Bytes, v.prev.Down.Bytes}}
	for i := len(v.samples) - 1; i >= 0; i-- {
		from = v.samples[i]
		if s.Wall-from.wall >= rateSpan {
			break
		}
	}
	for d, pd := range []*Dir{&s.Up, &s.Down} {
		if v.pendingN[d] == 0 {
			x.delayLo[d], x.delayHi[d] = math.NaN(), math.NaN()
		}
		span := (s.Wall - from.wall).Seconds()
		x.rate[d] = float64(x.in[d]-from.in[d]) / span
		x.outRate[d] = float64(x.delivered[d]-from.delivered[d]) / span
		x.kbit[d] = math.NaN()
		if x.bytes[d] >= 0 && from.bytes[d] >= 0 {
			x.kbit[d] = float64(x.bytes[d]-from.bytes[d]) * 8 / 1000 / span
		}
		x.jitter[d] = pd.ArrivalJitterMs
		if x.in[d] == from.in[d] { // nothing arrived for a second: no stream to measure
			x.jitter[d] = math.NaN()
		}
	}
	v.pending, v.pendingN, v.prev = proxySample{}, [2]int{}, s
	// Keep the longest window, trimming by half so appends stay amortised.
	keep := int(widget.Windows[len(widget.Windows)-1] / v.every)
	if len(v.samples) >= 2*keep {
		v.samples = append(v.samples[:0], v.samples[len(v.samples)-keep:]...)
	}
	v.samples = append(v.samples, x)
}

// refresh rewrites every view from the latest snapshot and samples.
func (v *View) refresh() {
	s := &v.last
	span := int(widget.Windows[v.window] / v.every)
	shown := v.samples[max(len(v.samples)-span, 0):]
	fill := func(c *widget.Chart, f func(x *proxySample, d int) []float64) {
		c.Values, c.Values2 = c.Values[:0], c.Values2[:0]
		for i := range shown {
			c.Values = append(c.Values, f(&shown[i], 0)...)
			c.Values2 = append(c.Values2, f(&shown[i], 1)...)
		}
		c.Window = span * 2
		c.Span = ""
	}
	// Two values per sample (the delay range), so every chart spans 2 per sample.
	fill(v.delay, func(x *proxySample, d int) []float64 { return []float64{x.delayLo[d], x.delayHi[d]} })
	fill(v.rate, func(x *proxySample, d int) []float64 { return []float64{x.rate[d], x.rate[d]} })
	fill(v.jitter, func(x *proxySample, d int) []float64 { return []float64{x.jitter[d], x.jitter[d]} })
	v.spanText = "−" + widget.FmtSpan(span, v.every)
	if v.game {
		v.fillGame(shown, span)
		if s.Game != nil {
			v.fillCard(s.Game)
		}
	}
	from := v.realFrom()
	up, down := v.realDelays(0, from), v.realDelays(1, from)
	v.delay.SetNote("up " + widget.Num("%.1f", up[0]) + ", dn " + widget.Num("%.1f", down[0]))
	if len(v.groupOrder) > 1 { // a p50 over links that differ is neither's: the box gives each
		v.delay.SetNote("all clients")
	}
	var rate [2]float64
	jit := [2]float64{math.NaN(), math.NaN()}
	if len(shown) > 0 {
		rate, jit = shown[len(shown)-1].rate, shown[len(shown)-1].jitter
	}
	v.rate.SetNote(fmt.Sprintf("up %.0f, dn %.0f", rate[0], rate[1]))
	v.jitter.SetNote("up " + widget.Num("%.1f", jit[0]) + ", dn " + widget.Num("%.1f", jit[1]))

	segs := []widget.Segment{
		{Text: "[::b]jitterlab proxy[::-]", Prio: 95},
		{Text: tview.Escape(s.Listen + " → " + s.Target), Prio: 60},
		{Text: fmt.Sprintf("clients %d", s.Clients), Prio: 80},
		{Text: "up " + fmtWall(s.Wall), Prio: 90},
	}
	if s.Recording != "" {
		segs = append(segs, widget.Segment{Text: "[red]● REC[-]", Prio: 88})
	}
	if s.Errors > 0 {
		segs = append(segs, widget.Segment{Text: fmt.Sprintf("[red]errors %d[-]", s.Errors), Prio: 85})
	}
	segs = append(segs, widget.Segment{Text: fmt.Sprintf("window %v", widget.Windows[v.window]), Prio: 30})
	v.header.Set(" ─ ", segs...)
	g := v.shownGroup()
	from = max(v.last.Wall-realSpan, g.since) // the shown link's own latest change
	switch {
	case len(v.groupOrder) < 2:
		v.table.SetTitle(fmt.Sprintf(" configured (set) and realised (real: %s) ", v.realSpanText(from)))
	case g.info.Addr == "":
		v.table.SetTitle(fmt.Sprintf(" everybody's link, %s: set and real (real: %s) ", plural.Of(g.info.Clients, "client"), v.realSpanText(from)))
	default:
		v.table.SetTitle(fmt.Sprintf(" %s's own link: set and real (real: %s) ", g.info.Addr, v.realSpanText(from)))
	}
	v.table.SetText(v.tableText(g, from))
	height := proxyTableHeight
	if len(v.groupOrder) > 1 {
		height++ // the line of links f shows
	}
	v.rows.ResizeItem(v.table, height, 0)
	if v.logShown() {
		all := slices.Concat(s.Changes, v.refused)
		slices.SortStableFunc(all, func(a, b Change) int { return cmp.Compare(a.At, b.At) })
		v.log.Set(fmt.Sprintf(" scenario and changes (%d) ─ c closes ", len(all)), proxyLogText(v.scen, all))
	}
	v.statusText = " " + v.status
	v.statusRow.SetText(v.statusText)
}

// fmtWall is a wall time since the start as 00:01:02.3.
func fmtWall(d time.Duration) string {
	d = d.Truncate(100 * time.Millisecond)
	return fmt.Sprintf("%02d:%02d:%02d.%d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60, int(d/(100*time.Millisecond))%10)
}

// tableText is the configured link and the realised one, per direction,
// for the link g (everybody's, or a client's own): a "set" row of the keys
// in force and a "real" row of what its packets met since from, column by
// column (delays: each direction's added delay p50 and p99 then). With
// clients on links of their own, a last line lists the links f shows.
func (v *View) tableText(g *realGroup, from time.Duration) string {
	row := func(cells ...string) string {
		return fmt.Sprintf(" %-9s %9s %6s %6s %6s %5s %7s %5s %6s %7s", anySlice(cells)...)
	}
	lines := []string{"[teal]" + row("", "delay p50", "p99", "jitter", "loss", "burst", "reorder", "dup", "pkt/s", "kbit/s") + "[-]"}
	pct := func(n, of uint64) string {
		if of == 0 {
			return "–"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
	}
	ms := func(x float64) string {
		if x >= 100 {
			return widget.Num("%.0f", x)
		}
		return widget.Num("%.1f", x)
	}
	base, now := g.at(from), g.latest()
	outRate, kbit := g.rates()
	for d, dir := range []string{"up", "down"} {
		c := &g.info.Up
		if d == 1 {
			c = &g.info.Down
		}
		in, lost := now.in[d]-base.in[d], now.lost[d]-base.lost[d]
		delivered, reordered, dup := now.delivered[d]-base.delivered[d], now.reordered[d]-base.reordered[d], now.duplicated[d]-base.duplicated[d]
		delay := [2]float64{math.NaN(), math.NaN()}
		if g.measured[d] {
			delay = g.delays[d].percentiles(from)
		}
		get := func(k string) string {
			if g.info.Set != nil {
				return g.info.Set[dir+"."+k]
			}
			return v.src.Get(dir + "." + k)
		}
		limit := get("rate")
		if limit == "0" {
			limit = ""
		}
		e := v.expectation(dir, get)
		lines = append(lines, tview.Escape(row(dir+" set", e.p50, e.p99, e.jitter, get("loss"), get("loss_burst"), get("reorder"), get("duplicate"), "", limit)))
		burst := "–" // not measured, or no datagram to measure it on
		if now.bursts[d] >= 0 && base.bursts[d] >= 0 && in > 0 {
			if runs := now.bursts[d] - base.bursts[d]; runs > 0 {
				burst = fmt.Sprintf("%.1f", float64(lost)/float64(runs))
			} else if in > 0 {
				burst = "0"
			}
		}
		jitter := math.NaN() // a transit difference needs two copies
		if now.delivered[d] >= 2 {
			jitter = c.JitterMs
		}
		lines = append(lines, "[white]"+tview.Escape(row("   real", ms(delay[0]), ms(delay[1]), ms(jitter), pct(lost, in),
			burst, pct(reordered, delivered), pct(dup, in), fmt.Sprintf("%.0f", outRate[d]), widget.Num("%.1f", kbit[d])))+"[-]")
	}
	if len(v.groupOrder) > 1 {
		lines = append(lines, v.groupLine())
	}
	return strings.Join(lines, "\n")
}

// groupLine lists the links f shows in turn, the one shown reversed:
// everybody's (with its clients) and each client's own (its settings,
// or only its address when the settings do not fit the box's width; the
// set rows give the shown link's). Past the width even so, it names the
// shown link and how many there are.
func (v *View) groupLine() string {
	width := v.tableWidth
	shown := v.shownGroup().info.Addr
	line := func(settings bool) (string, int) {
		parts, plain := []string{}, []string{}
		for _, addr := range v.groupOrder {
			g := v.groups[addr]
			text := "everybody's " + plural.Of(g.info.Clients, "client")
			if addr != "" {
				text = addr
				if settings {
					text += " " + g.info.Own
				}
				if g.info.Clients == 0 {
					text += " (not relayed now)"
				}
			}
			plain = append(plain, text)
			text = tview.Escape(text)
			if addr == shown {
				text = "[::r]" + text + "[::-]"
			}
			parts = append(parts, text)
		}
		return " [yellow]f[-] shows " + strings.Join(parts, " · "), len([]rune(" f shows " + strings.Join(plain, " · ")))
	}
	text, n := line(true)
	if width > 0 && n > width {
		text, n = line(false)
	}
	if width > 0 && n > width {
		text = fmt.Sprintf(" [yellow]f[-] shows link %d of %d", slices.Index(v.groupOrder, shown)+1, len(v.groupOrder))
	}
	return text
}

// expectation is the set row's delay p50, p99 and jitter for a direction's
// link: what the link model gives (netem.DelayPercentiles,
// netem.ExpectedJitter), "≈50.0", "≈69.6", "≈13.3"; where another stage
// moves delays, the latency and jitter knobs, the jitter's kind marked (±
// uniform, + the exponential's mean, σ the others), and no jitter figure.
func (v *View) expectation(dir string, get func(string) string) setCells {
	cfg := lab.DefaultConfig()
	for _, p := range lab.Params() {
		if k, ok := strings.CutPrefix(p.Key, dir+"."); ok && p.Live {
			_ = p.Set(&cfg, get(k)) // the source's values are the registry's
		}
	}
	link := cfg.Up
	if dir == "down" {
		link = cfg.Down
	}
	if c, ok := v.expected[link]; ok {
		return c
	}
	approx := func(d time.Duration) string {
		ms := float64(d) / 1e6
		if ms >= 100 {
			return "≈" + strconv.FormatFloat(ms, 'f', 0, 64)
		}
		return "≈" + strconv.FormatFloat(ms, 'f', 1, 64)
	}
	kind := "±"
	switch link.JitterDist {
	case netem.Exponential:
		kind = "+"
	case netem.Normal, netem.Pareto, netem.ParetoNormal:
		kind = "σ"
	}
	c := setCells{p50: get("latency"), p99: kind + get("jitter")}
	if p50, p99, ok := netem.DelayPercentiles(link); ok {
		c.p50, c.p99 = approx(p50), approx(p99)
	}
	if j, ok := netem.ExpectedJitter(link); ok && link.Jitter > 0 {
		c.jitter = approx(j)
	}
	if len(v.expected) >= 64 {
		clear(v.expected)
	}
	v.expected[link] = c
	return c
}

// setCells are a set row's model figures (see expectation).
type setCells struct{ p50, p99, jitter string }

// realFrom is where the realised figures start: realSpan ago, or the
// latest change of the links if later (whoever made it).
func (v *View) realFrom() time.Duration {
	return max(v.last.Wall-realSpan, v.latestChange())
}

// latestChange is when the links last changed (0: never).
func (v *View) latestChange() time.Duration {
	var at time.Duration
	for _, c := range v.last.Changes {
		if c.Refused == "" {
			at = max(at, c.At)
		}
	}
	return at
}

// realSpanText says over which span the realised figures are.
func (v *View) realSpanText(from time.Duration) string {
	if from > 0 && from > v.last.Wall-realSpan {
		return "since +" + fmtWall(from)
	}
	return fmt.Sprintf("the last %v", realSpan)
}

// realDelays is a direction's added delay p50 and p99 over the copies
// written since from, to the second (NaN: none, or not measured).
func (v *View) realDelays(d int, from time.Duration) [2]float64 {
	if !v.measured[d] {
		return [2]float64{math.NaN(), math.NaN()}
	}
	return v.recent[d].percentiles(from)
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// proxyLogText is the change-log pane, as the lab's: the scenario's name,
// file, description, source and timeline, then every change so far,
// oldest first, who made it, and what was refused with the reason.
func proxyLogText(sc *scenarios.Scenario, changes []Change) string {
	var b strings.Builder
	if sc != nil {
		fmt.Fprintf(&b, "[::b]%s[::-] (%s)\n%s\n[gray]source:[-] %s\n", tview.Escape(sc.Name), tview.Escape(sc.File), tview.Escape(sc.Description), tview.Escape(sc.Source))
		for _, c := range sc.Timeline {
			for _, s := range c.Set {
				fmt.Fprintf(&b, "[gray]timeline %v %s=%s[-]\n", c.At, s.Key, tview.Escape(s.Value))
			}
		}
		b.WriteString("\n")
	}
	if len(changes) == 0 {
		b.WriteString("no changes yet")
	}
	for _, c := range changes {
		by := ""
		if c.Who() != "" {
			by = "[gray]" + c.Who() + "[-] "
		}
		what := tview.Escape(clip.String(c.What, maxChangeText))
		if c.Refused != "" {
			fmt.Fprintf(&b, "[red]+%s refused[-] %s%s: %s\n", fmtWall(c.At), by, what, tview.Escape(clip.String(c.Refused, maxChangeText)))
			continue
		}
		fmt.Fprintf(&b, "[yellow]+%s[-] %s%s\n", fmtWall(c.At), by, what)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// maxChangeText bounds what the screen shows of a change's text and of
// its refusal, each (a value sent to the API may be a megabyte long): the
// first bytes, and how many more there were.
const maxChangeText = 500

// maxRefused bounds the editor's refusals kept for c.
const maxRefused = 1000

// refuse notes a value the editor refused, for c.
func (v *View) refuse(what string, err error) {
	if len(v.refused) >= maxRefused {
		v.refused = slices.Delete(v.refused, 0, len(v.refused)/2)
	}
	v.refused = append(v.refused, Change{At: v.last.Wall, What: what, Refused: err.Error()})
}

// fitStatus keeps the status to its one row, cut with "…" when it is
// wider than w, so the charts keep their rows: the changes panel (c) has
// every change and refusal in full.
func (v *View) fitStatus(w int) { v.statusRow.SetText(widget.CutToWidth(v.statusText, w)) }

func (v *View) logShown() bool { name, _ := v.upper.GetFrontPage(); return name == "log" }

// set applies key=value to the relay now.
func (v *View) set(key, value string) error {
	if cur := v.src.Get(key); cur == canonical(key, value) {
		v.status = fmt.Sprintf("%s is already %s", key, tview.Escape(cur))
		return nil
	}
	if err := v.src.Apply([][2]string{{key, value}}); err != nil {
		v.status = "[red]" + tview.Escape(err.Error())
		v.refuse(key+"="+value, err)
		return err
	}
	v.sample() // the change is in the snapshot's list
	// The value as the editor now shows it (0.5 loss is 50%), not as typed.
	v.status = fmt.Sprintf("[green]%s = %s[-] at +%s", key, tview.Escape(cmp.Or(v.src.Get(key), value)), fmtWall(v.last.Wall))
	return nil
}

// onKey dispatches a key to its named handler.
func (v *View) onKey(ev *tcell.EventKey) *tcell.EventKey {
	if v.editing {
		return ev
	}
	if v.logShown() && v.log.Key(ev.Key()) { // the c panel scrolls
		v.refresh()
		return nil
	}
	if v.editor.MoveKey(ev.Key()) {
		v.refresh()
		return nil
	}
	switch ev.Key() {
	case tcell.KeyEnter:
		v.startEdit()
	case tcell.KeyCtrlC:
		v.app.Stop()
	case tcell.KeyRune:
		switch r := ev.Rune(); {
		case r == '+' || r == '=':
			v.step(1)
		case r == '-' || r == '_':
			v.step(-1)
		case r >= '1' && r <= '9':
			v.preset(int(r - '1'))
		case r == 'z':
			v.window = (v.window + 1) % len(widget.Windows)
		case r == 'c':
			v.toggleLog()
		case r == 'f':
			v.nextGroup()
		case r == 'g' && v.game:
			v.swapCharts()
		case r == 'p' && v.game:
			v.toggleCard()
		case r == 'R' && v.rec != nil:
			v.record()
		case r == '?':
			v.help()
		case r == 'q':
			v.app.Stop()
		default:
			return ev
		}
	default:
		return ev
	}
	v.refresh()
	return nil
}

// record is R: it starts or stops the run's recording.
func (v *View) record() {
	msg, err := v.rec()
	if err != nil {
		v.status = "[red]record: " + tview.Escape(err.Error())
		return
	}
	v.status = "[green]" + tview.Escape(msg) + "[-]"
}

func (v *View) step(dir int) {
	if err := v.editor.Step(dir); err != nil {
		v.status = "[red]" + tview.Escape(err.Error())
	}
}

func (v *View) toggleLog() {
	if v.logShown() {
		v.upper.SwitchToPage("editor")
	} else {
		v.log.End() // the newest change first
		v.upper.SwitchToPage("log")
	}
}

// linkConfig is the links in force as a lab configuration, for presets.
func (v *View) linkConfig() lab.Config {
	cfg := lab.DefaultConfig()
	for _, p := range lab.Params() {
		if p.Live && (strings.HasPrefix(p.Key, "up.") || strings.HasPrefix(p.Key, "down.")) {
			_ = p.Set(&cfg, v.src.Get(p.Key)) // the source's values are the registry's
		}
	}
	return cfg
}

// preset applies preset i to both links now, as a whole link.
func (v *View) preset(i int) {
	if i >= len(preset.Keys) {
		return
	}
	name := preset.Keys[i]
	changes, desc, err := preset.Changes(v.linkConfig(), name)
	changes = slices.DeleteFunc(changes, func(c [2]string) bool {
		return !strings.HasPrefix(c[0], "up.") && !strings.HasPrefix(c[0], "down.")
	})
	if err == nil {
		err = v.src.Apply(changes)
	}
	if err != nil {
		v.status = "[red]preset " + name + ": " + tview.Escape(err.Error())
		v.refuse("preset "+name, err)
		return
	}
	v.sample()
	v.status = fmt.Sprintf("[green]preset %d: %s[-] (%d changes) %s", i+1, name, len(changes), tview.Escape(desc))
}

// startEdit opens a field to type the value under the cursor.
func (v *View) startEdit() {
	key := v.editor.Key()
	v.editing = true
	widget.OpenPrompt(v.app, v.pages.Pages, " Enter sets, Esc cancels ", key+" = ", v.src.Get(key), 24, func(text string) {
		v.set(key, strings.TrimSpace(text))
	}, func() {
		v.editing = false
		v.app.SetFocus(v.editor)
		v.refresh()
	})
}

// proxyKeys are the proxy screen's keys, for its help and the README.
var proxyKeys = [][2]string{
	{"↑ ↓ ← →", "select a link parameter and its direction (up / down); PgUp PgDn by ten"},
	{"+ -", "step the value now (latency ±5 ms, loss ±0.5 %, …)"},
	{"enter", "type a value as on the command line (80ms, 2%); a bad one is refused with the reason"},
	{"1-9", "apply a preset to both links: " + strings.Join(preset.Keys, ", ")},
	{"z", "chart window: 10 s, 30 s, 2 min"},
	{"c", "the scenario (description, source, timeline) and every change so far in place of the editor — yours, the timeline's, the control API's, --flow's — and those refused, with the reason, newest at the bottom: ↑ ↓ PgUp PgDn Home End scroll it, its bottom edge says which lines show"},
	{"p", "with the game's telemetry: hide the game's report card under the editor (the editor takes its rows), or show it again"},
	{"g", "with the game's telemetry on a terminal under " + strconv.Itoa(gameScreenRows) + " rows: the link's charts in place of the game's, or back"},
	{"f", "with clients on links of their own (--flow, the control API): the link the box below shows in turn — everybody's (its clients' figures only), then each such client's"},
	{"R", "record the relayed traffic from now to a new file (jitterlab-proxy-DATE-TIME.jlrec in the current folder), or stop and close it; lab replay, export and plot read it (with --record or --pcap running from the start, R says so)"},
	{"?", "this help (Esc closes)"},
	{"q Ctrl-C", "quit: the relay stops and prints its summary, an open recording is closed (SIGTERM, SIGHUP and a kill's SIGINT do the same and exit 128 + the signal)"},
}

// KeyHelp lists the proxy screen's keys, one per line.
func KeyHelp() string { return widget.KeyLines(proxyKeys, "  ", widget.KeyColumns) }

// proxyGameHelp is one paragraph, before proxyChartHelp.
const proxyGameHelp = "Charts, with the game's telemetry (--telemetry), first three as the lab's: the game's tick offset and send interval " +
	"as its latest frame gave them, and its visible error, the largest |visible − predicted| distance of a column's frames. " +
	"On a short terminal they take the link's charts' place (g swaps them). " +
	"Under the editor, the game's report card, computed from its frames by the lab's own rules, as lab proxy's closing account prints it " +
	"(a dash where telemetry does not carry the figure: the corrections, the server's input delay); it counts the frames from the lab's warm-up after the game's login on (p hides it)."

// proxyChartHelp is one paragraph: the help box wraps it at its width.
const proxyChartHelp = "Charts, newest at the right, up in colour and down in white: the one-way " +
	"delay the proxy added to each relayed packet (each column its range; p50 in the title), the " +
	"game's own packets per second as they reach the proxy, and the RFC 3550 " +
	"jitter of the game's stream as it arrives. The box below compares, per " +
	"direction, the link as set with what the relayed packets met over the last 10 s (to the second, at any packet rate), or since the latest change of the link shown " +
	"(its title says which): added delay p50/p99 (within 0.05 %; the set row gives the link model's, ≈, or the latency and jitter settings where other stages move delays too), loss (and the mean burst length), reordered and duplicated shares; " +
	"beside them the relayed stream's RFC 3550 jitter as it stands, of the clients that had a copy in the last second (the set row's ≈ is what the link model gives in the long run; one reading spreads around it, about 15 % for uniform jitter), and the packets and kilobits per second written out over the last second. " +
	"When some client has a link of its own (--flow, the control API), the box shows one link at a time, its title says which: " +
	"everybody's, whose figures leave those clients out, or one client's own, its settings in the set rows; its last line lists them and f moves on. " +
	"A dash is a figure the relay does not measure."

func (v *View) help() {
	text := func(columns int) string {
		return widget.KeyLines(proxyKeys, "", columns) + "\n" + proxyGameHelp + "\n\n" + proxyChartHelp + "\n\n" + widget.HelpLastLine
	}
	v.editing = true
	widget.ShowHelp(v.app, v.pages.Pages, text, func() { v.editing = false; v.app.SetFocus(v.editor) })
}
