package lab

import (
	"strconv"

	"jitterlab/netem"
	"jitterlab/param"
	"jitterlab/trace"
)

// Traces reads the captures the registry's trace keys (up.trace,
// down.trace) name, keeping each one read: a configuration is set many
// times (checks, scratch copies).
var Traces = new(trace.Loader)

// Trace mode: up.trace = FILE replays a capture (any format `lab fit`
// reads) instead of the link's loss and delay. The value the registry
// gives back, and so the one a recording stores, is FILE@sha256:HEX: set
// again (replay, --verify) it loads FILE and refuses it if its bytes
// changed, so a verified replay is the same trace.

// linkSide picks dir's link ("up" or "down") out of a configuration.
func linkSide(dir string) func(c *Config) *netem.Params {
	return func(c *Config) *netem.Params {
		if dir == "up" {
			return &c.Up
		}
		return &c.Down
	}
}

// opensFile says whether key's value names a file the lab reads: a
// trace's. Read from someone else's file such a setting is refused unless
// the user allows it (see [Trust]).
func opensFile(key string) bool { return key == "up.trace" || key == "down.trace" }

// traceParam is the registry entry of dir's trace ("up" or "down").
func traceParam(dir string) Param {
	key := dir + ".trace"
	side := linkSide(dir)
	return Param{Key: key, Live: true, Step: param.Typed("names a capture file", "its path (none turns it off)"),
		Help: "replay a capture FILE (irtt JSON, a game's CSV, lab packets, a proxy recording) instead of loss and delay; none = off",
		Get: func(c *Config) string {
			if t := side(c).Trace; t != nil {
				return t.File + "@" + t.Hash
			}
			return "none"
		},
		Set: func(c *Config, v string) error {
			t, err := Traces.Load(key, dir, v)
			if err == nil {
				side(c).Trace = t
			}
			return err
		}}
}

// traceLoopParam is dir's trace_loop: whether the trace loops (the
// default) or, played once, hands back to the link's loss and delay.
func traceLoopParam(dir string) Param {
	key := dir + ".trace_loop"
	side := linkSide(dir)
	return Param{Key: key, Live: true, Step: param.Toggle(),
		Help: "the trace loops; false: played once, then the link's own loss and delay",
		Get:  func(c *Config) string { return strconv.FormatBool(!side(c).TraceOnce) },
		Set: func(c *Config, v string) error {
			loop, err := param.Bool(key, v)
			if err == nil {
				side(c).TraceOnce = !loop
			}
			return err
		}}
}
