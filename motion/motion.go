package motion

import (
	"math"
	"time"

	"jitterlab/detmath"
	"jitterlab/sim"
)

// Pose is a tank's position in metres and heading in degrees (0 = +y,
// clockwise positive, as Unity's yaw). Rotation is not wrapped, so live and
// replayed poses compare bit for bit; use [AngleDiff] to compare headings.
type Pose struct {
	X, Y, Rot float64
}

// Input is one MoveInput's controls, each in [−1, 1].
type Input struct {
	Turn, Throttle float64
}

// Tuning is the tank's speed: degrees per second at full turn and metres
// per second at full throttle.
type Tuning struct {
	TurnSpeed float64
	MoveSpeed float64
}

// DefaultTuning is the client's login request: 180 °/s, 2 m/s.
var DefaultTuning = Tuning{TurnSpeed: 180, MoveSpeed: 2}

// Step advances p by one integration of dt with input in: rotation first,
// then forward = (sin rot, cos rot) moves the tank with the new heading:
//
//	rot += turn·turn_speed·dt
//	pos += (sin rot, cos rot)·throttle·move_speed·dt
func Step(p Pose, in Input, dt time.Duration, k Tuning) Pose {
	var h Heading
	return h.Step(p, in, dt, k)
}

// Heading is [Step] with the sine and cosine of the last heading kept: a
// run of steps that do not turn (a replay of inputs without turn) computes
// them once. Its zero value is ready; the poses are Step's, bit for bit.
type Heading struct {
	rot, sin, cos float64
	ok            bool
	// The last step's length in seconds (sim.Seconds(dt)): a step is
	// mostly one cadence, and the division is then not made again. The
	// zero value holds dt 0, 0 s.
	dt time.Duration
	s  float64
}

// Step is [Step].
func (h *Heading) Step(p Pose, in Input, dt time.Duration, k Tuning) Pose {
	if dt != h.dt {
		h.dt, h.s = dt, sim.Seconds(dt)
	}
	s := h.s
	p.Rot += float64(in.Turn * k.TurnSpeed * s)
	if !h.ok || math.Float64bits(p.Rot) != math.Float64bits(h.rot) { // bit for bit: −0 is not +0
		h.rot, h.ok = p.Rot, true
		h.sin, h.cos = detmath.Sincos(p.Rot * (math.Pi / 180))
	}
	d := in.Throttle * k.MoveSpeed * s
	p.X += float64(h.sin * d)
	p.Y += float64(h.cos * d)
	return p
}

// Substeps integrates in for dur in substeps of min(remaining, cadence):
// 150ms at a 50ms cadence is 50+50+50, 120ms is 50+50+20. Durations are
// integer nanoseconds, so no remainder is lost or counted twice. A zero
// duration leaves p unchanged.
func Substeps(p Pose, in Input, dur, cadence time.Duration, k Tuning) Pose {
	var h Heading
	return h.Substeps(p, in, dur, cadence, k)
}

// Substeps is [Substeps] through h.
func (h *Heading) Substeps(p Pose, in Input, dur, cadence time.Duration, k Tuning) Pose {
	for rem := dur; rem > 0; {
		st := min(rem, cadence)
		p = h.Step(p, in, st, k)
		rem -= st
	}
	return p
}

// Distance is the Euclidean distance between the positions of a and b.
// (Poses are metres from the origin, far from overflow, so no Hypot.)
func Distance(a, b Pose) float64 {
	dx, dy := a.X-b.X, a.Y-b.Y
	return math.Sqrt(float64(dx*dx) + float64(dy*dy))
}

// AngleDiff is the absolute difference of two headings in degrees, wrapped
// into [0, 180].
func AngleDiff(a, b float64) float64 {
	d := math.Abs(a - b)
	if d <= 180 {
		return d
	}
	d = math.Mod(d, 360)
	if d > 180 {
		d = 360 - d
	}
	return d
}
