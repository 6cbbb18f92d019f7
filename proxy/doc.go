// Package proxy is a real UDP relay that applies the lab's link model to a
// real game on this machine: packets from a game client to the listen
// address go to the server through that client's "up" link, replies come
// back through its "down" link, each a netem.Link driven by the wall clock.
// The scheduling core ([Core]) takes explicit times and never reads a
// clock: it owns the flows (one per client address, each with its own
// seeded links and, if set, parameters of its own; expired when idle,
// evicted when the table is full), the payloads in flight within [Limits],
// and [Counters] that account for every datagram. The [Relay] is the thin
// shell around it that owns the sockets, goroutines and wall time: it takes
// each datagram's arrival time from the kernel, releases it on the
// kernel's high-resolution timers (an epoll loop on Linux that reads and
// writes in batches and allocates nothing per datagram), tells
// [Options].OnPacket of each datagram as read (its bytes and its copies'
// fates, for captures) and of every copy's fate, and measures what it
// realised ([Relay.Audit]). Package [jitterlab/proxy/control] drives a relay live;
// package [jitterlab/proxy/record] records what it relays.
package proxy
