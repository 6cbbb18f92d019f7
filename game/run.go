package game

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"time"
)

// Endpoint is what Run drives: a [Client] or a [Server].
type Endpoint interface {
	Next() time.Time
	Advance(at time.Time) []Datagram
	Receive(at time.Time, from netip.AddrPort, b []byte) ([]Datagram, error)
	Counts() *Counts
	// WriteAccount writes what the endpoint did in wall time wall.
	WriteAccount(w io.Writer, wall time.Duration) error
}

// readSize is the receive buffer: more than any message (proto's 508
// bytes), so a longer datagram reads long and is refused as malformed.
const readSize = 2048

// Run drives e on conn until wall time until (never, if zero) or until
// conn is closed, then returns nil; or a socket error. now is the wall
// clock (time.Now in a command): it stamps what arrives and says when
// e's next frame or step is due, and conn's read deadlines are set from
// it. report, if not nil, gets the first malformed and the first foreign
// datagram, once each. A datagram the socket refuses to send is counted
// in e.Counts().SendFailed, never fatal; one it cannot send because conn
// was closed is not a failure: the run ends.
func Run(conn *net.UDPConn, e Endpoint, now func() time.Time, until time.Time, report func(error)) error {
	buf := make([]byte, readSize)
	c := e.Counts()
	send := func(ds []Datagram) {
		for _, d := range ds {
			if _, err := conn.WriteToUDPAddrPort(d.B, d.To); errors.Is(err, net.ErrClosed) {
				return // closed under the run: it ends, and nothing failed
			} else if err != nil {
				c.SendFailed++
			} else {
				c.Sent++
			}
		}
	}
	for {
		t := now()
		if !until.IsZero() && !t.Before(until) {
			return nil
		}
		send(e.Advance(t))
		wake := e.Next()
		if !until.IsZero() && until.Before(wake) {
			wake = until
		}
		if !wake.After(now()) {
			continue // due already: no read, whose deadline has passed
		}
		if err := conn.SetReadDeadline(wake); err != nil {
			return closedIsDone(err)
		}
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				continue
			}
			return closedIsDone(err)
		}
		at := now()
		send(e.Advance(at))
		out, first := e.Receive(at, from, buf[:n])
		send(out)
		if first != nil && report != nil {
			report(first)
		}
	}
}

func closedIsDone(err error) error {
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}
