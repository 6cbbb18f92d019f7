// Package proxy is a real UDP relay that applies the lab's link model to a
// real game on this machine: packets from the game client to the listen
// address go to the server through the "up" link, replies come back
// through the "down" link, each direction a netem.Link driven by the wall
// clock. It is the one place besides cmd/lab and tui that owns goroutines
// and reads the wall clock; the scheduling core ([Core]) takes explicit
// times and is tested without them.
package proxy
