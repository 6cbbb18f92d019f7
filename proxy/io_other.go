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

// detach closes s, which ends its reader. The caller holds r.mu.
func (r *Relay) detach(s *socket) { s.conn.Close() }

func (r *Relay) write(s *socket, p []byte) error {
	_, err := s.conn.Write(p)
	return err
}

func (r *Relay) writeTo(s *socket, p []byte, to netip.AddrPort) error {
	_, err := s.conn.WriteToUDPAddrPort(p, to)
	return err
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
		if r.received(s, netip.AddrPortFrom(addr.Addr().Unmap(), addr.Port()), p, oob[:oobn]) && r.io.alarm != nil {
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
