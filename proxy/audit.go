package proxy

import (
	"math"
	"time"

	"jitterlab/metrics"
	"jitterlab/netem"
	"jitterlab/sim"
)

// auditor measures what the relay realised, per direction: the delay it
// added to every copy written (wall time written − wall time read) and
// the RFC 3550 interarrival jitter of each flow's relayed stream (the
// transit through the proxy of consecutive copies). Its memory is fixed per
// live flow; a removed flow's jitter is folded into the totals.
type auditor struct {
	delay [2]*metrics.Histogram // ns
	late  [2]*metrics.Histogram // ns past the link's release time
	// stalled: copies written late for want of a CPU ([PacketEvent].Stalled);
	// lateOutside: the latest of the others, the relay's own timing error.
	stalled     [2]uint64
	lateOutside [2]sim.Time
	bytes       [2]uint64
	first, last [2]sim.Time // the first and the last copy written
	flows       map[FlowID]*flowAudit
	retired     [2]jitterSum
	// absD: the sum of |D|, the change in transit from the flow's
	// previous copy written, for its mean over the run.
	absD [2]jitterSum
}

type flowAudit struct {
	jitter [2]metrics.Jitter
	last   [2]sim.Time // the transit of the copy written last
	n      [2]uint64
	bytes  [2]uint64
	delay  [2]metrics.Welford // ns
}

// jitterSum is a packet-weighted sum of the flows' jitter.
type jitterSum struct {
	sum float64 // Σ J·n, ns
	n   uint64
}

func (j *jitterSum) add(jit time.Duration, n uint64) {
	j.sum += float64(float64(jit) * float64(n))
	j.n += n
}

func (j jitterSum) mean() time.Duration {
	if j.n == 0 {
		return 0
	}
	return time.Duration(math.Round(j.sum / float64(j.n)))
}

func newAuditor() auditor {
	return auditor{delay: [2]*metrics.Histogram{metrics.NewHistogram(1000), metrics.NewHistogram(1000)},
		late: [2]*metrics.Histogram{metrics.NewHistogram(1000), metrics.NewHistogram(1000)}, flows: map[FlowID]*flowAudit{}}
}

// delivered records a copy written at out (relay time); stalled: the
// relay was not given a CPU in time for it.
func (a *auditor) delivered(d *Delivery, out sim.Time, stalled bool) {
	f := a.flows[d.Flow]
	if f == nil {
		f = &flowAudit{}
		a.flows[d.Flow] = f
	}
	added := out - d.Arrived
	a.delay[d.Dir].Add(float64(added))
	a.late[d.Dir].Add(float64(out - d.Due))
	if stalled {
		a.stalled[d.Dir]++
	} else {
		a.lateOutside[d.Dir] = max(a.lateOutside[d.Dir], out-d.Due)
	}
	a.bytes[d.Dir] += uint64(len(d.Payload))
	if a.delay[d.Dir].Count() == 1 { // this one
		a.first[d.Dir] = out
	}
	a.last[d.Dir] = out
	f.jitter[d.Dir].Add(d.Arrived, out)
	if f.n[d.Dir] > 0 {
		a.absD[d.Dir].add(time.Duration(added-f.last[d.Dir]).Abs(), 1)
	}
	f.last[d.Dir] = added
	f.n[d.Dir]++
	f.bytes[d.Dir] += uint64(len(d.Payload))
	f.delay[d.Dir].Add(float64(added))
}

// retire folds a removed flow into the totals.
func (a *auditor) retire(id FlowID) {
	f := a.flows[id]
	if f == nil {
		return
	}
	for d := range f.n {
		a.retired[d].add(f.jitter[d].Value(), f.n[d])
	}
	delete(a.flows, id)
}

// Audit is the realised link next to the configured one, per direction,
// over the relay's run so far.
type Audit struct {
	Wall  time.Duration // since Run started (to its end once it returned)
	Dirs  [2]DirAudit   // [Up], [Down]
	Flows []FlowAudit   // the live flows, in the order they came
}

// DirAudit is one direction over every flow.
type DirAudit struct {
	Configured netem.Params // what new flows get now
	Counters   Counters
	// The delay the proxy added to the copies written: from reading a
	// datagram to writing it out.
	DelayP50, DelayP99, DelayMax time.Duration
	// How late the copies were written after the time the link gave them
	// (the relay's own timing error, to the microsecond).
	LateP50, LateP99, LateMax time.Duration
	// Stalled copies were written late because the relay was not given a
	// CPU in time ([PacketEvent].Stalled); LateMaxOutsideStalls is the
	// latest of the others: the relay's own timing error.
	Stalled              uint64
	LateMaxOutsideStalls time.Duration
	// Jitter is the RFC 3550 interarrival jitter of the relayed stream
	// (transit through the proxy), per flow; over several flows the mean
	// weighted by packets. JitterMean is the mean |D| over the run (D the
	// change in transit between a flow's consecutive copies written): the
	// value the estimator, a running mean over about 16 packets, tends
	// to and one reading spreads around, what netem.ExpectedJitter gives.
	Jitter     time.Duration
	JitterMean time.Duration
	Bytes      uint64        // payload bytes written
	Active     time.Duration // from the first copy written to the last
}

// FlowAudit is one live flow.
type FlowAudit struct {
	ID   FlowID
	Addr string
	Dirs [2]FlowDirAudit
}

// FlowDirAudit is one direction of one flow.
type FlowDirAudit struct {
	Configured netem.Params
	Received   uint64
	Written    uint64
	Lost       uint64 // copies the link's loss model dropped
	DelayMean  time.Duration
	Jitter     time.Duration
	Bytes      uint64
}

// Audit measures the relay so far (see [Audit]).
func (r *Relay) Audit() Audit {
	st := r.Stats()
	r.mu.Lock()
	defer r.mu.Unlock()
	var au Audit
	switch {
	case r.start.IsZero():
	case r.stopped.IsZero():
		au.Wall = time.Since(r.start)
	default:
		au.Wall = r.stopped.Sub(r.start)
	}
	up, down := r.core.Params()
	for d, c := range [2]Counters{st.Up, st.Down} {
		h := r.audit.delay[d]
		da := DirAudit{Counters: c, Bytes: r.audit.bytes[d], Configured: up, Active: time.Duration(r.audit.last[d] - r.audit.first[d])}
		if d == int(Down) {
			da.Configured = down
		}
		if h.Count() > 0 {
			da.DelayP50, da.DelayP99, da.DelayMax = time.Duration(h.Quantile(0.5)), time.Duration(h.Quantile(0.99)), time.Duration(h.Max())
			l := r.audit.late[d]
			da.LateP50, da.LateP99, da.LateMax = time.Duration(l.Quantile(0.5)), time.Duration(l.Quantile(0.99)), time.Duration(l.Max())
			da.Stalled, da.LateMaxOutsideStalls = r.audit.stalled[d], time.Duration(r.audit.lateOutside[d])
		}
		js := r.audit.retired[d]
		for _, f := range r.audit.flows {
			js.add(f.jitter[d].Value(), f.n[d])
		}
		da.Jitter = js.mean()
		da.JitterMean = r.audit.absD[d].mean()
		au.Dirs[d] = da
	}
	for _, fi := range r.core.Flows(nil) {
		fa := FlowAudit{ID: fi.ID, Addr: fi.Addr.String()}
		f := r.audit.flows[fi.ID]
		for d := range fi.Dirs {
			fd := FlowDirAudit{Configured: fi.Dirs[d].Params, Received: fi.Dirs[d].Counts.Received, Lost: fi.Dirs[d].Link.Lost}
			if f != nil {
				fd.Written, fd.Bytes = f.n[d], f.bytes[d]
				fd.DelayMean = time.Duration(math.Round(f.delay[d].Mean()))
				fd.Jitter = f.jitter[d].Value()
			}
			fa.Dirs[d] = fd
		}
		au.Flows = append(au.Flows, fa)
	}
	return au
}
