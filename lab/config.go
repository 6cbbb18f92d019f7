package lab

import (
	"fmt"
	"reflect"
	"time"

	"jitterlab/client"
	"jitterlab/netem"
	"jitterlab/observer"
	"jitterlab/param"
	"jitterlab/proto"
	"jitterlab/scenarios"
	"jitterlab/server"
	"jitterlab/sim"
)

// Config is everything a session is made of. Every field has a registry
// key (see Params); DefaultConfig is the reference game on a perfect link.
type Config struct {
	Seed     uint64
	Duration time.Duration

	Up, Down netem.Params

	Client client.Config
	Server server.Config
	View   observer.Config // what a remote player sees of our tank (issue 11.4)

	ClientDriftPPM, ServerDriftPPM   float64
	ClientWanderPPM, ServerWanderPPM float64 // σ of the drift's random walk per second

	Script   string              // input.script: a built-in script name, or "custom"
	Segments []scenarios.Segment // the custom script when Script is "custom"

	// ClientStart is when the client's first frame runs, in true time after
	// the server's start: the phase of its frame grid against the server's
	// steps matters, and real clients connect at any phase. StartFromSeed
	// draws it uniformly in [0, 1s) from the seed.
	ClientStart time.Duration
}

// StartFromSeed is ClientStart's default: drawn from the session seed.
const StartFromSeed time.Duration = -1

// SeedStart is the client's start StartFromSeed draws from seed: uniform
// in [0, 1s).
func SeedStart(seed uint64) time.Duration {
	return time.Duration(sim.NewRand(seed, "client.start").Int64N(int64(time.Second)))
}

// DefaultConfig is the first user's game (reference variants) on a perfect
// link for 60 s with seed 1.
func DefaultConfig() Config {
	link := netem.Params{Overhead: proto.UDPIPv4Overhead}
	return Config{
		Seed: 1, Duration: time.Minute,
		Up: link, Down: link,
		Client: client.DefaultConfig, Server: server.DefaultConfig,
		View:   observer.Config{Mode: observer.Off, Delay: observer.DefaultDelay},
		Script: "steady", ClientStart: StartFromSeed,
	}
}

// Validate checks every part and names the key of the first bad value.
func (c *Config) Validate() error {
	if err := c.Up.Validate("up"); err != nil {
		return err
	}
	if err := c.Down.Validate("down"); err != nil {
		return err
	}
	if err := c.clientConfig().Validate(); err != nil {
		return err
	}
	if err := c.viewConfig().Validate(); err != nil {
		return err
	}
	for _, d := range []struct {
		key    string
		v      time.Duration
		lo, hi time.Duration
	}{
		{"server.tick", c.Server.Tick, MinStep, MaxStep},
		{"client.fixed_dt", c.Client.FixedDT, MinStep, MaxStep},
		{"client.send_interval", c.Client.SendInterval, MinStep, MaxStep},
		{"client.interval_fast", c.Client.IntervalFast, MinStep, MaxStep},
		{"client.interval_slow", c.Client.IntervalSlow, MinStep, MaxStep},
		{"sim.duration", c.Duration, time.Nanosecond, MaxDuration},
	} {
		if d.v < d.lo || d.v > d.hi {
			return &param.Error{Key: d.key, Value: param.FormatDuration(d.v), Allowed: fmt.Sprintf("a duration in [%s, %s]", param.FormatDuration(d.lo), param.FormatDuration(d.hi))}
		}
	}
	if c.ClientStart != StartFromSeed && (c.ClientStart < 0 || c.ClientStart > MaxStart) {
		return &param.Error{Key: "client.start", Value: param.FormatDuration(c.ClientStart), Allowed: "seed, or a duration in [0, " + param.FormatDuration(MaxStart) + "]"}
	}
	if c.ClientWanderPPM < 0 {
		return fmt.Errorf("client.wander_ppm %v: allowed a σ ≥ 0ppm", c.ClientWanderPPM)
	}
	if c.ServerWanderPPM < 0 {
		return fmt.Errorf("server.wander_ppm %v: allowed a σ ≥ 0ppm", c.ServerWanderPPM)
	}
	if c.Script == "custom" && len(c.Segments) == 0 {
		return fmt.Errorf("input.script custom: no segments (a scenario file's [[segments]] define them)")
	}
	return nil
}

// Equal reports whether c and o are the same settings.
func (c *Config) Equal(o *Config) bool { return reflect.DeepEqual(c, o) }

// clientConfig is the client's settings with what it shares with the
// server: its prediction cadence is the server tick, and the server moves
// the tank at the speed the client asks for at login.
func (c *Config) clientConfig() client.Config {
	cc := c.Client
	cc.Cadence = c.Server.Tick
	cc.BufferTarget = c.Server.Buffer
	return cc
}

// viewConfig is the remote viewer's settings: snapshot k is server time
// k·server.tick.
func (c *Config) viewConfig() observer.Config {
	vc := c.View
	vc.Tick = c.Server.Tick
	return vc
}

func (c *Config) serverConfig() server.Config {
	sc := c.Server
	sc.Tuning = c.Client.Tuning
	return sc
}

// newScript builds the input script in force.
func (c *Config) newScript() (scenarios.Script, error) {
	if c.Script == "custom" {
		return scenarios.NewSegments(c.Segments)
	}
	return scenarios.NewScript(c.Script, sim.NewRand(c.Seed, "input.script"))
}
