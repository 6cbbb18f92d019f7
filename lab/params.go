package lab

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"jitterlab/client"
	"jitterlab/netem"
	"jitterlab/param"
	"jitterlab/scenarios"
	"jitterlab/server"
	"jitterlab/sim"
)

// Param is one knob of the registry: one dotted key used by the TUI, --set,
// scenario files, timelines and recordings.
type Param struct {
	Key  string
	Help string
	// Live is false for keys that fix a run (sim.seed, sim.duration).
	Live bool
	Get  func(*Config) string
	Set  func(c *Config, value string) error
}

var registry = buildRegistry()

// Params lists every registry key in display order.
func Params() []Param { return registry }

// Lookup finds a key.
func Lookup(key string) (Param, bool) {
	for _, p := range registry {
		if p.Key == key {
			return p, true
		}
	}
	return Param{}, false
}

// UnknownKeyError is a key the registry does not have.
type UnknownKeyError struct {
	Key     string
	Similar []string
}

func (e *UnknownKeyError) Error() string {
	msg := fmt.Sprintf("unknown parameter %q", e.Key)
	if len(e.Similar) > 0 {
		msg += "; did you mean " + strings.Join(e.Similar, " or ") + "?"
	}
	return msg + " ('lab run -h' lists the keys)"
}

// Set parses value for key into c. The error names the key, the value and
// what is allowed. c is unchanged on error.
func Set(c *Config, key, value string) error {
	p, ok := Lookup(key)
	if !ok {
		return &UnknownKeyError{Key: key, Similar: similarKeys(key)}
	}
	// Set in place and restored on error: a scratch copy passed to p.Set
	// (a function value) would escape, one allocation of a whole Config
	// per call.
	old := *c
	err := p.Set(c, value)
	if err == nil {
		err = c.Validate()
	}
	if err != nil {
		*c = old
	}
	return err
}

// CheckAssignment reports whether key=value is a known key with a value its
// parser accepts, without the cross-field checks of a whole configuration:
// the scenarios.Checker for scenario files.
func CheckAssignment(key, value string) error {
	p, ok := Lookup(key)
	if !ok {
		return &UnknownKeyError{Key: key, Similar: similarKeys(key)}
	}
	scratch := DefaultConfig()
	return p.Set(&scratch, value)
}

// SplitAssignments splits "k=v k=v" or "k=v,k=v" into assignments (for
// ParseAssignment), as --a/--b and the lab's A/B prompt take them.
func SplitAssignments(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' })
}

// ParseAssignment splits "key=value".
func ParseAssignment(s string) (key, value string, err error) {
	k, v, ok := strings.Cut(s, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return "", "", fmt.Errorf("bad assignment %q: want key=value, e.g. up.latency=80ms", s)
	}
	return k, strings.TrimSpace(v), nil
}

func similarKeys(key string) []string {
	var out []string
	for _, p := range registry {
		if param.Near(key, p.Key) || (len(key) > 3 && strings.HasSuffix(p.Key, "."+key)) {
			out = append(out, p.Key)
		}
	}
	if len(out) > 4 {
		out = out[:4]
	}
	return out
}

func fmtDur(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// choice builds get/set for an enum stored as a uint8-like index.
func choice[T ~uint8](key string, names []string, field func(*Config) *T) (func(*Config) string, func(*Config, string) error) {
	choiceNames[key] = names
	return func(c *Config) string { return names[*field(c)] },
		func(c *Config, v string) error {
			s, err := param.Choice(key, v, names...)
			if err != nil {
				return err
			}
			*field(c) = T(slices.Index(names, s))
			return nil
		}
}

// Model limits on the duration keys. The step minimums bound the events in
// a simulated second (with client.fps ≤ 1000, at most a few thousand plus
// the samples); the maximums, with MaxDuration and the link's limits, keep
// every time far inside int64 nanoseconds.
const (
	MinStep     = time.Millisecond // server.tick, client.fixed_dt, the send intervals
	MaxStep     = 10 * time.Second
	MinEvery    = 100 * time.Microsecond // the sample period
	MaxEvery    = time.Hour
	MaxDuration = 1000 * time.Hour // sim.duration
	MaxStart    = time.Hour        // client.start
)

// durationIn parses a duration for key within [lo, hi]; the error states
// the range.
func durationIn(key, v string, lo, hi time.Duration) (time.Duration, error) {
	d, err := param.Duration(key, v)
	if err != nil || d < lo || d > hi {
		return 0, &param.Error{Key: key, Value: v, Allowed: fmt.Sprintf("a duration in [%s, %s] with a unit, e.g. %s", fmtDur(lo), fmtDur(hi), fmtDur(max(lo, min(50*time.Millisecond, hi))))}
	}
	return d, nil
}

// intParam is an integer key in [lo, hi]; a refused value leaves the field
// as it was.
func intParam(key, help string, lo, hi int64, field func(*Config) *int) Param {
	return Param{Key: key, Help: help, Live: true,
		Get: func(c *Config) string { return strconv.Itoa(*field(c)) },
		Set: func(c *Config, v string) error {
			n, err := param.Int(key, v, lo, hi)
			if err == nil {
				*field(c) = int(n)
			}
			return err
		}}
}

// linkInt is the setter of an integer link field in [lo, hi].
func linkInt(lo, hi int64, field func(*netem.Params) *int) func(p *netem.Params, k, v string) error {
	return func(p *netem.Params, k, v string) error {
		n, err := param.Int(k, v, lo, hi)
		if err == nil {
			*field(p) = int(n)
		}
		return err
	}
}

func durationParam(key, help string, lo, hi time.Duration, field func(*Config) *time.Duration) Param {
	return Param{Key: key, Help: help, Live: true,
		Get: func(c *Config) string { return fmtDur(*field(c)) },
		Set: func(c *Config, v string) error {
			d, err := durationIn(key, v, lo, hi)
			if err == nil {
				*field(c) = d
			}
			return err
		}}
}

// CheckEvery reports whether d is a sample period the lab takes.
func CheckEvery(d time.Duration) error {
	if d < MinEvery || d > MaxEvery {
		return fmt.Errorf("sample period %v: allowed [%v, %v]", d, MinEvery, MaxEvery)
	}
	return nil
}

func floatParam(key, help string, lo, hi float64, field func(*Config) *float64) Param {
	return Param{Key: key, Help: help, Live: true,
		Get: func(c *Config) string { return fmtFloat(*field(c)) },
		Set: func(c *Config, v string) error {
			f, err := param.Float(key, v, lo, hi)
			if err == nil {
				*field(c) = f
			}
			return err
		}}
}

func ppmParam(key, help string, field func(*Config) *float64) Param {
	return Param{Key: key, Help: help, Live: true,
		Get: func(c *Config) string { return param.FormatPPM(*field(c)) },
		Set: func(c *Config, v string) error {
			f, err := param.PPM(key, v, sim.MaxDriftPPM)
			if err == nil {
				*field(c) = f
			}
			return err
		}}
}

// linkKey describes one per-direction knob on netem.Params.
type linkKey struct {
	name, help string
	get        func(*netem.Params) string
	set        func(p *netem.Params, key, v string) error
}

var linkKeys = []linkKey{
	{"latency", "base one-way delay", func(p *netem.Params) string { return fmtDur(p.Latency) },
		func(p *netem.Params, k, v string) (err error) {
			p.Latency, err = durationIn(k, v, 0, netem.MaxLatency)
			return
		}},
	{"jitter", "half-width (uniform), σ (normal, pareto, paretonormal) or mean (exponential)", func(p *netem.Params) string { return fmtDur(p.Jitter) },
		func(p *netem.Params, k, v string) (err error) {
			p.Jitter, err = durationIn(k, v, 0, netem.MaxJitter)
			return
		}},
	{"jitter_dist", "uniform, normal, pareto, paretonormal or exponential", func(p *netem.Params) string { return p.JitterDist.String() },
		func(p *netem.Params, k, v string) (err error) { p.JitterDist, err = netem.ParseDist(k, v); return }},
	{"jitter_corr", "AR(1) correlation of successive jitter draws, 0..1", func(p *netem.Params) string { return fmtFloat(p.JitterCorr) },
		func(p *netem.Params, k, v string) (err error) { p.JitterCorr, err = param.Float(k, v, 0, 1); return }},
	{"loss", "long-run loss probability", func(p *netem.Params) string { return param.FormatFraction(p.Loss) },
		func(p *netem.Params, k, v string) (err error) { p.Loss, err = param.Fraction(k, v); return }},
	{"loss_burst", "mean loss burst length (Gilbert-Elliott); 0 = independent loss", func(p *netem.Params) string { return fmtFloat(p.LossBurst) },
		func(p *netem.Params, k, v string) (err error) {
			f, err := param.Float(k, v, 0, 1e6)
			if err == nil && f > 0 && f < 1 {
				err = &param.Error{Key: k, Value: v, Allowed: "0 (independent loss) or a mean burst length ≥ 1"}
			}
			p.LossBurst = f
			return err
		}},
	{"duplicate", "probability that a packet is sent twice", func(p *netem.Params) string { return param.FormatFraction(p.Duplicate) },
		func(p *netem.Params, k, v string) (err error) { p.Duplicate, err = param.Fraction(k, v); return }},
	{"reorder", "probability that an eligible packet skips the delay and the rate (netem)", func(p *netem.Params) string { return param.FormatFraction(p.Reorder) },
		func(p *netem.Params, k, v string) (err error) { p.Reorder, err = param.Fraction(k, v); return }},
	{"reorder_gap", "netem gap: packets delayed normally between reorders, +1", func(p *netem.Params) string { return strconv.Itoa(p.ReorderGap) },
		linkInt(0, 1e6, func(p *netem.Params) *int { return &p.ReorderGap })},
	{"keep_order", "deliver in send order (delivery times monotonic)", func(p *netem.Params) string { return strconv.FormatBool(p.KeepOrder) },
		func(p *netem.Params, k, v string) (err error) { p.KeepOrder, err = param.Bool(k, v); return }},
	{"rate", "bit rate, e.g. 1.5mbit; 0 = unlimited", func(p *netem.Params) string { return param.FormatRate(p.Rate) },
		func(p *netem.Params, k, v string) (err error) { p.Rate, err = param.Rate(k, v); return }},
	{"overhead", "bytes added per packet for the rate (28 = UDP/IPv4)", func(p *netem.Params) string { return strconv.Itoa(p.Overhead) },
		linkInt(0, 65535, func(p *netem.Params) *int { return &p.Overhead })},
	{"queue", "packets in flight before tail drop; 0 = unlimited", func(p *netem.Params) string { return strconv.Itoa(p.Queue) },
		linkInt(0, 1e7, func(p *netem.Params) *int { return &p.Queue })},
}

func buildRegistry() []Param {
	var ps []Param
	for _, dir := range []string{"up", "down", "link"} {
		for _, lk := range slices.Concat(linkKeys, realismKeys) {
			key := dir + "." + lk.name
			help := lk.help
			var sides func(*Config) []*netem.Params
			switch dir {
			case "up":
				sides = func(c *Config) []*netem.Params { return []*netem.Params{&c.Up} }
			case "down":
				sides = func(c *Config) []*netem.Params { return []*netem.Params{&c.Down} }
			default:
				sides = func(c *Config) []*netem.Params { return []*netem.Params{&c.Up, &c.Down} }
				help += " (both directions)"
			}
			ps = append(ps, Param{Key: key, Help: help, Live: true,
				Get: func(c *Config) string {
					s := sides(c)
					v := lk.get(s[0])
					if len(s) == 2 && lk.get(s[1]) != v {
						return v + "/" + lk.get(s[1])
					}
					return v
				},
				Set: func(c *Config, v string) error {
					for _, p := range sides(c) {
						if err := lk.set(p, key, v); err != nil {
							return err
						}
					}
					return nil
				}})
		}
	}

	ps = append(ps, traceParam("up"), traceLoopParam("up"), traceParam("down"), traceLoopParam("down"))

	cl := func(c *Config) *client.Config { return &c.Client }
	g, s := choice("client.sender", client.SenderNames, func(c *Config) *client.Sender { return &cl(c).Sender })
	ps = append(ps, Param{"client.sender", "frame (reference) or accumulator", true, g, s})
	g, s = choice("client.corrector", client.CorrectorNames, func(c *Config) *client.CorrectorMode { return &cl(c).Corrector })
	ps = append(ps, Param{"client.corrector", "deadband (reference), off, signflip, proportional or dilation", true, g, s})
	g, s = choice("client.predict", client.PredictNames, func(c *Config) *client.Predict { return &cl(c).Predict })
	ps = append(ps, Param{"client.predict", "attribute (reference) or consume", true, g, s})
	g, s = choice("client.replay", client.ReplayNames, func(c *Config) *client.Replay { return &cl(c).Replay })
	ps = append(ps, Param{"client.replay", "substep (after the fix) or single (the pre-fix bug)", true, g, s})
	g, s = choice("client.smoothing", client.SmoothingNames, func(c *Config) *client.Smoothing { return &cl(c).Smoothing })
	ps = append(ps, Param{"client.smoothing", "lerp (reference), movetowards or predicted (the prediction interpolated, only the correction smoothed)", true, g, s})

	ps = append(ps, variantParams()...) // issue 11, lab/fixparams.go

	ps = append(ps,
		ppmParam("client.drift_ppm", "client clock drift, e.g. +40ppm or 2%", func(c *Config) *float64 { return &c.ClientDriftPPM }),
		ppmParam("client.wander_ppm", "σ per second of the client drift's random walk", func(c *Config) *float64 { return &c.ClientWanderPPM }),
		intParam("client.fps", "render frames per second", 1, 1000, func(c *Config) *int { return &c.Client.FPS }),
		durationParam("client.frame_jitter", "seeded extra delay of each frame, < one frame", 0, time.Second, func(c *Config) *time.Duration { return &c.Client.FrameJitter }),
		durationParam("client.fixed_dt", "fixed update period", MinStep, MaxStep, func(c *Config) *time.Duration { return &c.Client.FixedDT }),
		durationParam("client.send_interval", "base send interval", MinStep, MaxStep, func(c *Config) *time.Duration { return &c.Client.SendInterval }),
		durationParam("client.interval_fast", "corrector interval when the client is behind", MinStep, MaxStep, func(c *Config) *time.Duration { return &c.Client.IntervalFast }),
		durationParam("client.interval_slow", "corrector interval when the client is ahead", MinStep, MaxStep, func(c *Config) *time.Duration { return &c.Client.IntervalSlow }),
		intParam("client.band", "dead band half-width in ticks", 0, 1000, func(c *Config) *int { return &c.Client.Band }),
		floatParam("client.alpha", "lerp factor per frame", param.AboveZero, 1, func(c *Config) *float64 { return &c.Client.Alpha }),
		floatParam("client.snap", "snap threshold, metres", param.AboveZero, 1e6, func(c *Config) *float64 { return &c.Client.Snap }),
		floatParam("client.move_speed", "m/s at full throttle (client and server)", 0, 1e3, func(c *Config) *float64 { return &c.Client.Tuning.MoveSpeed }),
		floatParam("client.turn_speed", "°/s at full turn (client and server)", 0, 1e4, func(c *Config) *float64 { return &c.Client.Tuning.TurnSpeed }),
	)

	g, s = choice("server.inputs", server.InputModes, func(c *Config) *server.InputMode { return &c.Server.Inputs })
	ps = append(ps,
		ppmParam("server.drift_ppm", "server clock drift", func(c *Config) *float64 { return &c.ServerDriftPPM }),
		ppmParam("server.wander_ppm", "σ per second of the server drift's random walk", func(c *Config) *float64 { return &c.ServerWanderPPM }),
		durationParam("server.tick", "server step period (also the client's prediction unit)", MinStep, MaxStep, func(c *Config) *time.Duration { return &c.Server.Tick }),
		intParam("server.broadcast", "a PlayerState every N server steps", 1, server.MaxBroadcast, func(c *Config) *int { return &c.Server.Broadcast }),
		Param{"server.inputs", "latest (reference), queue or buffer", true, g, s},
		Param{Key: "input.script", Help: "steady, turn, zigzag, stopgo or random", Live: true,
			Get: func(c *Config) string { return c.Script },
			Set: func(c *Config, v string) error {
				s, err := param.Choice("input.script", v, scenarios.ScriptNames...)
				if err == nil {
					c.Script, c.Segments = s, nil
				}
				return err
			}},
		Param{Key: "client.start", Help: "true time of the client's first frame after the server's start; 'seed' draws it in [0, 1s)",
			Get: func(c *Config) string {
				if c.ClientStart == StartFromSeed {
					return "seed"
				}
				return fmtDur(c.ClientStart)
			},
			Set: func(c *Config, v string) (err error) {
				if strings.TrimSpace(v) == "seed" {
					c.ClientStart = StartFromSeed
					return nil
				}
				c.ClientStart, err = durationIn("client.start", v, 0, MaxStart)
				if err != nil {
					err.(*param.Error).Allowed = "seed, or a duration in [0, " + fmtDur(MaxStart) + "] such as 250ms"
				}
				return err
			}},
		Param{Key: "sim.seed", Help: "session seed (fixes every random stream)",
			Get: func(c *Config) string { return strconv.FormatUint(c.Seed, 10) },
			Set: func(c *Config, v string) error {
				n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
				if err != nil {
					return &param.Error{Key: "sim.seed", Value: v, Allowed: "an integer in [0, 2^64)"}
				}
				c.Seed = n
				return nil
			}},
		Param{Key: "sim.duration", Help: "simulated time",
			Get: func(c *Config) string { return fmtDur(c.Duration) },
			Set: func(c *Config, v string) (err error) {
				c.Duration, err = durationIn("sim.duration", v, time.Nanosecond, MaxDuration)
				return err
			}},
	)
	return ps
}

// realismKeys are the per-direction stages of issue 13 (links as real
// networks behave): shaper, slots, stateful loss, spikes. Semantics and
// sources: the README's link model.
var realismKeys = []linkKey{
	{"blackout", "lose every packet (a flap; [[flap]] in scenario files sets it), leaving loss as it is", func(p *netem.Params) string { return strconv.FormatBool(p.Blackout) },
		func(p *netem.Params, k, v string) (err error) { p.Blackout, err = param.Bool(k, v); return }},
	{"spike", "probability that a packet is held spike_delay longer after every other stage (others keep their delay)", func(p *netem.Params) string { return param.FormatFraction(p.Spike) },
		func(p *netem.Params, k, v string) (err error) { p.Spike, err = param.Fraction(k, v); return }},
	{"spike_delay", "extra delay of a spiked packet", func(p *netem.Params) string { return fmtDur(p.SpikeDelay) },
		func(p *netem.Params, k, v string) (err error) {
			p.SpikeDelay, err = durationIn(k, v, 0, netem.MaxLatency)
			return
		}},
	{"loss_model", "random (loss, loss_burst), or netem's \"gemodel p r 1-h 1-k\" or \"state p13 p31 p32 p23 p14\", which replace them", func(p *netem.Params) string { return p.LossModelString() },
		func(p *netem.Params, k, v string) error { return netem.ParseLossModel(p, k, v) }},
	{"bad_delay", "extra delay of packets that get through in the loss model's bad state (link-layer retransmissions)", func(p *netem.Params) string { return fmtDur(p.BadDelay) },
		func(p *netem.Params, k, v string) (err error) {
			p.BadDelay, err = durationIn(k, v, 0, netem.MaxLatency)
			return
		}},
	{"slot", "netem slot MIN [MAX] [packets N] [bytes N]: release in bursts at slot boundaries (Wi-Fi/DOCSIS aggregation); 0 = off", func(p *netem.Params) string { return p.Slot.String() },
		func(p *netem.Params, k, v string) (err error) { p.Slot, err = netem.ParseSlot(k, v); return }},
	{"shape_rate", "token-bucket shaper after the netem stages (tc tbf rate); 0 = off", func(p *netem.Params) string { return param.FormatRate(p.ShapeRate) },
		func(p *netem.Params, k, v string) (err error) { p.ShapeRate, err = param.Rate(k, v); return }},
	{"shape_burst", "shaper bucket size in bytes (tc tbf burst); 0 = 1500", func(p *netem.Params) string { return strconv.Itoa(p.ShapeBurst) },
		linkInt(0, netem.MaxShapeBytes, func(p *netem.Params) *int { return &p.ShapeBurst })},
	{"shape_limit", "shaper queue: bytes, or a duration (tc tbf latency: rate·latency + burst); 0 = what the rate drains in 1m", func(p *netem.Params) string {
		if p.ShapeLatency > 0 {
			return fmtDur(p.ShapeLatency)
		}
		return strconv.Itoa(p.ShapeLimit)
	},
		func(p *netem.Params, k, v string) error {
			allowed := fmt.Sprintf("bytes in [0, %d] such as 30000, or a duration in [0, %v] such as 50ms", netem.MaxShapeBytes, netem.MaxBacklog)
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				if n < 0 || n > netem.MaxShapeBytes {
					return &param.Error{Key: k, Value: v, Allowed: allowed}
				}
				p.ShapeLimit, p.ShapeLatency = int(n), 0
				return nil
			}
			d, err := param.Duration(k, v)
			if err != nil || d > netem.MaxBacklog {
				return &param.Error{Key: k, Value: v, Allowed: allowed}
			}
			p.ShapeLimit, p.ShapeLatency = 0, d
			return nil
		}},
}
