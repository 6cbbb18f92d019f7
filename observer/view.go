package observer

import (
	"fmt"
	"math"
	"time"

	"jitterlab/motion"
	"jitterlab/sim"
)

// Mode is how the interpolation delay is chosen, registry key view.interp.
type Mode uint8

const (
	// Off: no remote viewer (the reference; the summary has no view).
	Off Mode = iota
	// Fixed: the delay is Config.Delay (view.interp_delay, 100 ms as
	// Valve's cl_interp 0.1).
	Fixed
	// Adaptive: the delay is sized from the measured snapshot arrivals:
	// mean + 4σ of the gap between successive arrivals, each an
	// exponentially weighted average over about 50 snapshots.
	Adaptive
)

// ModeNames are the registry's names, in Mode order.
var ModeNames = []string{"off", "fixed", "adaptive"}

// Valve's defaults and the adaptive estimate's constants.
const (
	DefaultDelay = 100 * time.Millisecond // cl_interp 0.1
	// Extrapolate is how far past the newest snapshot the view
	// extrapolates before it freezes (cl_extrapolate_amount 0.25).
	Extrapolate = 250 * time.Millisecond
	MaxDelay    = time.Second
	// AdaptiveSigmas is the σ multiple of the adaptive delay, and
	// AdaptiveWeight the weight of a new gap in its averages.
	AdaptiveSigmas = 4
	AdaptiveWeight = 0.02
	// ClockWeight is the weight of a new snapshot in the server clock
	// estimate (local time + offset = server time).
	ClockWeight = 0.05
)

// Config is a viewer's settings.
type Config struct {
	Mode  Mode
	Delay time.Duration // Fixed: the interpolation delay
	Tick  time.Duration // server step: snapshot k is server time k·Tick
}

// Validate names the key of the first bad setting.
func (c Config) Validate() error {
	switch {
	case int(c.Mode) >= len(ModeNames):
		return fmt.Errorf("view.interp %d: allowed %v", c.Mode, ModeNames)
	case c.Delay < 0 || c.Delay > MaxDelay:
		return fmt.Errorf("view.interp_delay %v: allowed [0, %v]", c.Delay, MaxDelay)
	case c.Tick <= 0:
		return fmt.Errorf("server.tick %v: allowed > 0", c.Tick)
	}
	return nil
}

// State is what one rendered frame showed.
type State uint8

const (
	Waiting       State = iota // no snapshot yet, or render time before the oldest
	Interpolating              // between two snapshots around the render time
	Extrapolating              // past the newest, by at most Extrapolate
	Frozen                     // past the newest by more: the pose holds
)

type snapshot struct {
	at   sim.Time // server time
	pose motion.Pose
}

// ringSize bounds the snapshots kept; the view only needs the newest few.
const ringSize = 16

// Viewer is one remote player's view. Hand it snapshots as they arrive
// ([Viewer.OnSnapshot]) and render it at the frames ([Viewer.Render]), in
// non-decreasing local time.
type Viewer struct {
	cfg   Config
	snaps [ringSize]snapshot // by server time, oldest first
	n     int

	offset  float64 // server time − local time estimate, ns
	clocked bool

	arrived         bool
	lastArrival     sim.Time
	gapMean, gapVar float64 // ns, ns²
	gaps            int
	delay           time.Duration
}

// New returns a viewer with no snapshots.
func New(cfg Config) (*Viewer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	v := new(Viewer)
	v.reset(cfg)
	return v, nil
}

// Reset makes v the viewer New(cfg) returns, in place.
func (v *Viewer) Reset(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	v.reset(cfg)
	return nil
}

// reset is Reset with cfg valid.
func (v *Viewer) reset(cfg Config) {
	*v = Viewer{cfg: cfg}
	v.delay = v.targetDelay()
}

// SetConfig changes the settings from the next render on.
func (v *Viewer) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	v.cfg = cfg
	return nil
}

// OnSnapshot records the pose of server step tick, arrived at local time.
// Snapshots older than the oldest kept, or already kept, are ignored.
func (v *Viewer) OnSnapshot(local sim.Time, tick uint32, pose motion.Pose) {
	at := sim.Time(int64(tick) * int64(v.cfg.Tick))
	// Server clock estimate: an average of (server time − arrival).
	o := float64(at - local)
	if !v.clocked {
		v.offset, v.clocked = o, true
	} else {
		v.offset += float64(ClockWeight * (o - v.offset))
	}
	// Arrival gaps for the adaptive delay.
	if v.arrived {
		g := float64(local - v.lastArrival)
		if v.gaps == 0 {
			v.gapMean = g
		} else {
			d := g - v.gapMean
			v.gapMean += float64(AdaptiveWeight * d)
			v.gapVar = float64((1 - AdaptiveWeight) * (v.gapVar + float64(AdaptiveWeight*d*d)))
		}
		v.gaps++
	}
	v.lastArrival, v.arrived = local, true
	v.insert(snapshot{at: at, pose: pose})
}

func (v *Viewer) insert(s snapshot) {
	i := v.n
	for i > 0 && v.snaps[i-1].at > s.at {
		i--
	}
	if i > 0 && v.snaps[i-1].at == s.at {
		return // a duplicate
	}
	if v.n == ringSize {
		if i == 0 {
			return // older than everything kept
		}
		copy(v.snaps[:], v.snaps[1:i])
		i--
	} else {
		v.n++
	}
	copy(v.snaps[i+1:v.n], v.snaps[i:v.n-1])
	v.snaps[i] = s
}

// targetDelay is the delay the mode asks for now.
func (v *Viewer) targetDelay() time.Duration {
	if v.cfg.Mode != Adaptive {
		return v.cfg.Delay
	}
	if v.gaps < 2 {
		return v.cfg.Delay // until there is a measure
	}
	d := v.gapMean + float64(AdaptiveSigmas*math.Sqrt(v.gapVar))
	return time.Duration(min(max(d, 0), float64(MaxDelay)))
}

// Delay is the interpolation delay in force.
func (v *Viewer) Delay() time.Duration { return v.delay }

// RenderTime is the server time a frame at local time shows.
func (v *Viewer) RenderTime(local sim.Time) sim.Time {
	return local + sim.Time(math.Round(v.offset)) - sim.Time(v.delay)
}

// Render returns the pose shown at local time and what the view did.
func (v *Viewer) Render(local sim.Time) (motion.Pose, State) {
	v.delay = v.targetDelay()
	if v.n == 0 {
		return motion.Pose{}, Waiting
	}
	rt := v.RenderTime(local)
	if rt < v.snaps[0].at {
		return v.snaps[0].pose, Waiting
	}
	newest := v.snaps[v.n-1]
	if rt <= newest.at {
		i := 0 // the first snapshot at or after rt
		for v.snaps[i].at < rt {
			i++
		}
		if v.snaps[i].at == rt {
			return v.snaps[i].pose, Interpolating
		}
		a, b := v.snaps[i-1], v.snaps[i]
		return lerp(a.pose, b.pose, float64(rt-a.at)/float64(b.at-a.at)), Interpolating
	}
	if v.n < 2 {
		return newest.pose, Frozen
	}
	prev := v.snaps[v.n-2]
	past := rt - newest.at
	st := Extrapolating
	if past > sim.Time(Extrapolate) {
		past, st = sim.Time(Extrapolate), Frozen
	}
	return lerp(prev.pose, newest.pose, 1+float64(past)/float64(newest.at-prev.at)), st
}

// lerp is a + (b − a)·f per coordinate (f > 1 extrapolates).
func lerp(a, b motion.Pose, f float64) motion.Pose {
	return motion.Pose{
		X:   a.X + float64((b.X-a.X)*f),
		Y:   a.Y + float64((b.Y-a.Y)*f),
		Rot: a.Rot + float64((b.Rot-a.Rot)*f),
	}
}
