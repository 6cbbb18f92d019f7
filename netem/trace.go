package netem

import (
	"fmt"
	"time"

	"jitterlab/sim"
)

// Trace is a measured path replayed packet by packet (trace mode). Set as
// [Params.Trace] it replaces the loss and delay stages (latency, jitter,
// reorder): a packet sent t after the link's first packet under this trace
// gets the fate of the trace's packet with the latest send offset ≤ t — its
// one-way delay, or lost — and the trace loops, unless [Params.TraceOnce]:
// then after its end the link's own loss and delay apply. Duplicate, queue
// limit, rate and keep_order still apply.
type Trace struct {
	File string // where it was read from, for messages and recordings
	Hash string // "sha256:" and the hex digest of the file's bytes
	at   []time.Duration
	dl   []time.Duration // < 0: lost
	span time.Duration   // loop period
}

// NewTrace builds a trace from send offsets (from the first packet,
// non-decreasing) and one-way delays (negative for a lost packet; at most
// MaxDelay). The loop period is the last offset plus the mean spacing.
func NewTrace(file, hash string, at, delay []time.Duration) (*Trace, error) {
	if len(at) == 0 || len(at) != len(delay) {
		return nil, fmt.Errorf("%s: a trace needs packets (%d send times, %d delays)", file, len(at), len(delay))
	}
	for i := range at {
		if at[i] < 0 || (i > 0 && at[i] < at[i-1]) {
			return nil, fmt.Errorf("%s: packet %d: send offset %v: want offsets from 0, non-decreasing", file, i+1, at[i])
		}
		if delay[i] > MaxDelay {
			return nil, fmt.Errorf("%s: packet %d: one-way delay %v: want at most %v", file, i+1, delay[i], MaxDelay)
		}
	}
	last := at[len(at)-1]
	step := time.Millisecond
	if len(at) > 1 {
		step = max(last/time.Duration(len(at)-1), 1)
	}
	return &Trace{File: file, Hash: hash, at: at, dl: delay, span: last + step}, nil
}

// Len is the number of packets in the trace.
func (t *Trace) Len() int { return len(t.at) }

// Span is the trace's loop period.
func (t *Trace) Span() time.Duration { return t.span }

// fate is the delay (or lost) of a packet sent since after the start;
// ok is false past the end when the trace does not loop.
func (t *Trace) fate(since time.Duration, loop bool) (d time.Duration, lost, ok bool) {
	if since >= t.span && !loop {
		return 0, false, false
	}
	since %= t.span
	lo, hi := 0, len(t.at) // the last offset ≤ since is at[lo]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if t.at[mid] <= since {
			lo = mid
		} else {
			hi = mid
		}
	}
	d = t.dl[lo]
	return d, d < 0, true
}

// traceState is where a link is in its trace.
type traceState struct {
	of    *Trace   // the trace the start belongs to
	start sim.Time // the first packet sent under it
	delay time.Duration
	past  bool // the packet being sent is past the end of a trace played once
}

// loseAt is the loss stage: the trace's in trace mode, else the model's.
// In trace mode it also draws the delay that delayAt returns.
func (l *Link) loseAt(now sim.Time) (lost, bad bool) {
	t := l.p.Trace
	if t == nil {
		return l.lose()
	}
	if l.tr.of != t {
		l.tr = traceState{of: t, start: now}
	}
	d, lost, ok := t.fate(now.Sub(l.tr.start), !l.p.TraceOnce)
	l.tr.delay, l.tr.past = d, !ok
	if !ok {
		return l.lose()
	}
	return lost, false
}

// delayAt is the delay stage: the trace's delay in trace mode (never a
// reorder skip: the trace's own order is kept), else the model's.
func (l *Link) delayAt() (time.Duration, bool) {
	if l.p.Trace != nil && !l.tr.past {
		return l.tr.delay, false
	}
	return l.delay()
}
