package telemetry

import (
	"errors"
	"net"
	"sync"
	"time"
)

// readBuffer is the socket's receive buffer asked for, in bytes.
const readBuffer = 1 << 20

// Listener receives datagrams on a UDP socket into a [Collector]: the
// thin shell that owns the socket, its goroutine ([Listener.Run]) and the
// clock, which the caller injects (time.Now in a command, a fake in tests).
type Listener struct {
	conn   *net.UDPConn
	now    func() time.Time
	report func(*Error)

	mu sync.Mutex
	c  *Collector

	// OnDatagram, if set before Run, gets each datagram decoded, with its
	// arrival, on Run's goroutine (valid during the call): a proxy
	// recording's hook (proxy/record's Switch.Telemetry).
	OnDatagram func(at time.Time, d *Datagram)
}

// Listen opens the socket at addr (host:port; port 0 picks one). now
// stamps each datagram's arrival; report, if not nil, is called from Run
// with the first refusal of each class, once.
func Listen(addr string, now func() time.Time, opt Options, report func(*Error)) (*Listener, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, err
	}
	conn, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, err
	}
	// Room for a burst (a game catching up after a hitch) while Run is
	// not on a CPU; the kernel caps it at its own maximum.
	conn.SetReadBuffer(readBuffer)
	return &Listener{conn: conn, now: now, report: report, c: NewCollector(opt)}, nil
}

// Addr is the socket's address (the port it got, when given 0).
func (l *Listener) Addr() *net.UDPAddr { return l.conn.LocalAddr().(*net.UDPAddr) }

// Run reads datagrams until Close, then returns nil; or a socket error.
// One buffer of MaxSize+1 bytes serves every datagram: a datagram that
// fills it is longer than MaxSize (the kernel cut the rest) and refused.
func (l *Listener) Run() error {
	buf := make([]byte, MaxSize+1)
	var d Datagram
	for {
		n, _, err := l.conn.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		at := l.now()
		l.mu.Lock()
		decoded, first := l.c.CollectInto(at, buf[:n], &d)
		l.mu.Unlock()
		if first != nil && l.report != nil {
			l.report(first)
		}
		if decoded && l.OnDatagram != nil {
			l.OnDatagram(at, &d)
		}
	}
}

// Close closes the socket: Run returns.
func (l *Listener) Close() error { return l.conn.Close() }

// Counts is the account so far.
func (l *Listener) Counts() Counts {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c.Counts()
}

// Frames appends the frames kept to dst, oldest first.
func (l *Listener) Frames(dst []Received[Frame]) []Received[Frame] {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c.Frames(dst)
}

// FramesAfter is [Collector.FramesAfter]: the frames decoded after the
// first n, and how many were decoded in all.
func (l *Listener) FramesAfter(dst []Received[Frame], n uint64) ([]Received[Frame], uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c.FramesAfter(dst, n)
}

// Ticks appends the ticks kept to dst, oldest first.
func (l *Listener) Ticks(dst []Received[Tick]) []Received[Tick] {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.c.Ticks(dst)
}
