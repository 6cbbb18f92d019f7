package proxy

import (
	"fmt"
	"strconv"
)

// DefaultReceiveBuffer is the receive buffer the relay asks the kernel for
// on each of its sockets (SO_RCVBUF), in bytes. Linux grants at most
// net.core.rmem_max of it, and keeps twice what it grants for the
// datagrams waiting (SO_RCVBUF read back and ss -m show that double),
// counting each at more than its payload: about 830 bytes for a small one
// on loopback (measured: 256 datagrams of 32 bytes fill the default
// 212,992 double), 1,280 for 200 bytes, 2,300 for 1,200.
//
// A datagram that finds the buffer full is dropped (a kernel drop). The
// default lasts 28 ms of 10,000 small datagrams a second, so a relay the
// machine kept off the CPU that long dropped part of a burst the link never
// asked to lose. 4 MiB granted (8 MiB doubled) holds about 10,000 small
// datagrams: a second at 10,000 a second (the highest rate proxybench
// measures), 1.7 s of 64 clients sending 200-byte datagrams at 60 Hz. The
// memory is the kernel's, taken only while datagrams wait.
const DefaultReceiveBuffer = 4 << 20

// MaxReceiveBuffer bounds [Options].ReceiveBuffer.
const MaxReceiveBuffer = 1 << 30

// rmemMaxKey is the setting that caps SO_RCVBUF.
const rmemMaxKey = "net.core.rmem_max"

// ReceiveBuffer is the receive buffer the kernel granted the relay's
// listen socket of the [Options].ReceiveBuffer asked for, in the bytes
// asked (half what SO_RCVBUF reads back); 0 where the platform does not
// say. Its sockets to the server ask for the same.
func (r *Relay) ReceiveBuffer() int { return r.listen.rcvbuf }

// ReceiveBufferWarning says, once at start-up, that the kernel granted the
// relay's sockets less than the [Options].ReceiveBuffer asked for, and
// how to raise its cap; "" when it granted all of it or the platform does
// not say.
func (r *Relay) ReceiveBufferWarning() string {
	return receiveBufferWarning(r.listen.rcvbuf, r.opts.ReceiveBuffer)
}

// receiveBufferWarning is the warning for a socket granted got bytes of
// the asked.
func receiveBufferWarning(got, asked int) string {
	if got == 0 || got >= asked {
		return ""
	}
	return fmt.Sprintf("the kernel granted the relay's sockets a receive buffer of %s, not the %s asked for: %s caps it. "+
		"A relay kept off the CPU longer than the buffer lasts (about %d ms at 10,000 small datagrams a second) drops datagrams there, counted as kernel drops; "+
		"to raise the cap: sudo sysctl -w %s=%d",
		ByteSize(got), ByteSize(asked), rmemMaxKey, 2*got/smallDatagramCost/10, rmemMaxKey, asked)
}

// smallDatagramCost is about what a small datagram takes of the doubled
// receive buffer on Linux (see [DefaultReceiveBuffer]).
const smallDatagramCost = 830

// ByteSize says n bytes in KiB below a MiB, else in MiB.
func ByteSize(n int) string {
	if n < 1<<20 {
		return strconv.FormatFloat(float64(n)/(1<<10), 'g', 4, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'g', 4, 64) + " MiB"
}
