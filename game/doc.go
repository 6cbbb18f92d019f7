// Package game runs the lab's reference game on real UDP sockets: the
// model's [jitterlab/client] and [jitterlab/server], driven by the wall
// clock instead of the session's event queue (lab game client, lab game
// server). Anyone can put it behind lab proxy and try the whole path with
// no engine, and the pipeline checks itself against the model.
//
// The contract, in the sentences the tests check:
//   - A [Client] and a [Server] never read a clock or a socket: each call
//     takes the time, and what they send comes back as [Datagram]s. [Run]
//     is the thin shell that owns the socket and reads the clock it is given.
//   - Their settings are the registry's ([Configure]): the same client.*,
//     server.* and input.* keys as the model, and sim.seed.
//   - Messages travel in [jitterlab/proto]'s wire format. A datagram that
//     does not decode, or comes from an address that is not the peer, is
//     counted in [Counts] and dropped; the first of each is reported once.
//   - The client sends a [jitterlab/telemetry] frame after every rendered
//     frame, the server a tick after every step, when given an address.
//   - An endpoint's WriteAccount says what it did when its run ends.
package game
