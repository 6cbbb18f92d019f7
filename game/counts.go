package game

import (
	"fmt"
	"net/netip"
	"strings"

	"jitterlab/internal/plural"
)

// Datagram is one datagram to send: the address and the bytes, valid
// until the endpoint's next call.
type Datagram struct {
	To netip.AddrPort
	B  []byte
}

// Counts are an endpoint's account. Every datagram received is Received
// (decoded from the peer), Malformed (did not decode, or a kind this end
// does not take) or Foreign (from another address than the peer's).
type Counts struct {
	Received, Malformed, Foreign uint64
	Sent, SendFailed             uint64 // datagrams handed to the socket, and those it refused
	reported                     [2]bool
}

// Summary is the account in one line: "1200 datagrams received, 0
// malformed, 0 foreign; 2400 sent, 0 failed".
func (c *Counts) Summary() string {
	return fmt.Sprintf("%s received, %d malformed, %d foreign; %d sent, %d failed",
		plural.Of(c.Received, "datagram"), c.Malformed, c.Foreign, c.Sent, c.SendFailed)
}

const (
	firstMalformed = iota
	firstForeign
)

// refuse counts a datagram refused in class and returns the error to
// report when it is the first of its class, nil otherwise.
func (c *Counts) refuse(class int, format string, args ...any) error {
	if class == firstMalformed {
		c.Malformed++
	} else {
		c.Foreign++
	}
	if c.reported[class] {
		return nil
	}
	c.reported[class] = true
	return fmt.Errorf(format+" (counted from now on)", args...)
}

// same reports whether a and b are one address, an IPv4 address and its
// IPv6-mapped form alike.
func same(a, b netip.AddrPort) bool {
	return a.Addr().Unmap() == b.Addr().Unmap() && a.Port() == b.Port()
}

// outbox collects an endpoint's datagrams in one buffer.
type outbox struct {
	buf  []byte
	ends []int
	to   []netip.AddrPort
	out  []Datagram
}

func (o *outbox) reset() { o.buf, o.ends, o.to = o.buf[:0], o.ends[:0], o.to[:0] }

// add notes that o.buf up to its end is a datagram to to.
func (o *outbox) add(to netip.AddrPort) {
	o.ends = append(o.ends, len(o.buf))
	o.to = append(o.to, to)
}

// datagrams is what was added since reset, valid until the next reset.
func (o *outbox) datagrams() []Datagram {
	o.out = o.out[:0]
	start := 0
	for i, end := range o.ends {
		o.out = append(o.out, Datagram{To: o.to[i], B: o.buf[start:end:end]})
		start = end
	}
	return o.out
}

// oneLine keeps an error's text on one line.
func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }
