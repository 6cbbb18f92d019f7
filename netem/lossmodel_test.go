package netem

import (
	"errors"
	"math"
	"testing"

	"jitterlab/param"
	"jitterlab/sim"
)

// batchMean returns the mean of x and a standard error from the means of
// 100 consecutive batches (the draws of a Markov chain are correlated; the
// batches, each much longer than the chain's memory, nearly are not).
func batchMean(x []float64) (mean, se float64) {
	const k = 100
	m := len(x) / k
	var means []float64
	for b := range k {
		s := 0.0
		for _, v := range x[b*m : (b+1)*m] {
			s += v
		}
		means = append(means, s/float64(m))
	}
	mean, sd := moments(means)
	return mean, sd / math.Sqrt(k)
}

// runs returns the lengths of the maximal runs of true.
func runs(x []bool) []int {
	var out []int
	n := 0
	for _, v := range x {
		if v {
			n++
		} else if n > 0 {
			out = append(out, n)
			n = 0
		}
	}
	return out
}

// The 4-state model's loss rate and mean loss burst match the stationary
// distribution of its chain: π1 = 1/(1 + P14 + P13/P31 + P13·P32/(P31·P23)),
// π2 = π1·P13·P32/(P31·P23), π3 = π1·P13/P31, π4 = π1·P14; loss = π3 + π4;
// mean burst = (π3 + π4)/(π1·(P13+P14) + π2·P23).
func TestFourStateLossRateAndBurstLength(t *testing.T) {
	for _, g := range []FourState{
		{P13: 0.05, P31: 0.30, P32: 0.20, P23: 0.10, P14: 0.01},
		{P13: 0.01, P31: 0.10, P32: 0.05, P23: 0.30, P14: 0.02},
		{P13: 0.02, P31: 0.98}, // tc's "loss state 2%": p31 = 1 − p13, no burst-period receptions
	} {
		pi := g.Stationary()
		pi1 := 1 / (1 + g.P14 + g.P13/g.P31 + (func() float64 {
			if g.P32 == 0 {
				return 0
			}
			return g.P13 * g.P32 / (g.P31 * g.P23)
		})())
		if math.Abs(pi[0]-pi1) > 1e-15 || math.Abs(pi[0]+pi[1]+pi[2]+pi[3]-1) > 1e-12 {
			t.Fatalf("%+v: stationary %v", g, pi)
		}
		const n = 1_000_000
		l := newLink(t, Params{GI: g})
		sends, _ := drive(t, l, n, ms, 100)
		lost := lossPattern(sends)
		x := make([]float64, n)
		for i, v := range lost {
			if v {
				x[i] = 1
			}
		}
		mean, se := batchMean(x)
		within(t, "4-state loss rate", mean, g.LossRate(), 5*se)

		rs := runs(lost)
		sum, sq := 0.0, 0.0
		for _, r := range rs {
			sum += float64(r)
			sq += float64(r) * float64(r)
		}
		m := sum / float64(len(rs))
		sd := math.Sqrt(sq/float64(len(rs)) - m*m)
		within(t, "4-state mean loss burst", m, g.MeanBurst(), 5*sd/math.Sqrt(float64(len(rs))))
	}
}

// tc's defaults for omitted values, and the syntax round trip.
func TestParseLossModel(t *testing.T) {
	for in, want := range map[string]Params{
		"random":                      {},
		"state 5%":                    {GI: FourState{P13: 0.05, P31: 0.95, P32: 0, P23: 1, P14: 0}},
		"state 5% 30% 20% 10% 1%":     {GI: FourState{P13: 0.05, P31: 0.3, P32: 0.2, P23: 0.1, P14: 0.01}},
		"gemodel 1%":                  {GE: GilbertElliott{P: 0.01, R: 0.99, LossBad: 1, LossGood: 0}},
		"gemodel 1% 10% 70% 0.1%":     {GE: GilbertElliott{P: 0.01, R: 0.1, LossBad: 0.7, LossGood: 0.001}},
		"gemodel 0.01 0.1 0.7 0.001 ": {GE: GilbertElliott{P: 0.01, R: 0.1, LossBad: 0.7, LossGood: 0.001}},
	} {
		var p Params
		if err := ParseLossModel(&p, "up.loss_model", in); err != nil || p != want {
			t.Errorf("%q: got %+v, %v; want %+v", in, p, err, want)
			continue
		}
		var back Params
		if err := ParseLossModel(&back, "up.loss_model", p.LossModelString()); err != nil || back != p {
			t.Errorf("%q: %q reads back as %+v, %v", in, p.LossModelString(), back, err)
		}
	}
	for _, in := range []string{"", "markov 1%", "state", "state 60% 1% 0 1 50%", "state 1% 70% 40%", "gemodel 1% 2% 3% 4% 5%", "random 3%", "state 120%"} {
		var p Params
		err := ParseLossModel(&p, "up.loss_model", in)
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Key != "up.loss_model" || pe.Allowed == "" {
			t.Errorf("%q: error %v, want a param.Error naming up.loss_model", in, err)
		}
	}
}

// Gilbert-Elliott with loss in the good state and extra delay in the bad
// one: the loss rate is (R·LossGood + P·LossBad)/(P+R), and of the packets
// that get through, the share delayed by BadDelay is
// π_B(1−LossBad) / (π_G(1−LossGood) + π_B(1−LossBad)), π_B = P/(P+R).
// Packets outside the bad state keep exactly the latency.
func TestBadStateDelay(t *testing.T) {
	const n, lat, badDelay = 1_000_000, 50 * ms, 30 * ms
	t.Run("gemodel", func(t *testing.T) {
		g := GilbertElliott{P: 0.02, R: 0.2, LossGood: 0.01, LossBad: 0.5}
		l := newLink(t, Params{Latency: lat, GE: g, BadDelay: badDelay})
		sends, _ := drive(t, l, n, ms, 100)
		lostX, delayedX := make([]float64, n), make([]float64, 0, n)
		for i, s := range sends {
			if s.Scheduled == 0 {
				lostX[i] = 1
				continue
			}
			switch s.At[0].Sub(sim.Time(int64(i) * int64(ms))) {
			case lat:
				delayedX = append(delayedX, 0)
			case lat + badDelay:
				delayedX = append(delayedX, 1)
			default:
				t.Fatalf("packet %d delayed %v: want the latency, or it plus bad_delay", i, s.At[0].Sub(sim.Time(int64(i)*int64(ms))))
			}
		}
		mean, se := batchMean(lostX)
		within(t, "GE loss rate with good-state loss", mean, g.LossRate(), 5*se)
		piB := g.P / (g.P + g.R)
		want := piB * (1 - g.LossBad) / ((1-piB)*(1-g.LossGood) + piB*(1-g.LossBad))
		mean, se = batchMean(delayedX)
		within(t, "share delayed by bad_delay", mean, want, 5*se)
	})
	t.Run("state", func(t *testing.T) {
		// Packets received in the burst period (state 2) are the delayed ones:
		// π2/(π1+π2) of those that get through.
		g := FourState{P13: 0.05, P31: 0.30, P32: 0.20, P23: 0.10, P14: 0.01}
		l := newLink(t, Params{Latency: lat, GI: g, BadDelay: badDelay})
		sends, _ := drive(t, l, n, ms, 100)
		var delayedX []float64
		for i, s := range sends {
			if s.Scheduled == 0 {
				continue
			}
			d := s.At[0].Sub(sim.Time(int64(i) * int64(ms)))
			if d != lat && d != lat+badDelay {
				t.Fatalf("packet %d delayed %v", i, d)
			}
			delayedX = append(delayedX, map[bool]float64{true: 1, false: 0}[d == lat+badDelay])
		}
		pi := g.Stationary()
		mean, se := batchMean(delayedX)
		within(t, "share delayed by bad_delay (4-state)", mean, pi[1]/(pi[0]+pi[1]), 5*se)
	})
	// Bernoulli loss has no bad state: bad_delay changes nothing.
	l := newLink(t, Params{Latency: lat, Loss: 0.1, BadDelay: badDelay})
	sends, _ := drive(t, l, 10000, ms, 100)
	for i, s := range sends {
		if s.Scheduled == 1 && s.At[0].Sub(sim.Time(int64(i)*int64(ms))) != lat {
			t.Fatal("bad_delay applied without a bad state")
		}
	}
}

// FuzzLinkSyntax: netem's loss model and slot syntaxes either fail with a
// param.Error naming the key or give valid parameters that write back to
// text that reads back to the same parameters.
func FuzzLinkSyntax(f *testing.F) {
	for _, s := range []string{"random", "state 5% 30% 20% 10% 1%", "gemodel 1% 10% 70% 0.1%", "5ms 15ms packets 8 bytes 3000", "20ms", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var p Params
		if err := ParseLossModel(&p, "up.loss_model", s); err == nil {
			if err := p.Validate("up"); err != nil {
				t.Fatalf("%q accepted into invalid params: %v", s, err)
			}
			var back Params
			if err := ParseLossModel(&back, "up.loss_model", p.LossModelString()); err != nil || back != p {
				t.Fatalf("%q → %q → %+v, %v", s, p.LossModelString(), back, err)
			}
		} else if pe := (*param.Error)(nil); !errors.As(err, &pe) || pe.Key != "up.loss_model" {
			t.Fatalf("%q: error %v", s, err)
		}
		if sl, err := ParseSlot("up.slot", s); err == nil {
			if err := (Params{Slot: sl}).Validate("up"); err != nil {
				t.Fatalf("%q accepted into invalid params: %v", s, err)
			}
			if back, err := ParseSlot("up.slot", sl.String()); err != nil || back != sl {
				t.Fatalf("%q → %q → %+v, %v", s, sl.String(), back, err)
			}
		}
	})
}
