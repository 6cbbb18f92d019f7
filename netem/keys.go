package netem

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"jitterlab/param"
)

// A Key is one setting of a link direction, declared once: its name (the
// part after "up.", "down." or "link." in the lab's keys), its help, how
// its value is parsed into Params and printed from them, and how an editor
// steps it. Every program that names link settings (the lab's registry,
// its screen's editor, the proxy and its control API) takes them from
// Keys.
type Key struct {
	Name, Help string
	Get        func(*Params) string
	// Set parses v into p; key is the full key, for the error. On an
	// error p may be changed: set a copy.
	Set  func(p *Params, key, v string) error
	Step param.Step
}

// Keys lists the link settings in display order.
func Keys() []Key { return keys }

// LookupKey finds a link setting by its name ("latency", not "up.latency").
func LookupKey(name string) (Key, bool) {
	for _, k := range keys {
		if k.Name == name {
			return k, true
		}
	}
	return Key{}, false
}

// durationKey is a duration setting in [0, hi].
func durationKey(name, help string, hi time.Duration, field func(*Params) *time.Duration, step param.Step) Key {
	return Key{name, help, func(p *Params) string { return param.FormatDuration(*field(p)) },
		func(p *Params, k, v string) (err error) {
			*field(p), err = param.DurationIn(k, v, 0, hi)
			return
		}, step}
}

// fractionKey is a probability.
func fractionKey(name, help string, field func(*Params) *float64) Key {
	return Key{name, help, func(p *Params) string { return param.FormatFraction(*field(p)) },
		func(p *Params, k, v string) (err error) { *field(p), err = param.Fraction(k, v); return },
		param.FractionBy(0.005, 1000, 0, 1)}
}

// boolKey is an on/off setting.
func boolKey(name, help string, field func(*Params) *bool) Key {
	return Key{name, help, func(p *Params) string { return strconv.FormatBool(*field(p)) },
		func(p *Params, k, v string) (err error) { *field(p), err = param.Bool(k, v); return },
		param.Toggle()}
}

// intKey is an integer setting in [lo, hi].
func intKey(name, help string, lo, hi int64, field func(*Params) *int, step param.Step) Key {
	return Key{name, help, func(p *Params) string { return strconv.Itoa(*field(p)) },
		func(p *Params, k, v string) error {
			n, err := param.Int(k, v, lo, hi)
			if err == nil {
				*field(p) = int(n)
			}
			return err
		}, step}
}

// rateKey is a bit rate; 0 is off.
func rateKey(name, help string, field func(*Params) *int64) Key {
	return Key{name, help, func(p *Params) string { return param.FormatRate(*field(p)) },
		func(p *Params, k, v string) (err error) { *field(p), err = param.Rate(k, v); return },
		param.Ladder("0", "64kbit", "256kbit", "1mbit", "4mbit", "16mbit")}
}

var keys = []Key{
	durationKey("latency", "base one-way delay", MaxLatency, func(p *Params) *time.Duration { return &p.Latency }, param.DurationBy(5*time.Millisecond, 0)),
	durationKey("jitter", "half-width (uniform), σ (normal, pareto, paretonormal) or mean (exponential)", MaxJitter, func(p *Params) *time.Duration { return &p.Jitter }, param.DurationFine(5*time.Millisecond)),
	{"jitter_dist", "uniform, normal, pareto, paretonormal or exponential", func(p *Params) string { return p.JitterDist.String() },
		func(p *Params, k, v string) (err error) { p.JitterDist, err = ParseDist(k, v); return }, param.Cycle(DistNames()...)},
	{"jitter_corr", "AR(1) correlation of successive jitter draws, 0..1", func(p *Params) string { return param.FormatFloat(p.JitterCorr) },
		func(p *Params, k, v string) (err error) { p.JitterCorr, err = param.Float(k, v, 0, 1); return }, param.FloatBy(0.1, 10, 0, 1, 1)},
	fractionKey("loss", "long-run loss probability", func(p *Params) *float64 { return &p.Loss }),
	{"loss_burst", "mean loss burst length (Gilbert-Elliott); 0 = independent loss", func(p *Params) string { return param.FormatFloat(p.LossBurst) },
		func(p *Params, k, v string) error {
			f, err := param.Float(k, v, 0, 1e6)
			if err == nil && f > 0 && f < 1 {
				err = &param.Error{Key: k, Value: v, Allowed: "0 (independent loss) or a mean burst length ≥ 1"}
			}
			p.LossBurst = f
			return err
		}, param.Ladder("0", "2", "4", "8", "16")},
	fractionKey("duplicate", "probability that a packet is sent twice", func(p *Params) *float64 { return &p.Duplicate }),
	fractionKey("reorder", "probability that an eligible packet skips the delay and the rate (netem)", func(p *Params) *float64 { return &p.Reorder }),
	intKey("reorder_gap", "netem gap: packets delayed normally between reorders, +1", 0, 1e6, func(p *Params) *int { return &p.ReorderGap }, param.IntBy(0, 1e6)),
	boolKey("keep_order", "deliver in send order (delivery times monotonic)", func(p *Params) *bool { return &p.KeepOrder }),
	rateKey("rate", "bit rate, e.g. 1.5mbit; 0 = unlimited", func(p *Params) *int64 { return &p.Rate }),
	intKey("overhead", "bytes added per packet for the rate (28 = UDP/IPv4)", 0, 65535, func(p *Params) *int { return &p.Overhead }, param.Ladder("0", "28", "48", "60")),
	intKey("queue", "packets in flight before tail drop; 0 = unlimited", 0, 1e7, func(p *Params) *int { return &p.Queue }, param.Ladder("0", "8", "16", "32", "64", "128")),

	// The stages of links as real networks behave: shaper, slots,
	// stateful loss, spikes (docs/explanation/link-model.md).
	boolKey("blackout", "lose every packet (a flap; [[flap]] in scenario files sets it), leaving loss as it is", func(p *Params) *bool { return &p.Blackout }),
	fractionKey("spike", "probability that a packet is held spike_delay longer after every other stage (others keep their delay)", func(p *Params) *float64 { return &p.Spike }),
	durationKey("spike_delay", "extra delay of a spiked packet", MaxLatency, func(p *Params) *time.Duration { return &p.SpikeDelay }, param.DurationGraded()),
	{"loss_model", "random (loss, loss_burst), or netem's \"gemodel p r 1-h 1-k\" or \"state p13 p31 p32 p23 p14\", which replace them", func(p *Params) string { return p.LossModelString() },
		func(p *Params, k, v string) error { return ParseLossModel(p, k, v) },
		param.Typed("is random or a model's parameters (gemodel p r 1-h 1-k, state p13 p31 p32 p23 p14)", "one")},
	durationKey("bad_delay", "extra delay of packets that get through in the loss model's bad state (link-layer retransmissions)", MaxLatency, func(p *Params) *time.Duration { return &p.BadDelay }, param.DurationGraded()),
	{"slot", "netem slot MIN [MAX] [packets N] [bytes N]: release in bursts at slot boundaries (Wi-Fi/DOCSIS aggregation); 0 = off", func(p *Params) string { return p.Slot.String() },
		func(p *Params, k, v string) (err error) { p.Slot, err = ParseSlot(k, v); return },
		param.Ladder("0", "1ms", "2ms", "5ms", "10ms", "20ms")},
	rateKey("shape_rate", "token-bucket shaper after the netem stages (tc tbf rate); 0 = off", func(p *Params) *int64 { return &p.ShapeRate }),
	intKey("shape_burst", "shaper bucket size in bytes (tc tbf burst); 0 = 1500", 0, MaxShapeBytes, func(p *Params) *int { return &p.ShapeBurst }, param.Ladder("0", "1500", "3000", "6000", "15000", "64000")),
	{"shape_limit", "shaper queue: bytes, or a duration (tc tbf latency: rate·latency + burst); 0 = what the rate drains in 1m", func(p *Params) string {
		if p.ShapeLatency > 0 {
			return param.FormatDuration(p.ShapeLatency)
		}
		return strconv.Itoa(p.ShapeLimit)
	},
		func(p *Params, k, v string) error {
			allowed := fmt.Sprintf("bytes in [0, %d] such as 30000, or a duration in [0, %v] such as 50ms", MaxShapeBytes, MaxBacklog)
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				if n < 0 || n > MaxShapeBytes {
					return &param.Error{Key: k, Value: v, Allowed: allowed}
				}
				p.ShapeLimit, p.ShapeLatency = int(n), 0
				return nil
			}
			d, err := param.Duration(k, v)
			if err != nil || d > MaxBacklog {
				return &param.Error{Key: k, Value: v, Allowed: allowed}
			}
			p.ShapeLimit, p.ShapeLatency = 0, d
			return nil
		}, param.Ladder("0", "3000", "15000", "64000", "256000")},
}
