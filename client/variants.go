package client

import "time"

// Variant names as the registry spells them, in constant order.
var (
	SenderNames    = []string{"frame", "accumulator"}
	CorrectorNames = []string{"deadband", "off", "signflip", "proportional", "dilation"}
	PredictNames   = []string{"attribute", "consume"}
	ReplayNames    = []string{"substep", "single"}
	SmoothingNames = []string{"lerp", "movetowards", "predicted"}
	// AlphaPerNames are the values of client.alpha_per.
	AlphaPerNames = []string{"frame", "60hz"}
	// InputDelayNames are the values of client.input_delay, in ticks.
	InputDelayNames = []string{"0", "1", "2", "3"}
	// DilationLawNames are the values of client.dilation_law.
	DilationLawNames = []string{"overwatch", "unity"}
	// RedundancyNames are the values of client.redundancy: N inputs per
	// MoveInput, Redundancy(N − 1), or every unacknowledged one.
	RedundancyNames = []string{"1", "2", "3", "4", "unacked"}
	// MaxCatchupNames are the values of client.max_catchup.
	MaxCatchupNames = []string{"off", "333ms", "100ms"}
)

// MaxCatchup is the death-spiral guard, registry key client.max_catchup:
// the most local time one render frame may advance the game clock that
// fixed updates follow, as Unity's Time.maximumDeltaTime ("Maximum Allowed
// Timestep", default 1/3 s) bounds Time.deltaTime. A longer frame runs at
// most max_catchup ÷ fixed_dt fixed updates and the game clock falls
// behind local time by the rest: the game slows down instead of spending
// ever longer frames catching up.
type MaxCatchup uint8

const (
	CatchupOff   MaxCatchup = iota // no bound (reference)
	CatchupUnity                   // 333ms, Unity's default
	Catchup100ms                   // 100ms, the usual lower setting
)

// Duration is the bound, 0 for off.
func (m MaxCatchup) Duration() time.Duration {
	return [...]time.Duration{0, 333333333, 100 * time.Millisecond}[m]
}

// Redundancy is how many earlier inputs each MoveInput repeats, registry key
// client.redundancy = N (this value + 1; 1 = off, the reference). Sending
// the last N inputs in every packet is what many shipped shooters do
// against loss (Quake 3's usercmd backups, Overwatch's input redundancy):
// one arriving packet fills a gap of up to N − 1 lost ones.
// RedundancyUnacked repeats every input sent since the last acknowledged
// tick, newest first, up to proto.MaxEarlier (what one packet of
// proto.MaxMoveInputPayload bytes holds), as Overwatch does: one arriving
// packet fills any gap shorter than that.
type Redundancy uint8

// RedundancyUnacked is client.redundancy = unacked.
const RedundancyUnacked Redundancy = 4

// String is the value as client.redundancy names it: "1" to "4" inputs per
// MoveInput, or "unacked".
func (r Redundancy) String() string { return RedundancyNames[r] }

// Sender is when MoveInputs go out, registry key client.sender.
type Sender uint8

const (
	// SenderFrame (reference): once per render frame, if now − last_send >
	// send_interval, send and set last_send = now (the overshoot is lost).
	SenderFrame Sender = iota
	// SenderAccumulator: if now − last_send ≥ send_interval, send and add
	// send_interval to last_send (no overshoot lost); at most one per frame.
	SenderAccumulator
)

// CorrectorMode is how the tick offset sets the send interval, registry key
// client.corrector.
type CorrectorMode uint8

const (
	// Deadband (reference, spec 003): offset in [−band, +band] keeps the
	// interval; above +band → fast, below −band → slow; latched until the
	// opposite threshold is crossed.
	Deadband CorrectorMode = iota
	// Off keeps the base interval.
	Off
	// SignFlip is the old code: offset > 0 → fast, offset < 0 → slow.
	SignFlip
	// Proportional: base / clamp(1 + 0.1·offset, 0.9, 1.1), as Unity
	// Netcode for Entities scales time.
	Proportional
	// Dilation: the Overwatch design. The server (server.inputs = buffer)
	// reports its input buffer's depth in every PlayerState; the client
	// scales its fixed-update and send rates by 1 ± DilationMax at most to
	// keep the depth at the target (see dilation.go for the control law).
	// Without a reported depth the rates stay at 1×.
	Dilation
)

// Predict is how live prediction spends its 50 ms units, registry key
// client.predict.
type Predict uint8

const (
	// Attribute (reference): each unit integrates the latest sent step's
	// input and adds one unit to that step's simulated duration.
	Attribute Predict = iota
	// Consume: each unit predicts the next not-yet-predicted step for
	// exactly one unit; with none waiting the unit is dropped.
	Consume
)

// Replay is how reconciliation integrates a pending step, registry key
// client.replay.
type Replay uint8

const (
	// Substep (reference after the fix): min(remaining, cadence) substeps.
	Substep Replay = iota
	// Single (the pre-fix bug): one integration of the whole duration.
	Single
)

// Smoothing is how the visible pose follows the target, registry key
// client.smoothing.
type Smoothing uint8

const (
	// Lerp: visible += (target − visible)·alpha per render frame.
	Lerp Smoothing = iota
	// MoveTowards: at most the current input's speed, |throttle| ×
	// move_speed m/s, and turn_speed °/s per frame.
	MoveTowards
	// Predicted: the visible pose is the predicted pose interpolated
	// between the last two prediction units, plus an offset that holds the
	// reconciliation error: a correction moves the prediction, not the
	// visible pose, and the offset then decays as exp(−dt/τ) per frame,
	// τ = SmoothingTau(alpha). An offset past client.snap is dropped (a
	// snap). This is what engines ship for the local player: Unity's
	// rigidbody interpolation between fixed steps and Netcode for
	// Entities' prediction smoothing, Overwatch's and Photon's error
	// offsets.
	Predicted
)

// AlphaPer is what client.alpha is the fraction of, registry key
// client.alpha_per.
type AlphaPer uint8

const (
	// PerFrame (reference): lerp applies alpha once per render frame, so
	// at 144 fps it smooths 2.4 times as fast (in time) as at 60 fps.
	PerFrame AlphaPer = iota
	// Per60Hz: alpha is the fraction per 1/60 s; a frame of dt applies
	// 1 − (1 − alpha)^(60·dt) = 1 − exp(−dt/τ), so any frame rate smooths
	// as 60 fps does (the frame-rate-independent lerp, "damp").
	Per60Hz
)

// InputDelay is the local input delay in ticks, registry key
// client.input_delay (0, the reference, to 3): the input sampled when tick
// k is sent goes out at once tagged k + N, and prediction applies it when
// the client's tick reaches k + N; the first N ticks predict no input.
// GGPO's frame delay (ggpo_set_frame_delay) and Photon Quantum's input
// delay work this way.
type InputDelay uint8

// InputDelayRing is how many ticks of sent inputs the client keeps (the
// delay plus the earlier inputs redundancy repeats fit in it).
const InputDelayRing = 16

// DilationLaw is the time-dilation corrector's constants, registry key
// client.dilation_law (dilation.go).
type DilationLaw uint8

const (
	// LawOverwatch (reference): filter weight 0.2, gain 0.02 per tick of
	// depth error, clamp ±client.dilation_max.
	LawOverwatch DilationLaw = iota
	// LawUnity: Unity Netcode for Entities' defaults: filter weight 1/8,
	// gain 0.1 per tick (CommandAgeCorrectionFraction), clamp 0.9..1.1
	// (PredictionTimeScaleMin/Max), less the ticks already sent extra
	// since the reported input left (its commandAgeAdjustment).
	LawUnity
)
