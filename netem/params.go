package netem

import (
	"fmt"
	"math"
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

	Duplicate  float64 // probability that a packet is sent twice
	Reorder    float64 // probability that an eligible packet skips the delay
	ReorderGap int     // netem's gap: packets 1..gap−1 after a reorder are delayed normally; 0 means 1
	KeepOrder  bool    // deliver in send order (delivery times monotonic)

	Rate     int64 // bits per second; 0 = unlimited
	Overhead int   // bytes added to every packet's size for the rate (28 for UDP/IPv4)
	Queue    int   // packets in flight before tail drop; 0 = unlimited
}

// Validate reports the first bad field as a *param.Error under the
// registry key prefix+"."+name (prefix "up" gives "up.loss").
func (p Params) Validate(prefix string) error {
	k := func(name string) string { return prefix + "." + name }
	bad := func(name string, v any, allowed string) error {
		return &param.Error{Key: k(name), Value: fmt.Sprint(v), Allowed: allowed}
	}
	prob := func(name string, v float64) error {
		if !(v >= 0 && v <= 1) {
			return bad(name, v, "a fraction in [0, 1]")
		}
		return nil
	}
	switch {
	case p.Latency < 0:
		return bad("latency", p.Latency, "a duration ≥ 0")
	case p.Jitter < 0:
		return bad("jitter", p.Jitter, "a duration ≥ 0")
	case int(p.JitterDist) >= len(distNames):
		return bad("jitter_dist", int(p.JitterDist), "one of "+fmt.Sprint(distNames))
	case !(p.JitterCorr >= 0 && p.JitterCorr <= 1):
		return bad("jitter_corr", p.JitterCorr, "a correlation in [0, 1]")
	case p.LossBurst != 0 && !(p.LossBurst >= 1 && !math.IsInf(p.LossBurst, 0)):
		return bad("loss_burst", p.LossBurst, "0 (independent loss) or a mean burst length ≥ 1")
	case p.ReorderGap < 0:
		return bad("reorder_gap", p.ReorderGap, "an integer ≥ 0")
	case p.Rate < 0:
		return bad("rate", p.Rate, "0 (unlimited) or bits per second > 0")
	case p.Overhead < 0:
		return bad("overhead", p.Overhead, "bytes ≥ 0")
	case p.Queue < 0:
		return bad("queue", p.Queue, "0 (unlimited) or a packet count > 0")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"loss", p.Loss}, {"duplicate", p.Duplicate}, {"reorder", p.Reorder},
		{"ge.p", p.GE.P}, {"ge.r", p.GE.R}, {"ge.loss_good", p.GE.LossGood}, {"ge.loss_bad", p.GE.LossBad}} {
		if err := prob(f.name, f.v); err != nil {
			return err
		}
	}
	if p.LossBurst >= 1 && p.GE.isZero() {
		if p.Loss >= 1 {
			return bad("loss", p.Loss, "a loss < 100% when loss_burst is set")
		}
		if _, err := BurstLoss(p.Loss, p.LossBurst); err != nil {
			return bad("loss_burst", p.LossBurst, fmt.Sprintf("a mean burst ≥ %.3g for loss %s", p.Loss/(1-p.Loss), param.FormatFraction(p.Loss)))
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
	if p.LossBurst >= 1 {
		g, err := BurstLoss(p.Loss, p.LossBurst)
		return g, err == nil
	}
	return GilbertElliott{}, false
}
