// Package netem models one direction of a network link in virtual time.
//
// A [Link] applies, per packet and in netem's order: duplicate, loss
// (Bernoulli or Gilbert-Elliott), queue limit, reorder-or-delay (latency plus
// jitter drawn from a [Dist] with AR(1) correlation in Gaussian space), rate
// with per-packet overhead, slotted release (netem slot); then a token-bucket shaper as tc's tbf placed
// after netem (golang.org/x/time/rate driven by virtual time); deliver. It is a pure step function: [Link.Send]
// and [Link.Deliver] take the current [sim.Time]; all randomness comes from
// the seeded streams handed to [New]. See DESIGN.md §4 for the contract.
package netem
