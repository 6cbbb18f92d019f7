// Package netem models one direction of a network link in virtual time.
//
// A [Link] applies, per packet and in netem's order: duplicate, loss
// (Bernoulli or Gilbert-Elliott), queue limit, reorder-or-delay (latency plus
// jitter drawn from a [Dist] with AR(1) correlation in Gaussian space), rate
// with per-packet overhead, deliver. It is a pure step function: [Link.Send]
// and [Link.Deliver] take the current [sim.Time]; all randomness comes from
// the seeded streams handed to [New]. docs/model.md ("The link") has the
// contract with its formulas.
package netem
