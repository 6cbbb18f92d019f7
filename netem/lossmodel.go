package netem

import (
	"strings"

	"jitterlab/param"
)

// FourState is netem's 4-state Markov loss model (`loss state p13 p31 p32
// p23 p14`, sch_netem.c loss_4state; Salsano et al., "Definition and usage
// of a 4-state Markov loss model", the GI model). States: 1 packet received
// in a gap period, 2 received in a burst period, 3 lost in a burst period,
// 4 isolated loss in a gap period. Per packet the chain moves, and the packet
// is lost when it lands in 3 or 4: from 1 to 3 with P13, to 4 with P14,
// else stays; from 2 to 3 with P23, else stays; from 3 to 1 with P31, to 2
// with P32, else stays; from 4 always to 1.
type FourState struct {
	P13, P31, P32, P23, P14 float64
}

func (g FourState) isZero() bool { return g == FourState{} }

// Stationary returns the long-run share of packets in each state (index 0
// is state 1), from the balance equations: π4 = P14·π1, P31·π3 = P13·π1,
// P23·π2 = P32·π3. It needs P31 > 0 (and P23 > 0 when P32 > 0).
func (g FourState) Stationary() [4]float64 {
	r3 := g.P13 / g.P31
	r2 := 0.0
	if g.P32 > 0 {
		r2 = r3 * g.P32 / g.P23
	}
	pi1 := 1 / (1 + r2 + r3 + g.P14)
	// Each product is rounded on its own (float64(…)) so that no sum of
	// them fuses into a multiply-add on another machine.
	return [4]float64{pi1, float64(r2 * pi1), float64(r3 * pi1), float64(g.P14 * pi1)}
}

// LossRate is π3 + π4.
func (g FourState) LossRate() float64 {
	pi := g.Stationary()
	return pi[2] + pi[3]
}

// MeanBurst is the mean length of a run of consecutive losses: runs start
// at π1·(P13+P14) + π2·P23 per packet (4 always returns to 1, so an
// isolated loss is a run of 1; a run in 3 is geometric of mean
// 1/(P31+P32)), and hold π3 + π4 of the packets.
func (g FourState) MeanBurst() float64 {
	pi := g.Stationary()
	return (pi[2] + pi[3]) / (float64(pi[0]*(g.P13+g.P14)) + float64(pi[1]*g.P23))
}

func (g FourState) validate() string {
	for _, v := range []float64{g.P13, g.P31, g.P32, g.P23, g.P14} {
		if !(v >= 0 && v <= 1) {
			return "probabilities in [0, 1]"
		}
	}
	switch {
	case g.P13+g.P14 > 1:
		return "p13 + p14 ≤ 1"
	case g.P31+g.P32 > 1:
		return "p31 + p32 ≤ 1"
	}
	return ""
}

// LossModelString writes the explicit loss model in netem's syntax, as
// [ParseLossModel] reads it: "random" (loss and loss_burst decide),
// "gemodel p r 1-h 1-k" or "state p13 p31 p32 p23 p14".
func (p Params) LossModelString() string {
	f := param.FormatFraction
	switch {
	case !p.GI.isZero():
		g := p.GI
		return strings.Join([]string{"state", f(g.P13), f(g.P31), f(g.P32), f(g.P23), f(g.P14)}, " ")
	case !p.GE.isZero():
		g := p.GE
		return strings.Join([]string{"gemodel", f(g.P), f(g.R), f(g.LossBad), f(g.LossGood)}, " ")
	}
	return "random"
}

// ParseLossModel reads netem's loss model syntax, with tc's defaults for
// omitted values (iproute2 q_netem.c): "random"; "gemodel p [r [1-h
// [1-k]]]" (r = 1−p, 1−h = 1, 1−k = 0); "state p13 [p31 [p32 [p23 [p14]]]]"
// (p31 = 1−p13, p32 = 0, p23 = 1, p14 = 0). Values are fractions, 0.05 or
// 5%. It sets p.GE and p.GI; the error names key.
func ParseLossModel(p *Params, key, v string) error {
	bad := func(allowed string) error { return &param.Error{Key: key, Value: v, Allowed: allowed} }
	const allowed = `random, "gemodel p [r [1-h [1-k]]]" or "state p13 [p31 [p32 [p23 [p14]]]]" (netem's syntax; fractions 0.05 or 5%)`
	f := strings.Fields(v)
	if len(f) == 0 {
		return bad(allowed)
	}
	nums := make([]float64, 0, 5)
	for _, s := range f[1:] {
		x, err := param.Fraction(key, s)
		if err != nil {
			return bad(allowed)
		}
		nums = append(nums, x)
	}
	arg := func(i int, def float64) float64 {
		if i < len(nums) {
			return nums[i]
		}
		return def
	}
	switch f[0] {
	case "random":
		if len(nums) > 0 {
			return bad("random alone (up.loss and up.loss_burst set it)")
		}
		p.GE, p.GI = GilbertElliott{}, FourState{}
	case "gemodel":
		if len(nums) < 1 || len(nums) > 4 {
			return bad(allowed)
		}
		p.GE = GilbertElliott{P: nums[0], R: arg(1, 1-nums[0]), LossBad: arg(2, 1), LossGood: arg(3, 0)}
		p.GI = FourState{}
	case "state":
		if len(nums) < 1 || len(nums) > 5 {
			return bad(allowed)
		}
		g := FourState{P13: nums[0], P31: arg(1, 1-nums[0]), P32: arg(2, 0), P23: arg(3, 1), P14: arg(4, 0)}
		if msg := g.validate(); msg != "" {
			return bad(msg)
		}
		p.GI, p.GE = g, GilbertElliott{}
	default:
		return bad(allowed)
	}
	return nil
}
