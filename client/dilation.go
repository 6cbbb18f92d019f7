package client

import "time"

// MaxDilation bounds client.dilation_max.
const MaxDilation = 0.5

// The dilation control law's constants.
const (
	// DilationSmoothing is the weight of a new depth report in the
	// filtered depth: f += 0.2·(depth − f) per PlayerState, a time
	// constant of 5 reports (250 ms at 20 Hz) against the ±1 tick a single
	// report jumps with the arrival phase.
	DilationSmoothing = 0.2
	// DilationGain is the rate change per tick of depth error: 2 % per
	// tick, so the depth error e decays as de/dt = −gain·e per tick, a
	// time constant of 50 ticks (2.5 s at 20 Hz), ten times the loop's
	// delay (a round trip plus the filter) on the links the lab models:
	// it converges without overshoot.
	DilationGain = 0.02
)

// dilation is the time-dilation corrector (Overwatch, GDC 2017): with the
// server's reported input-buffer depth d and the target D, per PlayerState
//
//	f     ← f + 0.2·(d − f)              (f = d at the first report)
//	scale = 1 + clamp(0.02·(D − f), −max, +max)
//
// and the client runs its fixed updates every FixedDT/scale and sends
// every SendInterval/scale of local time, each fixed update still
// simulating FixedDT: with the depth short (f < D) the client simulates
// and sends faster, filling the buffer; with it long, slower. The rate
// saturates at ±max (client.dilation_max, 5 %): one tick of depth per 20
// ticks, 1 tick/s at 20 Hz.
type dilation struct {
	scale    float64
	filtered float64
	started  bool
}

func (d *dilation) update(depth int16, target int, limit float64) {
	d.updateLaw(depth, target, DilationSmoothing, DilationGain, limit, 0)
}

// Unity Netcode for Entities' defaults (ClientTickRate.DefaultClientTickRate
// and NetworkTimeSystem, com.unity.netcode 1.x): the server filters the
// command age as age ← (7·age + new)/8, the client sets the prediction
// time scale to clamp(1 + 0.1·(age + TargetCommandSlack), 0.9, 1.1) after
// subtracting the adjustments it made within the last round trip
// (commandAgeAdjustment). A command's age is minus its depth in our
// buffer and the slack is the target, so the error is D − depth as ours.
const (
	UnitySmoothing = 0.125 // 1/8 per report
	UnityGain      = 0.1   // CommandAgeCorrectionFraction
	UnityMax       = 0.1   // PredictionTimeScaleMin 0.9, Max 1.1
)

// updateUnity is the LawUnity update: inflight is the ticks sent beyond
// the base rate since the newest input the report counts was sent, which
// the depth cannot show yet.
func (d *dilation) updateUnity(depth int16, target int, inflight float64) {
	d.updateLaw(depth, target, UnitySmoothing, UnityGain, UnityMax, inflight)
}

// updateLaw filters the depth with weight w and sets scale = 1 +
// clamp(gain·(target − f − inflight), ±limit).
func (d *dilation) updateLaw(depth int16, target int, w, gain, limit, inflight float64) {
	x := float64(depth)
	if !d.started {
		d.filtered, d.started = x, true
	} else {
		d.filtered += float64(w * (x - d.filtered))
	}
	e := float64(gain * (float64(target) - d.filtered - inflight))
	d.scale = 1 + min(max(e, -limit), limit)
}

// period is base ÷ scale, rounded to the nanosecond; base at scale 1.
func (d *dilation) period(base time.Duration) time.Duration {
	if d.scale == 1 {
		return base
	}
	return time.Duration(float64(base)/d.scale + 0.5)
}
