// Package capture writes what the lab's links carry as pcapng files that
// Wireshark and tshark open: [Writer] takes plain [Event] values — a
// datagram sent at one end of the link, or arriving at the other — and
// writes each on the capture interface of the end that saw it (the
// client's side or the server's side), with nanosecond timestamps,
// IPv4 (or IPv6) and UDP headers, and the datagram's fate (delivered and
// the delay added, lost, queue-dropped, duplicate, reordered) as the
// packet's comment. A simulated session's datagrams get stable example
// addresses and a synthetic payload (see [Payload]); the proxy's keep
// their own. [Ordered] puts events that come slightly out of time order
// (a relay's) back in order within a bounded window. The package reads no
// clock: times come with the events.
package capture
