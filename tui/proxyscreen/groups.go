package proxyscreen

import (
	"math"
	"slices"
	"strings"
	"time"

	"jitterlab/lab"

	"github.com/rivo/tview"
)

// realGroup is one link's realised figures (everybody's, or a client's
// own): its counters at each snapshot over the realised figures' span and
// a second more (the rates), and its copies' delays.
type realGroup struct {
	info     Group         // the latest snapshot's, without its delays
	settings string        // its link settings at the latest snapshot
	since    time.Duration // when they last changed (or the link began)
	counts   []groupCounts // newest last
	delays   [2]delayWindow
	measured [2]bool
}

// groupCounts is a link's counter totals at one snapshot.
type groupCounts struct {
	wall                           time.Duration
	in, delivered, lost, reordered [2]uint64
	duplicated                     [2]uint64
	bursts, bytes                  [2]int64 // < 0: not measured
}

func countsOf(wall time.Duration, g *Group) groupCounts {
	c := groupCounts{wall: wall}
	for d, pd := range []*Dir{&g.Up, &g.Down} {
		c.in[d], c.delivered[d], c.lost[d], c.reordered[d] = pd.In, pd.Delivered, pd.Lost, pd.Reordered
		c.duplicated[d], c.bursts[d], c.bytes[d] = pd.Duplicated, pd.LossBursts, pd.Bytes
	}
	return c
}

// sampleGroups takes the latest snapshot's links (its Up and Down as
// everybody's when it does not split them); a link no longer in it goes.
func (v *View) sampleGroups(changed time.Duration) {
	s := &v.last
	groups := s.Groups
	if groups == nil {
		groups = []Group{{Clients: s.Clients, Up: s.Up, Down: s.Down}}
	}
	v.groupOrder = v.groupOrder[:0]
	for i := range groups {
		g := &groups[i]
		rg := v.groups[g.Addr]
		if rg == nil {
			rg = &realGroup{}
			v.groups[g.Addr] = rg
		}
		v.groupOrder = append(v.groupOrder, g.Addr)
		// Its figures start afresh when its own settings change, not at
		// another client's change (the latest change made them differ).
		if set := v.settingsOf(g); set != rg.settings {
			at := changed
			if rg.settings != "" && at <= rg.since {
				at = s.Wall // applied, and not in the log yet
			}
			rg.settings, rg.since = set, at
		}
		for d, pd := range []*Dir{&g.Up, &g.Down} {
			rg.measured[d] = rg.measured[d] || pd.DelaysMs != nil
			rg.delays[d].cutAt(rg.since)
			rg.delays[d].add(s.Wall, pd.DelaysMs)
		}
		rg.info = *g
		rg.info.Up.DelaysMs, rg.info.Down.DelaysMs = nil, nil
		// Keep one entry at or before the span's start (the base), and
		// append amortised.
		cutoff := s.Wall - realSpan - rateSpan
		drop := 0
		for drop+1 < len(rg.counts) && rg.counts[drop+1].wall <= cutoff {
			drop++
		}
		if drop > len(rg.counts)/2 {
			rg.counts = append(rg.counts[:0], rg.counts[drop:]...)
		}
		rg.counts = append(rg.counts, countsOf(s.Wall, g))
	}
	for addr := range v.groups {
		if !slices.Contains(v.groupOrder, addr) {
			delete(v.groups, addr)
		}
	}
}

// settingsOf is a link's settings in force, one string: a client's own
// link's from the snapshot, everybody's from the source.
func (v *View) settingsOf(g *Group) string {
	var b strings.Builder
	for _, p := range proxyLinkParams {
		for _, dir := range []string{"up.", "down."} {
			val := ""
			if g.Set != nil {
				val = g.Set[dir+p]
			} else {
				val = v.src.Get(dir + p)
			}
			b.WriteString(val)
			b.WriteByte(0)
		}
	}
	return b.String()
}

// shownGroup is the link the box shows: the one f selected, or
// everybody's once that is gone.
func (v *View) shownGroup() *realGroup {
	if g := v.groups[v.selected]; g != nil {
		return g
	}
	v.selected = ""
	if g := v.groups[""]; g != nil {
		return g
	}
	return &realGroup{info: Group{Up: Dir{JitterMs: math.NaN()}, Down: Dir{JitterMs: math.NaN()}}}
}

// nextGroup is f: the box shows the next link.
func (v *View) nextGroup() {
	if len(v.groupOrder) < 2 {
		v.status = "every client is on everybody's link: f shows a client's own link once one has some (--flow, the control API)"
		return
	}
	i := slices.Index(v.groupOrder, v.shownGroup().info.Addr)
	v.selected = v.groupOrder[(i+1)%len(v.groupOrder)]
	if v.selected == "" {
		v.status = "the box shows everybody's link: the figures of its clients only"
	} else {
		v.status = "the box shows " + tview.Escape(v.selected) + "'s own link; the editor changes everybody's"
	}
}

// at is the link's counters at from: the newest entry no later, or none
// (zero: the link began after from).
func (g *realGroup) at(from time.Duration) groupCounts {
	for i := len(g.counts) - 1; i >= 0; i-- {
		if g.counts[i].wall <= from {
			return g.counts[i]
		}
	}
	return groupCounts{}
}

// latest is the link's counters now.
func (g *realGroup) latest() groupCounts {
	if len(g.counts) == 0 {
		return groupCounts{}
	}
	return g.counts[len(g.counts)-1]
}

// rates are the copies and kbit/s the link wrote out over the last
// rateSpan, or since its first snapshot (kbit NaN: not measured).
func (g *realGroup) rates() (outRate, kbit [2]float64) {
	kbit = [2]float64{math.NaN(), math.NaN()}
	if len(g.counts) < 2 {
		return outRate, kbit
	}
	now := g.latest()
	from := g.counts[0]
	for i := len(g.counts) - 2; i >= 0; i-- {
		if from = g.counts[i]; now.wall-from.wall >= rateSpan {
			break
		}
	}
	span := (now.wall - from.wall).Seconds()
	for d := range 2 {
		outRate[d] = float64(now.delivered[d]-from.delivered[d]) / span
		if now.bytes[d] >= 0 && from.bytes[d] >= 0 {
			kbit[d] = float64(now.bytes[d]-from.bytes[d]) * 8 / 1000 / span
		}
	}
	return outRate, kbit
}

// proxyLinkParams are the link's live keys without their direction
// (latency, jitter, …).
var proxyLinkParams = func() []string {
	var out []string
	for _, p := range lab.Params() {
		if k, ok := strings.CutPrefix(p.Key, "up."); ok && p.Live {
			out = append(out, k)
		}
	}
	return out
}()
