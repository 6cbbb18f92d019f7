package telemetry

import (
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// listenLoopback starts a Listener on a loopback port with a fake clock
// that moves 1 ms a datagram (1,000/s: under the rate), counting reports by
// class; stop closes it and waits for Run.
func listenLoopback(t *testing.T, opt Options) (l *Listener, reports func() map[Class]int, stop func()) {
	t.Helper()
	var ticks atomic.Int64
	now := func() time.Time { return t0.Add(time.Duration(ticks.Add(1)) * time.Millisecond) }
	var mu sync.Mutex
	got := map[Class]int{}
	l, err := Listen("127.0.0.1:0", now, opt, func(e *Error) {
		mu.Lock()
		got[e.Class]++
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- l.Run() }()
	reports = func() map[Class]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[Class]int{}
		for k, v := range got {
			out[k] = v
		}
		return out
	}
	return l, reports, func() {
		l.Close()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
}

// waitCounted waits until the listener has counted n datagrams (a deadline
// of seconds only guards against a hang; nothing is timed).
func waitCounted(t *testing.T, l *Listener, n uint64) Counts {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c := l.Counts()
		if c.Total() >= n {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("counted %d of %d datagrams sent", c.Total(), n)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// A flood of 10,000 bad datagrams over a real socket, datagrams over
// MaxSize among them: every one counted in its class, each class reported
// once, the listener's heap no bigger after than before; then a frame
// still decodes.
func TestListenerFloodOverUDP(t *testing.T) {
	const n, batch = 10_000, 100 // batches a socket buffer of 212,992 bytes (Linux's default cap) holds, so none is lost
	l, reports, stop := listenLoopback(t, Options{})
	defer stop()
	conn, err := net.DialUDP("udp", nil, l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 0, MaxSize+200)
	before := heapInUse()
	for sent := 0; sent < n; {
		for range batch {
			if _, err := conn.Write(garbage(r, buf)); err != nil {
				t.Fatal(err)
			}
			sent++
		}
		waitCounted(t, l, uint64(sent))
	}
	grew := int64(heapInUse()) - int64(before)
	got := l.Counts()
	if got.Total() != n || got.Refused[ClassOverRate] != 0 {
		t.Fatalf("counted %d of %d: %s", got.Total(), n, got.Summary())
	}
	if got.Refused[ClassTooLong] == 0 {
		t.Errorf("no datagram over %d bytes counted: %s", MaxSize, got.Summary())
	}
	rep := reports()
	for cl, k := range got.Refused {
		if k > 0 && rep[Class(cl)] != 1 {
			t.Errorf("class %q: %d refused, reported %d times", Class(cl), k, rep[Class(cl)])
		}
	}
	if grew > 64<<10 {
		t.Errorf("the heap grew by %d bytes over the flood", grew)
	}
	conn.Write([]byte(frameJSON))
	waitCounted(t, l, n+1)
	if f := l.Frames(nil); len(f) == 0 || f[len(f)-1].D != frameWant {
		t.Fatalf("the frame after the flood: %+v", f)
	}
	t.Logf("%s; heap grew by %d bytes", got.Summary(), grew)
}

// OnDatagram gets every datagram decoded, with its arrival, and nothing
// refused.
func TestListenerHandsDecodedDatagramsOver(t *testing.T) {
	l, err := Listen("127.0.0.1:0", func() time.Time { return t0 }, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []Datagram
	l.OnDatagram = func(at time.Time, d *Datagram) {
		if !at.Equal(t0) {
			t.Errorf("arrival %v, want the clock's %v", at, t0)
		}
		mu.Lock()
		got = append(got, *d)
		mu.Unlock()
	}
	done := make(chan error, 1)
	go func() { done <- l.Run() }()
	conn, err := net.DialUDP("udp", nil, l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	frame, _ := AppendFrame(nil, &Frame{TS: 1, Frame: 9, SendIntervalS: 0.05})
	tick, _ := AppendTick(nil, &Tick{TS: 2, Tick: 4})
	for _, b := range [][]byte{frame, []byte("{not json"), tick} {
		conn.Write(b)
	}
	for deadline := time.Now().Add(5 * time.Second); l.Counts().Total() < 3 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond) // loopback: the listener's goroutine reads what is sent
	}
	l.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].Kind != KindFrame || got[0].Frame.Frame != 9 || got[1].Kind != KindTick || got[1].Tick.Tick != 4 {
		t.Errorf("handed over %+v: want the frame and the tick", got)
	}
}
