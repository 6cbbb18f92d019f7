package proxy

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"syscall"
	"time"
	"unsafe"

	"jitterlab/sim"
)

// ioState is the epoll loop's: one goroutine waits for every socket and
// for the next release in one system call. The sockets are the relay's own
// duplicates of the net package's, which are closed so that Go's network
// poller is not woken by every datagram as well.
type ioState struct {
	epfd   int // every socket and stopfd
	quiet  int // stopfd alone: for waits that only a release ends
	stopfd int // an eventfd written when ctx ends or the links change (see wake)
	socks  map[int32]*socket
	events [64]syscall.EpollEvent

	// recvmsg's arguments, reused: reading allocates nothing.
	buf   [MaxPacket]byte
	oob   [128]byte
	name  syscall.RawSockaddrAny
	iov   syscall.Iovec
	msg   syscall.Msghdr
	sa4   syscall.SockaddrInet4
	sa6   syscall.SockaddrInet6
	v6    bool // the listen socket is IPv6
	reads int  // datagrams read (for the arrival rate)
}

// maxReadsPerWake bounds the datagrams read from one socket per wake-up,
// so a flood on one socket does not hold up releases and other sockets.
const maxReadsPerWake = 64

// epollPwait2 is epoll_pwait2 (Linux 5.11), the same number on every
// architecture; its timeout is a timespec, not milliseconds.
const sysEpollPwait2 = 441

// attach moves s from Go's poller to the relay's: it duplicates the
// descriptor, closes the net package's socket and watches the duplicate.
// The caller holds r.mu.
func (r *Relay) attach(s *socket) error {
	if r.io.socks == nil {
		if err := r.openPoller(); err != nil {
			return err
		}
	}
	raw, err := s.conn.SyscallConn()
	if err != nil {
		return err
	}
	var fd int
	var derr error
	if err := raw.Control(func(sysfd uintptr) { fd, derr = syscall.Dup(int(sysfd)) }); err != nil {
		return err
	}
	if derr != nil {
		return os.NewSyscallError("dup", derr)
	}
	syscall.CloseOnExec(fd)
	if s == r.listen {
		r.io.v6 = isV6(fd)
	}
	s.conn.Close()
	s.fd = fd
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
	if err := syscall.EpollCtl(r.io.epfd, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
		syscall.Close(fd)
		return os.NewSyscallError("epoll_ctl", err)
	}
	r.io.socks[int32(fd)] = s
	return nil
}

func isV6(fd int) bool {
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return false
	}
	_, ok := sa.(*syscall.SockaddrInet6)
	return ok
}

func (r *Relay) openPoller() error {
	epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return os.NewSyscallError("epoll_create1", err)
	}
	efd, _, errno := syscall.Syscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if errno != 0 {
		syscall.Close(epfd)
		return os.NewSyscallError("eventfd2", errno)
	}
	quiet, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		syscall.Close(epfd)
		syscall.Close(int(efd))
		return os.NewSyscallError("epoll_create1", err)
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(efd)}
	for _, e := range []int{epfd, quiet} {
		if err := syscall.EpollCtl(e, syscall.EPOLL_CTL_ADD, int(efd), &ev); err != nil {
			syscall.Close(epfd)
			syscall.Close(quiet)
			syscall.Close(int(efd))
			return os.NewSyscallError("epoll_ctl", err)
		}
	}
	r.io.epfd, r.io.quiet, r.io.stopfd, r.io.socks = epfd, quiet, int(efd), map[int32]*socket{}
	return nil
}

// wake ends the loop's current wait: the links changed, so the datagrams
// that came meanwhile are read at once (a lower delay may make them due),
// or ctx ended. The caller holds r.mu.
func (r *Relay) wake() {
	if r.io.socks == nil || r.stopping {
		return
	}
	var one [8]byte
	binary.NativeEndian.PutUint64(one[:], 1)
	syscall.Write(r.io.stopfd, one[:])
}

// closePoller closes the loop's descriptors, once every socket is
// detached. The caller holds r.mu.
func (r *Relay) closePoller() {
	if r.io.socks != nil {
		syscall.Close(r.io.epfd)
		syscall.Close(r.io.quiet)
		syscall.Close(r.io.stopfd)
	}
}

// detach stops watching s and closes it. The caller holds r.mu.
func (r *Relay) detach(s *socket) {
	if s.fd < 0 {
		s.conn.Close() // never attached, or detached already
		return
	}
	syscall.EpollCtl(r.io.epfd, syscall.EPOLL_CTL_DEL, s.fd, nil)
	delete(r.io.socks, int32(s.fd))
	syscall.Close(s.fd)
	s.fd = -1
}

func (r *Relay) write(s *socket, p []byte) error {
	_, err := syscall.Write(s.fd, p)
	return err
}

func (r *Relay) writeTo(s *socket, p []byte, to netip.AddrPort) error {
	var sa syscall.Sockaddr
	if r.io.v6 {
		r.io.sa6.Addr, r.io.sa6.Port = to.Addr().As16(), int(to.Port())
		sa = &r.io.sa6
	} else {
		r.io.sa4.Addr, r.io.sa4.Port = to.Addr().As4(), int(to.Port())
		sa = &r.io.sa4
	}
	return syscall.Sendto(s.fd, p, syscall.MSG_DONTWAIT, sa)
}

// Deferred reading: while datagrams come often (4 or more per
// maxReadSlack), are in flight, and every link delays by at least
// MinDelay, the loop need not wake for each arrival. The kernel stamps
// each datagram's arrival, so reading it up to readSlack later still
// schedules it exactly; the loop then wakes only for releases (and at
// least every readSlack to read), halving the wake-ups under load.
const (
	spinWindow   = 100 * time.Microsecond
	spinShare    = 5 // per cent of the time at most
	maxReadSlack = 2 * time.Millisecond
	rateWindow   = 100 * time.Millisecond
	minReadSlack = 100 * time.Microsecond // below this, wake for every arrival
)

// loop waits for datagrams and release times and does what is due, until
// ctx is done.
func (r *Relay) loop(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.wake()
		r.mu.Unlock()
	})
	defer stop()
	pwait2 := true
	var lastRead sim.Time // when the sockets were last found empty or read
	var spun sim.Time     // spinning in this rate window
	var rateFrom sim.Time // the arrival rate is measured over rateWindow
	fast := false         // arrivals are frequent enough to defer reading
	for {
		r.mu.Lock()
		next := r.step(time.Now())
		_, busy := r.core.Next()
		slack := min(r.core.MinDelay()/2, maxReadSlack)
		r.mu.Unlock()
		now := r.since(time.Now())
		if now-rateFrom >= sim.Time(rateWindow) {
			fast = r.io.reads*int(maxReadSlack)/int(now-rateFrom) >= 4 // 4 datagrams in a slack at least
			r.io.reads, rateFrom, spun = 0, now, 0
		}
		epfd, timeout := r.io.epfd, next-now
		if busy && fast && slack >= minReadSlack {
			epfd, timeout = r.io.quiet, min(next, lastRead+sim.Time(slack))-now
		}
		// At low rates, spin through the last spinWindow before a
		// release: waking from an idle CPU (a halted virtual CPU above
		// all) takes tens of microseconds. At most spinShare of the time
		// spins.
		spin := busy && !fast && spun < sim.Time(rateWindow)*spinShare/100
		if spin && epfd == r.io.epfd && next-now <= sim.Time(spinWindow) {
			for r.since(time.Now()) < next && ctx.Err() == nil {
			}
			spun += r.since(time.Now()) - now
			continue
		}
		if spin && timeout > sim.Time(spinWindow) {
			timeout -= sim.Time(spinWindow) // then spin, above
		}
		n, err := r.epollWait(epfd, time.Duration(timeout), &pwait2)
		if err != nil && err != syscall.EINTR {
			return os.NewSyscallError("epoll_pwait2", err)
		}
		if ctx.Err() != nil {
			return nil
		}
		if epfd == r.io.quiet {
			r.mu.Lock()
			r.step(time.Now()) // release first: reading can wait, the release cannot
			r.mu.Unlock()
			lastRead = r.since(time.Now())
			if n, err = r.epollWait(r.io.epfd, 0, &pwait2); err != nil && err != syscall.EINTR {
				return os.NewSyscallError("epoll_wait", err)
			}
		}
		r.mu.Lock()
		for _, ev := range r.io.events[:n] {
			if ev.Fd == int32(r.io.stopfd) {
				var buf [8]byte
				syscall.Read(r.io.stopfd, buf[:]) // reset it
				lastRead = 0                      // the links changed: read what came meanwhile
			} else if s := r.io.socks[ev.Fd]; s != nil && !r.readFrom(s) {
				lastRead = 0 // more waiting: read again at once
			}
		}
		r.mu.Unlock()
	}
}

// epollWait waits on epfd for at most d (0: only polls). Without
// epoll_pwait2 (Linux before 5.11) it rounds d up to the
// millisecond, as Go's own poller does.
func (r *Relay) epollWait(epfd int, d time.Duration, pwait2 *bool) (int, error) {
	d = max(d, 0)
	if *pwait2 {
		ts := syscall.NsecToTimespec(int64(d))
		n, _, errno := syscall.Syscall6(sysEpollPwait2, uintptr(epfd), uintptr(unsafe.Pointer(&r.io.events[0])), uintptr(len(r.io.events)),
			uintptr(unsafe.Pointer(&ts)), 0, 0)
		if errno != syscall.ENOSYS {
			if errno != 0 {
				return 0, errno
			}
			return int(n), nil
		}
		*pwait2 = false
	}
	ms := int((d + time.Millisecond - 1) / time.Millisecond)
	if d > time.Hour {
		ms = int(time.Hour / time.Millisecond)
	}
	return syscall.EpollWait(epfd, r.io.events[:], ms)
}

// readFrom reads the datagrams waiting on s, at most maxReadsPerWake; it
// reports whether it read them all. The caller holds r.mu.
func (r *Relay) readFrom(s *socket) (drained bool) {
	io := &r.io
	for range maxReadsPerWake {
		io.iov.Base = &io.buf[0]
		io.iov.SetLen(len(io.buf))
		io.msg = syscall.Msghdr{Name: (*byte)(unsafe.Pointer(&io.name)), Namelen: syscall.SizeofSockaddrAny, Iov: &io.iov, Control: &io.oob[0]}
		io.msg.Iovlen = 1
		io.msg.SetControllen(len(io.oob))
		n, _, errno := syscall.Syscall(syscall.SYS_RECVMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&io.msg)), syscall.MSG_DONTWAIT)
		switch errno {
		case 0:
		case syscall.EAGAIN, syscall.EINTR:
			return true
		case syscall.ECONNREFUSED:
			r.noteErr(fmt.Sprintf("the server %v is not answering (ICMP port unreachable)", r.target), errno)
			continue
		default:
			r.noteErr("reading "+s.dir.String(), errno)
			return true
		}
		io.reads++
		p := r.pool.get(int(n))
		copy(p, io.buf[:n])
		r.received(s, io.from(), p, io.oob[:io.msg.Controllen])
	}
	return false
}

// from is the sender's address in io.name (IPv4-mapped addresses as IPv4).
func (io *ioState) from() netip.AddrPort {
	switch io.name.Addr.Family {
	case syscall.AF_INET:
		sa := (*syscall.RawSockaddrInet4)(unsafe.Pointer(&io.name))
		port := (*[2]byte)(unsafe.Pointer(&sa.Port))
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), binary.BigEndian.Uint16(port[:]))
	case syscall.AF_INET6:
		sa := (*syscall.RawSockaddrInet6)(unsafe.Pointer(&io.name))
		port := (*[2]byte)(unsafe.Pointer(&sa.Port))
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), binary.BigEndian.Uint16(port[:]))
	}
	return netip.AddrPort{}
}
