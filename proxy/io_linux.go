package proxy

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"jitterlab/sim"
)

// ioState is the epoll loop's: one goroutine waits for every socket and
// for the next release in one system call. The sockets are the relay's own
// duplicates of the net package's, which are closed so that Go's network
// poller is not woken by every datagram as well.
type ioState struct {
	// sets[m] watches stopfd and the sockets of the directions whose bit
	// is clear in m (bit d: direction d's reads are deferred, see loop):
	// sets[0] every socket, sets[3] stopfd alone.
	sets   [4]int
	stopfd int // an eventfd written when ctx ends or the links change (see wake)
	socks  map[int32]*socket
	events [64]syscall.EpollEvent

	// recvmmsg's and sendmmsg's arguments, reused: relaying allocates
	// nothing. rbuf holds batch datagrams of up to MaxPacket bytes (only
	// the pages a datagram touches are ever resident).
	rbuf  []byte
	rmsg  [batch]mmsghdr
	riov  [batch]syscall.Iovec
	roob  [batch][oobSize]byte
	rname [batch]syscall.RawSockaddrAny
	wmsg  [batch]mmsghdr
	wiov  [batch]syscall.Iovec
	wname [batch]syscall.RawSockaddrInet6 // or RawSockaddrInet4 (see setAddr)
	v6    bool                            // the listen socket is IPv6
	reads [2]int                          // datagrams read per direction (for the arrival rate)
	tuned int                             // the thread tuneThread last tuned
	attr  unix.SchedAttr
}

// mmsghdr is struct mmsghdr: a message and the bytes the kernel moved
// (Go pads it to the C layout on every architecture).
type mmsghdr struct {
	hdr syscall.Msghdr
	n   uint32
}

const (
	// batch is the most datagrams one recvmmsg or sendmmsg moves.
	batch = 32
	// oobSize holds SCM_TIMESTAMPNS and SO_RXQ_OVFL (56 bytes on 64-bit).
	oobSize = 128
	// maxReadsPerWake bounds the datagrams read from one socket per
	// wake-up, so a flood on one socket does not hold up releases and
	// other sockets.
	maxReadsPerWake = 2 * batch
)

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
	for m, set := range r.io.sets {
		if !watches(m, s.dir) {
			continue
		}
		if err := syscall.EpollCtl(set, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
			syscall.Close(fd) // which takes it out of every set
			s.fd = -1
			return os.NewSyscallError("epoll_ctl", err)
		}
	}
	r.io.socks[int32(fd)] = s
	return nil
}

// watches says whether set m watches the sockets of direction d.
func watches(m int, d Dir) bool { return m&(1<<d) == 0 }

func isV6(fd int) bool {
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		return false
	}
	_, ok := sa.(*syscall.SockaddrInet6)
	return ok
}

func (r *Relay) openPoller() error {
	io := &r.io
	io.sets, io.stopfd = [4]int{-1, -1, -1, -1}, -1
	err := func() error {
		efd, _, errno := syscall.Syscall(syscall.SYS_EVENTFD2, 0, syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if errno != 0 {
			return os.NewSyscallError("eventfd2", errno)
		}
		io.stopfd = int(efd)
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(efd)}
		for m := range io.sets {
			set, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
			if err != nil {
				return os.NewSyscallError("epoll_create1", err)
			}
			io.sets[m] = set
			if err := syscall.EpollCtl(set, syscall.EPOLL_CTL_ADD, io.stopfd, &ev); err != nil {
				return os.NewSyscallError("epoll_ctl", err)
			}
		}
		return nil
	}()
	if err != nil {
		io.close()
		return err
	}
	io.socks = map[int32]*socket{}
	io.rbuf = make([]byte, batch*MaxPacket)
	return nil
}

// close closes the loop's own descriptors that are open.
func (io *ioState) close() {
	for _, fd := range append(io.sets[:], io.stopfd) {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
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
		r.io.close()
	}
}

// unwatch stops reading s and leaves it open (detach closes it). The
// caller holds r.mu.
func (r *Relay) unwatch(s *socket) {
	if s.fd < 0 {
		return
	}
	for m, set := range r.io.sets {
		if watches(m, s.dir) {
			syscall.EpollCtl(set, syscall.EPOLL_CTL_DEL, s.fd, nil)
		}
	}
	delete(r.io.socks, int32(s.fd))
}

// detach stops watching s and closes it. The caller holds r.mu.
func (r *Relay) detach(s *socket) {
	if s.fd < 0 {
		s.conn.Close() // never attached, or detached already
		return
	}
	delete(r.io.socks, int32(s.fd))
	syscall.Close(s.fd) // which takes it out of every set
	s.fd = -1
}

// writeOut writes the longest prefix of due, at most len(errs) copies,
// that goes out of one socket, with one sendmmsg, and sets errs[i] to
// copy i's error (nil: written). It returns how many it wrote or failed.
func (r *Relay) writeOut(due []Delivery, errs []error) int {
	s := r.socketFor(&due[0])
	if s == nil {
		errs[0] = errNoSocket
		return 1
	}
	io := &r.io
	n := 0
	for n < len(due) && n < len(errs) && n < batch && (n == 0 || r.socketFor(&due[n]) == s) {
		p := due[n].Payload
		iov := &io.wiov[n]
		if len(p) > 0 {
			iov.Base = &p[0]
		} else {
			iov.Base = nil
		}
		iov.SetLen(len(p))
		m := &io.wmsg[n]
		m.hdr = syscall.Msghdr{Iov: iov}
		m.hdr.Iovlen = 1
		if s == r.listen { // replies go to each client's address
			m.hdr.Name = (*byte)(unsafe.Pointer(&io.wname[n]))
			m.hdr.Namelen = io.setAddr(n, due[n].Addr)
		}
		n++
	}
	for i := 0; i < n; {
		k, _, errno := syscall.Syscall6(unix.SYS_SENDMMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&io.wmsg[i])), uintptr(n-i),
			syscall.MSG_DONTWAIT, 0, 0)
		switch {
		case errno == syscall.EINTR:
		case errno != 0: // the first message failed: the kernel sent none
			errs[i] = errno
			i++
		case k == 0: // cannot happen: sendmmsg sends one or fails
			errs[i] = syscall.EIO
			i++
		default:
			for j := i; j < i+int(k); j++ {
				errs[j] = nil
			}
			i += int(k)
		}
	}
	return n
}

// socketFor is the socket a copy leaves from, or nil when its flow has
// none. The caller holds r.mu.
func (r *Relay) socketFor(d *Delivery) *socket {
	if d.Dir == Down {
		return r.listen
	}
	return r.upstream[d.Flow]
}

// setAddr writes to as message i's address for the listen socket's family
// and returns its length.
func (io *ioState) setAddr(i int, to netip.AddrPort) uint32 {
	var port [2]byte
	binary.BigEndian.PutUint16(port[:], to.Port())
	if io.v6 {
		sa := &io.wname[i]
		*sa = syscall.RawSockaddrInet6{Family: syscall.AF_INET6, Addr: to.Addr().As16()}
		sa.Port = *(*uint16)(unsafe.Pointer(&port))
		return syscall.SizeofSockaddrInet6
	}
	sa := (*syscall.RawSockaddrInet4)(unsafe.Pointer(&io.wname[i]))
	*sa = syscall.RawSockaddrInet4{Family: syscall.AF_INET}
	if a := to.Addr().Unmap(); a.Is4() { // an IPv4 socket hears IPv4 clients only
		sa.Addr = a.As4()
	}
	sa.Port = *(*uint16)(unsafe.Pointer(&port))
	return syscall.SizeofSockaddrInet4
}

// Deferred reading: while datagrams come often in a direction (4 or
// more per maxReadSlack), copies are in flight, and every link of that
// direction delays by at least MinDelay, the loop need not wake for each
// arrival there. The kernel stamps each datagram's arrival, so reading it
// up to half that minimum later still schedules it exactly; the loop then
// wakes only for releases, and reads the direction's sockets (a batch per
// recvmmsg) once every readSlack.
const (
	spinWindow   = 100 * time.Microsecond
	spinShare    = 5 // per cent of the time at most
	maxReadSlack = 2 * time.Millisecond
	rateWindow   = 100 * time.Millisecond
	minReadSlack = 100 * time.Microsecond // below this, wake for every arrival
)

// yieldEvery: the loop yields to Go's scheduler this often. A goroutine
// that never does is preempted by the runtime every 10 ms, and taken off
// its P while it waits in epoll_pwait2, which wakes the runtime's monitor
// thread every 20 µs for a while: a quarter of the relay's CPU at
// 10,000 datagrams/s.
const yieldEvery = 5 * time.Millisecond

// tuneThread readies the calling thread for precise wake-ups. It gets
// 1 ns of timer slack: by default the kernel may end a thread's timed wait
// up to 50 µs late to merge wake-ups, which every release would pay. And
// under the fair scheduler it asks for the shortest time slice (100 µs,
// Linux 6.12 and later; the nice value stays): a woken thread with a
// shorter slice gets an earlier deadline, so it runs at once instead of
// waiting for the task on its CPU to use up a default slice of
// milliseconds. Neither needs a privilege; older kernels ignore the slice.
// (Locking the loop to one thread instead would make every yield a
// hand-over between threads.)
func (io *ioState) tuneThread() {
	tid := syscall.Gettid()
	if tid == io.tuned {
		return
	}
	io.tuned = tid
	unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	a := &io.attr // sched_getattr and sched_setattr by hand: x/sys's wrappers allocate
	*a = unix.SchedAttr{}
	_, _, errno := syscall.Syscall6(unix.SYS_SCHED_GETATTR, 0, uintptr(unsafe.Pointer(a)), unix.SizeofSchedAttr, 0, 0, 0)
	if errno == 0 && (a.Policy == unix.SCHED_NORMAL || a.Policy == unix.SCHED_BATCH) && a.Runtime != uint64(minSlice) {
		a.Size, a.Flags, a.Runtime = unix.SizeofSchedAttr, 0, uint64(minSlice)
		syscall.Syscall(unix.SYS_SCHED_SETATTR, 0, uintptr(unsafe.Pointer(a)), 0)
	}
}

// minSlice is the shortest slice the fair scheduler grants.
const minSlice = 100 * time.Microsecond

// loop waits for datagrams and release times and does what is due, until
// ctx is done.
func (r *Relay) loop(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.wake()
		r.mu.Unlock()
	})
	defer stop()
	r.io.tuneThread()
	pwait2 := true
	var (
		lastRead [2]sim.Time // deferring: when each direction was last read
		fast     [2]bool     // arrivals are frequent enough to defer reading
		lastDue  sim.Time    // the time of the last copy released
		releases int         // copies released in this rate window
		dense    bool        // they came about once per release window or more often
		spun     sim.Time    // spinning in this rate window
		rateFrom sim.Time    // the arrival rate is measured over rateWindow
		yielded  sim.Time    // the loop last yielded to Go's scheduler
		slack    [2]sim.Time
	)
	expect := maxTime // the loop means to be back here by then: the next release's time
	var (
		waitFrom    sim.Time // when the loop last began to wait
		interrupted bool     // that wait ended early, for a signal
	)
	for {
		r.mu.Lock()
		wall := time.Now()
		if r.arrived != maxTime {
			// A datagram it waited for came at r.arrived (or before
			// the wait began): the loop meant to be back then.
			expect = min(expect, max(r.arrived, waitFrom))
			r.arrived = maxTime
		}
		r.stalled = r.since(wall)-expect > sim.Time(StallAfter) // kept from the CPU
		next := r.step(wall)                                    // release first: reading can wait, the release cannot
		r.stalled = false
		if len(r.due) > 0 {
			lastDue = r.due[len(r.due)-1].Due
			releases += len(r.due)
		}
		window := sim.Time(r.opts.ReleaseWindow)
		_, busy := r.core.Next()
		for d := range slack {
			slack[d] = sim.Time(min(r.core.MinDelay(Dir(d))/2, maxReadSlack))
		}
		r.mu.Unlock()
		now := r.since(time.Now())
		if now-yielded >= sim.Time(yieldEvery) {
			runtime.Gosched()
			r.io.tuneThread() // on the thread the loop goes on with
			yielded = now
		}
		if now-rateFrom >= sim.Time(rateWindow) {
			for d := range fast {
				fast[d] = r.io.reads[d]*int(maxReadSlack)/int(now-rateFrom) >= 4 // 4 datagrams in a slack at least
				r.io.reads[d] = 0
			}
			dense = window > 0 && releases*int(window)*5/4 >= int(now-rateFrom) // a copy per 1.25 windows or more
			rateFrom, spun, releases = now, 0, 0
		}
		often := fast[Up] || fast[Down]
		if busy && dense {
			// Coalesce: wake for releases at most once per 2 × window
			// of release times, never more than window after a copy's.
			// (Only while copies come about once per window or more
			// often: sparser, this would make them late without sharing
			// wake-ups.)
			next = min(max(next, lastDue+2*window), next+window)
		}
		expect = next
		deferred, until := 0, next
		for d := range fast {
			if busy && fast[d] && slack[d] >= sim.Time(minReadSlack) {
				deferred |= 1 << d
				until = min(until, lastRead[d]+slack[d])
			}
		}
		set, timeout := r.io.sets[deferred], until-now
		if deferred != 0 && timeout <= 0 { // read every socket now
			set, timeout = r.io.sets[0], 0
			lastRead = [2]sim.Time{now, now}
		}
		// At low rates, spin through the last spinWindow before a
		// release: waking from an idle CPU (a halted virtual CPU above
		// all) takes tens of microseconds. At most spinShare of the time
		// spins.
		spin := busy && !often && spun < sim.Time(rateWindow)*spinShare/100
		if spin && next-now <= sim.Time(spinWindow) {
			for r.since(time.Now()) < next && ctx.Err() == nil {
			}
			spun += r.since(time.Now()) - now
			continue
		}
		if spin && timeout > sim.Time(spinWindow) {
			timeout -= sim.Time(spinWindow) // then spin, above
		}
		if !interrupted || deferred != 0 { // (a deferred direction was not waited for)
			waitFrom = now
		}
		n, err := r.epollWait(set, time.Duration(timeout), &pwait2)
		if err != nil && err != syscall.EINTR {
			return os.NewSyscallError("epoll_pwait2", err)
		}
		// A signal ends a wait early (Go's preemption; a stopped and
		// continued process): the next wait goes on with this one.
		interrupted = err == syscall.EINTR
		if ctx.Err() != nil {
			return nil
		}
		r.mu.Lock()
		for _, ev := range r.io.events[:n] {
			if ev.Fd == int32(r.io.stopfd) {
				var buf [8]byte
				syscall.Read(r.io.stopfd, buf[:]) // reset it
				lastRead = [2]sim.Time{}          // the links changed: read what came meanwhile
			} else if s := r.io.socks[ev.Fd]; s != nil && !r.readFrom(s) {
				lastRead = [2]sim.Time{} // more waiting: read again at once
			}
		}
		r.mu.Unlock()
	}
}

// maxRawWait: waits this short keep the goroutine's P (RawSyscall6). Go
// hands the P of a goroutine blocked in a system call to another thread
// after 20 µs when no P is idle (GOMAXPROCS=1, under taskset -c 1 for
// one), and after 10 ms in any case, so every wait would cost two more
// thread switches and set the runtime's monitor thread polling every
// 20 µs for a while; holding the P delays the process's other goroutines
// by at most this much instead, and only when no other P is free (the
// runtime's preemption signal ends the wait early: EINTR).
const maxRawWait = 10 * time.Millisecond

// epollWait waits on epfd for at most d (0: only polls). Without
// epoll_pwait2 (Linux before 5.11) it rounds d up to the
// millisecond, as Go's own poller does.
func (r *Relay) epollWait(epfd int, d time.Duration, pwait2 *bool) (int, error) {
	d = max(d, 0)
	if *pwait2 {
		ts := syscall.NsecToTimespec(int64(d))
		call := syscall.Syscall6
		if d <= maxRawWait {
			call = syscall.RawSyscall6
		}
		n, _, errno := call(sysEpollPwait2, uintptr(epfd), uintptr(unsafe.Pointer(&r.io.events[0])), uintptr(len(r.io.events)),
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

// readFrom reads the datagrams waiting on s, batch at a time with
// recvmmsg and at most maxReadsPerWake; it reports whether it read them
// all. The caller holds r.mu.
func (r *Relay) readFrom(s *socket) (drained bool) {
	io := &r.io
	for got := 0; got < maxReadsPerWake; {
		for i := range io.rmsg {
			iov := &io.riov[i]
			iov.Base = &io.rbuf[i*MaxPacket]
			iov.SetLen(MaxPacket)
			m := &io.rmsg[i]
			m.hdr = syscall.Msghdr{Name: (*byte)(unsafe.Pointer(&io.rname[i])), Namelen: syscall.SizeofSockaddrAny, Iov: iov,
				Control: &io.roob[i][0]}
			m.hdr.Iovlen = 1
			m.hdr.SetControllen(oobSize)
		}
		n, _, errno := syscall.Syscall6(unix.SYS_RECVMMSG, uintptr(s.fd), uintptr(unsafe.Pointer(&io.rmsg[0])), batch,
			syscall.MSG_DONTWAIT, 0, 0)
		switch errno {
		case 0:
		case syscall.EAGAIN, syscall.EINTR:
			return true
		case syscall.ECONNREFUSED:
			r.noteErr(fmt.Sprintf("the server %v is not answering (ICMP port unreachable)", r.target), errno)
			got++
			continue
		default:
			r.noteErr("reading "+s.dir.String(), errno)
			return true
		}
		at := readClock(readNow)
		for i := range int(n) {
			m := &io.rmsg[i]
			p := r.pool.get(int(m.n))
			copy(p, io.rbuf[i*MaxPacket:][:m.n])
			r.received(s, io.from(i), p, io.roob[i][:m.hdr.Controllen], at)
		}
		io.reads[s.dir] += int(n)
		got += int(n)
		if n < batch {
			return true // recvmmsg stops when the socket is empty
		}
	}
	return false
}

// from is the sender's address of message i (IPv4-mapped addresses as IPv4).
func (io *ioState) from(i int) netip.AddrPort {
	name := &io.rname[i]
	switch name.Addr.Family {
	case syscall.AF_INET:
		sa := (*syscall.RawSockaddrInet4)(unsafe.Pointer(name))
		port := (*[2]byte)(unsafe.Pointer(&sa.Port))
		return netip.AddrPortFrom(netip.AddrFrom4(sa.Addr), binary.BigEndian.Uint16(port[:]))
	case syscall.AF_INET6:
		sa := (*syscall.RawSockaddrInet6)(unsafe.Pointer(name))
		port := (*[2]byte)(unsafe.Pointer(&sa.Port))
		return netip.AddrPortFrom(netip.AddrFrom16(sa.Addr).Unmap(), binary.BigEndian.Uint16(port[:]))
	}
	return netip.AddrPort{}
}
