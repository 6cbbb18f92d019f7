package scenarios

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"jitterlab/detmath"
	"jitterlab/motion"
	"jitterlab/sim"
)

// Script is the player's hands: the controls at a local time. Calls come
// with non-decreasing times.
type Script interface {
	Input(local sim.Time) motion.Input
}

// Segment holds one input for a duration.
type Segment struct {
	Dur            time.Duration
	Turn, Throttle float64
}

// Segments plays its segments in order and repeats them.
type Segments struct {
	segs  []Segment
	total time.Duration
	// The segment the last call found, [from, to) in local time, and its
	// input: a frame mostly falls in the last frame's segment and then
	// needs no modulo and no scan. Empty (from = to) until a call.
	from, to sim.Time
	cur      motion.Input
}

// NewSegments validates segs (durations > 0, controls in [−1, 1]).
func NewSegments(segs []Segment) (*Segments, error) {
	if len(segs) == 0 {
		return nil, fmt.Errorf("input script: no segments")
	}
	s := &Segments{segs: segs}
	for i, g := range segs {
		if g.Dur <= 0 {
			return nil, fmt.Errorf("input script segment %d: duration %v, allowed > 0", i+1, g.Dur)
		}
		if !(g.Turn >= -1 && g.Turn <= 1) || !(g.Throttle >= -1 && g.Throttle <= 1) {
			return nil, fmt.Errorf("input script segment %d: turn %v throttle %v, allowed [-1, 1]", i+1, g.Turn, g.Throttle)
		}
		s.total += g.Dur
	}
	return s, nil
}

// Input returns the segment in force at local time t (cyclic).
func (s *Segments) Input(t sim.Time) motion.Input {
	if t >= s.from && t < s.to {
		return s.cur
	}
	r := time.Duration(t) % s.total
	if r < 0 {
		r += s.total
	}
	from := t - sim.Time(r) // this cycle's start
	for _, g := range s.segs {
		if r < g.Dur {
			s.from, s.to = from, from+sim.Time(g.Dur)
			s.cur = motion.Input{Turn: g.Turn, Throttle: g.Throttle}
			return s.cur
		}
		r -= g.Dur
		from += sim.Time(g.Dur)
	}
	return motion.Input{}
}

// RandomWalk changes turn and throttle every Step by a normal draw of Sigma,
// reflected into [−1, 1] (throttle into [0, 1]: the tank drives forward).
// Values depend only on the seed and the time, not on how often it is
// sampled.
type RandomWalk struct {
	Step  time.Duration
	Sigma float64
	r     *rand.Rand
	k     int64 // index of the current step
	cur   motion.Input
}

// NewRandomWalk starts at full throttle, no turn.
func NewRandomWalk(r *rand.Rand) *RandomWalk {
	return &RandomWalk{Step: 250 * time.Millisecond, Sigma: 0.35, r: r, cur: motion.Input{Throttle: 1}}
}

// Input advances the walk to t and returns the controls.
func (w *RandomWalk) Input(t sim.Time) motion.Input {
	for k := int64(t) / int64(w.Step); w.k < k; w.k++ {
		w.cur.Turn = reflect(w.cur.Turn+float64(detmath.NormFloat64(w.r)*w.Sigma), -1, 1)
		w.cur.Throttle = reflect(w.cur.Throttle+float64(detmath.NormFloat64(w.r)*w.Sigma), 0, 1)
	}
	return w.cur
}

func reflect(x, lo, hi float64) float64 {
	for x < lo || x > hi {
		if x < lo {
			x = float64(2*lo) - x
		}
		if x > hi {
			x = float64(2*hi) - x
		}
	}
	return x
}

// ScriptNames are the built-in input scripts, registry key input.script.
var ScriptNames = []string{"steady", "turn", "zigzag", "stopgo", "random"}

// ScriptHelp describes each built-in script.
var ScriptHelp = map[string]string{
	"steady": "throttle 1, turn 0: straight ahead at full speed",
	"turn":   "throttle 1, turn 0.5: a circle at full speed (heading feeds forward)",
	"zigzag": "throttle 1, turn +1 / −1 alternating every 1 s",
	"stopgo": "2 s at full throttle, 1 s stopped, repeated",
	"random": "seeded random walk of turn and throttle, a step every 250 ms",
}

// NewScript returns the named built-in script; random draws from r.
func NewScript(name string, r *rand.Rand) (Script, error) {
	var segs []Segment
	switch name {
	case "steady":
		segs = []Segment{{time.Second, 0, 1}}
	case "turn":
		segs = []Segment{{time.Second, 0.5, 1}}
	case "zigzag":
		segs = []Segment{{time.Second, 1, 1}, {time.Second, -1, 1}}
	case "stopgo":
		segs = []Segment{{2 * time.Second, 0, 1}, {time.Second, 0, 0}}
	case "random":
		return NewRandomWalk(r), nil
	default:
		return nil, fmt.Errorf("input.script: bad value %q: allowed one of %s", name, strings.Join(ScriptNames, ", "))
	}
	return NewSegments(segs)
}
