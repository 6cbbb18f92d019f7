package lab

import (
	"fmt"
	"math"
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
	// Step moves the value one step in an editor; nil: the value is
	// typed, not stepped.
	Step param.Step
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

// choiceParam is an enum stored as a uint8-like index: a variant lab
// diagnose tries (Variants), stepped through its names.
func choiceParam[T ~uint8](key, help string, names []string, field func(*Config) *T) Param {
	choiceNames[key] = names
	return Param{Key: key, Help: help, Live: true,
		Get: func(c *Config) string { return names[*field(c)] },
		Set: func(c *Config, v string) error {
			s, err := param.Choice(key, v, names...)
			if err != nil {
				return err
			}
			*field(c) = T(slices.Index(names, s))
			return nil
		},
		Step: param.Cycle(names...)}
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

// intParam is an integer key in [lo, hi]; a refused value leaves the field
// as it was.
func intParam(key, help string, lo, hi int64, field func(*Config) *int, step param.Step) Param {
	return Param{Key: key, Help: help, Live: true, Step: step,
		Get: func(c *Config) string { return strconv.Itoa(*field(c)) },
		Set: func(c *Config, v string) error {
			n, err := param.Int(key, v, lo, hi)
			if err == nil {
				*field(c) = int(n)
			}
			return err
		}}
}

func durationParam(key, help string, lo, hi time.Duration, field func(*Config) *time.Duration, step param.Step) Param {
	return Param{Key: key, Help: help, Live: true, Step: step,
		Get: func(c *Config) string { return param.FormatDuration(*field(c)) },
		Set: func(c *Config, v string) error {
			d, err := param.DurationIn(key, v, lo, hi)
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

func floatParam(key, help string, lo, hi float64, field func(*Config) *float64, step param.Step) Param {
	return Param{Key: key, Help: help, Live: true, Step: step,
		Get: func(c *Config) string { return param.FormatFloat(*field(c)) },
		Set: func(c *Config, v string) error {
			f, err := param.Float(key, v, lo, hi)
			if err == nil {
				*field(c) = f
			}
			return err
		}}
}

func ppmParam(key, help string, field func(*Config) *float64, step param.Step) Param {
	return Param{Key: key, Help: help, Live: true, Step: step,
		Get: func(c *Config) string { return param.FormatPPM(*field(c)) },
		Set: func(c *Config, v string) error {
			f, err := param.PPM(key, v, sim.MaxDriftPPM)
			if err == nil {
				*field(c) = f
			}
			return err
		}}
}

func buildRegistry() []Param {
	var ps []Param
	// The link's keys, as netem declares them for a pair of directions.
	for _, k := range netem.PairKeys() {
		ps = append(ps, Param{Key: k.Name, Help: k.Help, Live: true, Step: k.Step,
			Get: func(c *Config) string {
				p := netem.Pair{Up: c.Up, Down: c.Down}
				return k.Get(&p)
			},
			Set: func(c *Config, v string) error {
				p := netem.Pair{Up: c.Up, Down: c.Down}
				err := k.Set(&p, v)
				c.Up, c.Down = p.Up, p.Down
				return err
			}})
	}

	ps = append(ps, traceParam("up"), traceLoopParam("up"), traceParam("down"), traceLoopParam("down"))

	cl := func(c *Config) *client.Config { return &c.Client }
	ps = append(ps, choiceParam("client.sender", "frame (reference) or accumulator", client.SenderNames, func(c *Config) *client.Sender { return &cl(c).Sender }))
	ps = append(ps, choiceParam("client.corrector", "deadband (reference), off, signflip, proportional or dilation", client.CorrectorNames, func(c *Config) *client.CorrectorMode { return &cl(c).Corrector }))
	ps = append(ps, choiceParam("client.predict", "attribute (reference) or consume", client.PredictNames, func(c *Config) *client.Predict { return &cl(c).Predict }))
	ps = append(ps, choiceParam("client.replay", "substep (after the fix) or single (the pre-fix bug)", client.ReplayNames, func(c *Config) *client.Replay { return &cl(c).Replay }))
	ps = append(ps, choiceParam("client.smoothing", "lerp (reference), movetowards or predicted (the prediction interpolated, only the correction smoothed)", client.SmoothingNames, func(c *Config) *client.Smoothing { return &cl(c).Smoothing }))

	ps = append(ps, variantParams()...) // lab/variantparams.go

	ps = append(ps,
		ppmParam("client.drift_ppm", "client clock drift, e.g. +40ppm or 2%", func(c *Config) *float64 { return &c.ClientDriftPPM }, param.PPMBy(10, false)),
		ppmParam("client.wander_ppm", "σ per second of the client drift's random walk", func(c *Config) *float64 { return &c.ClientWanderPPM }, param.PPMBy(1, true)),
		intParam("client.fps", "render frames per second", 1, 1000, func(c *Config) *int { return &c.Client.FPS }, param.Ladder("30", "60", "120", "144", "240")),
		durationParam("client.frame_jitter", "seeded extra delay of each frame, < one frame", 0, time.Second, func(c *Config) *time.Duration { return &c.Client.FrameJitter }, param.DurationBy(time.Millisecond, 0)),
		durationParam("client.fixed_dt", "fixed update period", MinStep, MaxStep, func(c *Config) *time.Duration { return &c.Client.FixedDT }, param.DurationBy(time.Millisecond, MinStep)),
		durationParam("client.send_interval", "base send interval", MinStep, MaxStep, func(c *Config) *time.Duration { return &c.Client.SendInterval }, param.DurationBy(time.Millisecond, MinStep)),
		durationParam("client.interval_fast", "corrector interval when the client is behind", MinStep, MaxStep, func(c *Config) *time.Duration { return &c.Client.IntervalFast }, param.DurationBy(time.Millisecond, MinStep)),
		durationParam("client.interval_slow", "corrector interval when the client is ahead", MinStep, MaxStep, func(c *Config) *time.Duration { return &c.Client.IntervalSlow }, param.DurationBy(time.Millisecond, MinStep)),
		intParam("client.band", "dead band half-width in ticks", 0, 1000, func(c *Config) *int { return &c.Client.Band }, param.IntBy(0, 1000)),
		floatParam("client.alpha", "lerp factor per frame", param.AboveZero, 1, func(c *Config) *float64 { return &c.Client.Alpha }, param.FloatBy(0.05, 100, 0.05, 1, 1)),
		floatParam("client.snap", "snap threshold, metres", param.AboveZero, 1e6, func(c *Config) *float64 { return &c.Client.Snap }, param.FloatBy(0.1, 10, 0.1, math.Inf(1), 1e6)),
		floatParam("client.move_speed", "m/s at full throttle (client and server)", 0, 1e3, func(c *Config) *float64 { return &c.Client.Tuning.MoveSpeed }, param.FloatBy(0.5, 0, 0, math.Inf(1), 1e4)),
		floatParam("client.turn_speed", "°/s at full turn (client and server)", 0, 1e4, func(c *Config) *float64 { return &c.Client.Tuning.TurnSpeed }, param.FloatBy(15, 0, 0, math.Inf(1), 1e4)),
	)

	ps = append(ps,
		ppmParam("server.drift_ppm", "server clock drift", func(c *Config) *float64 { return &c.ServerDriftPPM }, param.PPMBy(10, false)),
		ppmParam("server.wander_ppm", "σ per second of the server drift's random walk", func(c *Config) *float64 { return &c.ServerWanderPPM }, param.PPMBy(1, true)),
		durationParam("server.tick", "server step period (also the client's prediction unit)", MinStep, MaxStep, func(c *Config) *time.Duration { return &c.Server.Tick }, param.DurationBy(time.Millisecond, MinStep)),
		intParam("server.broadcast", "a PlayerState every N server steps", 1, server.MaxBroadcast, func(c *Config) *int { return &c.Server.Broadcast }, param.IntBy(1, 1e6)),
		choiceParam("server.inputs", "latest (reference), queue or buffer", server.InputModes, func(c *Config) *server.InputMode { return &c.Server.Inputs }),
		Param{Key: "input.script", Help: "steady, turn, zigzag, stopgo or random", Live: true,
			Step: param.Cycle(scenarios.ScriptNames...),
			Get:  func(c *Config) string { return c.Script },
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
				return param.FormatDuration(c.ClientStart)
			},
			Set: func(c *Config, v string) (err error) {
				if strings.TrimSpace(v) == "seed" {
					c.ClientStart = StartFromSeed
					return nil
				}
				c.ClientStart, err = param.DurationIn("client.start", v, 0, MaxStart)
				if err != nil {
					err.(*param.Error).Allowed = "seed, or a duration in [0, " + param.FormatDuration(MaxStart) + "] such as 250ms"
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
			Get: func(c *Config) string { return param.FormatDuration(c.Duration) },
			Set: func(c *Config, v string) (err error) {
				c.Duration, err = param.DurationIn("sim.duration", v, time.Nanosecond, MaxDuration)
				return err
			}},
	)
	return ps
}
