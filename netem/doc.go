// Package netem models one direction of a network link in virtual time.
//
// A [Link] applies, per packet, Linux netem's stages in netem's order and
// then the stages a real path adds after netem:
//
//	duplicate → loss → queue limit → reorder-or-delay (+ bad-state delay) →
//	rate → slot → shaper → spike → keep-order → deliver
//
// Loss is Bernoulli, Gilbert-Elliott or netem's 4-state Markov model
// ([FourState]); delay is latency plus jitter drawn from a [Dist] with AR(1)
// correlation in Gaussian space; rate adds per-packet overhead; [Slot] is
// netem's slotted release; the shaper is tc's tbf (golang.org/x/time/rate
// driven by virtual time); a spike holds one packet back without touching
// the others. It is a pure step function: [Link.Send] and [Link.Deliver]
// take the current [sim.Time], and every random draw comes from a seeded
// stream of its own stage, so one knob never reshuffles another. See
// docs/explanation/link-model.md for the contract with its formulas and the
// README's link model for sources.
package netem
