package netem

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"jitterlab/param"
)

// GilbertElliott is the two-state burst loss model: in state GOOD a packet
// is lost with probability LossGood (1−k), in BAD with LossBad (1−h); after
// each packet the state moves GOOD→BAD with probability P and BAD→GOOD with
// R (netem's "loss gemodel p r 1-h 1-k"). The long-run loss rate is
// (R·LossGood + P·LossBad)/(P+R); with LossGood 0 and LossBad 1 the mean
// burst length is 1/R.
type GilbertElliott struct {
	P, R, LossGood, LossBad float64
}

// BurstLoss returns the Gilbert-Elliott model with long-run loss rate loss
// and mean burst length meanBurst (≥ 1): r = 1/B, p = r·L/(1−L), every
// packet lost in BAD and none in GOOD.
func BurstLoss(loss, meanBurst float64) (GilbertElliott, error) {
	if !(loss >= 0 && loss < 1) || !(meanBurst >= 1) || math.IsInf(meanBurst, 0) {
		return GilbertElliott{}, fmt.Errorf("burst loss %v with mean burst %v: need 0 ≤ loss < 1 and mean burst ≥ 1", loss, meanBurst)
	}
	r := 1 / meanBurst
	p := r * loss / (1 - loss)
	if p > 1 {
		return GilbertElliott{}, fmt.Errorf("burst loss %v with mean burst %v: needs P(G→B) = %.3g > 1; lengthen the bursts or lower the loss", loss, meanBurst, p)
	}
	return GilbertElliott{P: p, R: r, LossGood: 0, LossBad: 1}, nil
}

// LossRate is the model's long-run loss rate.
func (g GilbertElliott) LossRate() float64 {
	if g.P+g.R == 0 {
		return g.LossGood // never leaves GOOD
	}
	return (float64(g.R*g.LossGood) + float64(g.P*g.LossBad)) / (g.P + g.R)
}

func (g GilbertElliott) isZero() bool { return g == GilbertElliott{} }

// Model limits: they keep every time a link computes far inside int64
// nanoseconds for the longest run (a packet is never in flight for more
// than MaxDelay + MaxBacklog + one transmit time).
const (
	MaxLatency = time.Minute // latency: no network holds a packet longer
	MaxJitter  = time.Minute // jitter, in any distribution's units
	// MaxDelay caps one packet's latency + jitter draw (the heavy pareto
	// tails reach it at rare draws).
	MaxDelay = 10 * time.Minute
	// MaxBacklog is how long a packet may wait behind others at the rate
	// stage; a packet that would wait longer is dropped at the queue.
	MaxBacklog = time.Minute
	// MinRate is the lowest rate besides 0 (unlimited), in bits/s.
	MinRate = 1000
)

// Params are one direction's settings. The zero value is a perfect link.
type Params struct {
	Latency    time.Duration // base one-way delay
	Jitter     time.Duration // half-width (uniform), σ (normal, pareto, paretonormal) or mean (exponential)
	JitterDist Dist
	JitterCorr float64 // AR(1) coefficient ρ in [0, 1] in Gaussian space; 1 freezes the jitter

	Loss      float64 // long-run loss probability
	LossBurst float64 // 0: Bernoulli loss; ≥ 1: Gilbert-Elliott with this mean burst length
	// GE, when non-zero, replaces Loss/LossBurst with an explicit model.
	GE GilbertElliott
	// GI, when non-zero, replaces Loss/LossBurst with netem's 4-state model.
	GI FourState
	// BadDelay is added to every packet that gets through while the loss
	// model is in its bad state (Gilbert-Elliott BAD, 4-state burst period):
	// link-layer retransmissions delay what they do not drop.
	BadDelay time.Duration

	Duplicate  float64 // probability that a packet is sent twice
	Reorder    float64 // probability that an eligible packet skips the delay
	ReorderGap int     // netem's gap: packets 1..gap−1 after a reorder are delayed normally; 0 means 1
	KeepOrder  bool    // deliver in send order (delivery times monotonic)

	Rate     int64 // bits per second; 0 = unlimited
	Overhead int   // bytes added to every packet's size for the rate (28 for UDP/IPv4)
	Queue    int   // packets in flight before tail drop; 0 = unlimited

	Slot Slot // netem slotted release after the rate; zero = off

	// Blackout loses every packet (a link flap), without changing Loss;
	// the loss model still draws, so its pattern after the blackout is
	// the one it would have had.
	Blackout bool

	// Spike is the probability that a copy is held SpikeDelay longer after
	// every other stage: one packet late by a lot, the others untouched
	// (they overtake it unless KeepOrder).
	Spike      float64
	SpikeDelay time.Duration

	// Token-bucket shaper after the netem stages (tc tbf): ShapeRate bits/s
	// (0 = off) with a bucket of ShapeBurst bytes (0 = DefaultShapeBurst),
	// in front of a FIFO of ShapeLimit bytes, or, when ShapeLatency is set
	// instead, rate·latency + burst bytes (tc's conversion); neither: a
	// FIFO of what the rate drains in MaxBacklog. Sizes include Overhead.
	ShapeRate    int64
	ShapeBurst   int
	ShapeLimit   int
	ShapeLatency time.Duration
	// Trace, when set, replays a measured path instead of the loss and
	// delay stages (trace mode, see [Trace]); it loops unless TraceOnce.
	Trace     *Trace
	TraceOnce bool
}

// Validate reports the first bad field as a *param.Error under the
// registry key prefix+"."+name (prefix "up" gives "up.loss").
func (p Params) Validate(prefix string) error {
	k := func(name string) string { return prefix + "." + name }
	// bad names the key and writes the value as people write it.
	bad := func(name string, v any, allowed string) error {
		s := fmt.Sprint(v)
		switch name {
		case "loss", "duplicate", "reorder", "spike":
			s = strconv.FormatFloat(v.(float64)*100, 'g', 12, 64) + "%"
		case "jitter_corr", "loss_burst", "ge.p", "ge.r", "ge.loss_good", "ge.loss_bad":
			s = strconv.FormatFloat(v.(float64), 'g', -1, 64)
		case "rate", "shape_rate":
			s = param.FormatRate(v.(int64))
		}
		return &param.Error{Key: k(name), Value: s, Allowed: allowed}
	}
	prob := func(name string, v float64) error {
		if !(v >= 0 && v <= 1) {
			return bad(name, v, "a fraction in [0, 1]")
		}
		return nil
	}
	switch {
	case p.Latency < 0 || p.Latency > MaxLatency:
		return bad("latency", p.Latency, "a duration in [0, "+MaxLatency.String()+"]")
	case p.Jitter < 0 || p.Jitter > MaxJitter:
		return bad("jitter", p.Jitter, "a duration in [0, "+MaxJitter.String()+"]")
	case int(p.JitterDist) >= len(distNames):
		return bad("jitter_dist", int(p.JitterDist), "one of "+fmt.Sprint(distNames))
	case !(p.JitterCorr >= 0 && p.JitterCorr <= 1):
		return bad("jitter_corr", p.JitterCorr, "a correlation in [0, 1]")
	case p.LossBurst != 0 && !(p.LossBurst >= 1 && !math.IsInf(p.LossBurst, 0)):
		return bad("loss_burst", p.LossBurst, "0 (independent loss) or a mean burst length ≥ 1")
	case p.ReorderGap < 0:
		return bad("reorder_gap", p.ReorderGap, "an integer ≥ 0")
	case p.Rate < 0 || (p.Rate > 0 && p.Rate < MinRate):
		return bad("rate", p.Rate, "0 (unlimited) or a rate ≥ "+param.FormatRate(MinRate))
	case p.Overhead < 0 || p.Overhead > 65535:
		return bad("overhead", p.Overhead, "bytes in [0, 65535]")
	case p.Queue < 0:
		return bad("queue", p.Queue, "0 (unlimited) or a packet count > 0")
	case p.GI.validate() != "":
		return bad("loss_model", p.LossModelString(), p.GI.validate())
	case !p.GI.isZero() && !p.GE.isZero():
		return bad("loss_model", p.LossModelString(), "one model: gemodel or state")
	case p.BadDelay < 0 || p.BadDelay > MaxLatency:
		return bad("bad_delay", p.BadDelay, "a duration in [0, "+MaxLatency.String()+"]")
	case p.SpikeDelay < 0 || p.SpikeDelay > MaxLatency:
		return bad("spike_delay", p.SpikeDelay, "a duration in [0, "+MaxLatency.String()+"]")
	case p.Slot.validate() != "":
		return bad("slot", p.Slot, p.Slot.validate())
	case p.ShapeRate < 0 || (p.ShapeRate > 0 && p.ShapeRate < MinRate):
		return bad("shape_rate", p.ShapeRate, "0 (no shaper) or a rate ≥ "+param.FormatRate(MinRate))
	case p.ShapeBurst < 0 || p.ShapeBurst > MaxShapeBytes:
		return bad("shape_burst", p.ShapeBurst, fmt.Sprintf("bytes in [0, %d]; 0 = %d", MaxShapeBytes, DefaultShapeBurst))
	case p.ShapeLimit < 0 || p.ShapeLimit > MaxShapeBytes:
		return bad("shape_limit", p.ShapeLimit, fmt.Sprintf("bytes in [0, %d] or a duration in [0, %v]", MaxShapeBytes, MaxBacklog))
	case p.ShapeLatency < 0 || p.ShapeLatency > MaxBacklog:
		return bad("shape_limit", p.ShapeLatency, fmt.Sprintf("bytes in [0, %d] or a duration in [0, %v]", MaxShapeBytes, MaxBacklog))
	case p.ShapeLimit > 0 && p.ShapeLatency > 0:
		return bad("shape_limit", p.ShapeLatency, "bytes or a duration, not both")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"loss", p.Loss}, {"duplicate", p.Duplicate}, {"reorder", p.Reorder}, {"spike", p.Spike},
		{"ge.p", p.GE.P}, {"ge.r", p.GE.R}, {"ge.loss_good", p.GE.LossGood}, {"ge.loss_bad", p.GE.LossBad}} {
		if err := prob(f.name, f.v); err != nil {
			return err
		}
	}
	// Loss 100% is a blackout whatever the burst length; below it the
	// Gilbert-Elliott model needs P(G→B) ≤ 1.
	if p.LossBurst >= 1 && p.GE.isZero() && p.Loss < 1 {
		if _, err := BurstLoss(p.Loss, p.LossBurst); err != nil {
			return bad("loss_burst", p.LossBurst, fmt.Sprintf("a mean burst ≥ %.3g for loss %s%%", p.Loss/(1-p.Loss), strconv.FormatFloat(p.Loss*100, 'g', 12, 64)))
		}
	}
	return nil
}

// lossModel returns the Gilbert-Elliott model in force, or ok=false for
// Bernoulli loss.
func (p Params) lossModel() (GilbertElliott, bool) {
	if !p.GE.isZero() {
		return p.GE, true
	}
	if p.LossBurst >= 1 && p.Loss < 1 {
		g, err := BurstLoss(p.Loss, p.LossBurst)
		return g, err == nil
	}
	return GilbertElliott{}, false // Bernoulli; at loss 100% a blackout
}
