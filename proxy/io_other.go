//go:build !linux

package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// ioState: a reader goroutine per socket and a Go timer for releases.
type ioState struct {
	alarm *alarm
}

// attach starts reading s. The caller holds r.mu.
func (r *Relay) attach(s *socket) error {
	r.wg.Add(1)
	go func() { defer r.wg.Done(); r.read(s) }()
	return nil
}

func (r *Relay) closePoller() {}

// wake: the reader goroutines hand every datagram over as it comes.
func (r *Relay) wake() {}

// unwatch: the reader goroutine reads s until detach closes it.
func (r *Relay) unwatch(*socket) {}

// detach closes s, which ends its reader. The caller holds r.mu.
func (r *Relay) detach(s *socket) { s.conn.Close() }

// writeOut writes due[0] and sets errs[0] to its error (nil: written).
func (r *Relay) writeOut(due []Delivery, errs []error) int {
	d := &due[0]
	switch {
	case d.Dir == Down:
		_, errs[0] = r.listen.conn.WriteToUDPAddrPort(d.Payload, d.Addr)
	case r.upstream[d.Flow] != nil:
		_, errs[0] = r.upstream[d.Flow].conn.Write(d.Payload)
	default:
		errs[0] = errNoSocket
	}
	return 1
}

// read hands datagrams from s to the relay until s closes. Errors are
// counted and reading goes on: an ICMP "port unreachable" while the server
// restarts makes one read fail, not the flow.
func (r *Relay) read(s *socket) {
	buf := make([]byte, MaxPacket)
	oob := make([]byte, 64)
	for {
		n, oobn, _, addr, err := s.conn.ReadMsgUDPAddrPort(buf, oob)
		r.mu.Lock()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || r.stopping {
				r.mu.Unlock()
				return
			}
			refused := errors.Is(err, syscall.ECONNREFUSED)
			if refused {
				r.noteErr(fmt.Sprintf("the server %v is not answering (ICMP port unreachable)", r.target), err)
			} else {
				r.noteErr("reading "+s.dir.String(), err)
			}
			r.mu.Unlock()
			if !refused {
				time.Sleep(10 * time.Millisecond) // an error that repeats must not spin
			}
			continue
		}
		p := r.pool.get(n)
		copy(p, buf[:n])
		if r.received(s, netip.AddrPortFrom(addr.Addr().Unmap(), addr.Port()), p, oob[:oobn], readClock(readNow)) && r.io.alarm != nil {
			r.io.alarm.set(time.Duration(r.waitFor - r.since(time.Now())))
		}
		r.mu.Unlock()
	}
}

// loop releases datagrams when their time comes, until ctx is done.
func (r *Relay) loop(ctx context.Context) error {
	al, err := newAlarm()
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, al.close)
	defer stop()
	r.mu.Lock()
	r.io.alarm = al
	r.mu.Unlock()
	for ctx.Err() == nil {
		r.mu.Lock()
		next := r.step(time.Now())
		al.set(time.Duration(next - r.since(time.Now())))
		r.mu.Unlock()
		al.wait()
	}
	return nil
}
