// Package telemetry is what a real game tells the lab about itself, one UDP
// datagram at a time (docs/reference/telemetry.md): a [Frame] from the game
// client each rendered frame, and optionally a [Tick] from the server each
// step. A datagram is one flat JSON object of at most [MaxSize] bytes whose
// "v" is [Version]; fields this version does not know are ignored.
//
// The contract, in the sentences the tests check:
//   - [Decode] of what [AppendFrame] or [AppendTick] wrote gives the same
//     datagram back, field for field.
//   - Decode never panics and allocates nothing for a datagram it accepts;
//     it refuses anything else with an [*Error] of one [Class] that names the
//     field, the value and what is allowed.
//   - A [Collector] counts every datagram it is given: decoded frames and
//     ticks, or refused ones by class; it keeps the latest frames and ticks
//     in rings of a fixed size, decodes at most a set rate, and hands back
//     the first refusal of each class once. Its memory does not grow with
//     what it is sent, and it never reads a clock: the caller passes the time.
//   - A [Listener] is the thin shell around a Collector: a UDP socket, one
//     goroutine, and a clock the caller injects.
package telemetry
