// Package control is how a running `lab proxy` changes and reports its
// conditions. [Conditions] holds the link settings in the keys of a
// [Registry] (netem's link keys, and those the caller adds: proxy/live
// hands it the lab's trace keys): the defaults every client gets and
// per-client assignments on top (a client named by its address, e.g.
// 127.0.0.1:5001), validated exactly as --set validates them (proxy/live's
// TestRegistryIsTheLabs), applied to the relay at once or at scheduled wall
// times (scenario timelines; changes due together in the order given).
// [Handler] serves them to test scripts over HTTP/JSON, with the relay's
// counters and a Prometheus /metrics page, refusing what a web page could
// make a browser send (another origin, a body type a form can send, a
// Host not of this machine); [Serve] serves it within bounds (connections,
// timeouts) that leave the relay its file descriptors.
package control
