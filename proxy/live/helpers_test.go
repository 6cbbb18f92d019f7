package live

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"jitterlab/internal/testtool"
)

// echoServer is a UDP echo server on loopback for the test's lifetime.
var echoServer = testtool.LoopbackEcho

// fakeClock is a Clock a test moves by hand: Advance fires the tickers
// and the timers due, in time order; nothing ever sleeps.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c      chan time.Time
	at     time.Time
	every  time.Duration // 0: once
	closed bool
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 26, 14, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) add(at time.Time, every time.Duration) *fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: make(chan time.Time, 1), at: at, every: every}
	c.timers = append(c.timers, t)
	return t
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time { return c.add(c.Now().Add(d), 0).c }

func (c *fakeClock) NewTicker(d time.Duration) Ticker {
	return &fakeTicker{c, c.add(c.Now().Add(d), d)}
}

type fakeTicker struct {
	c *fakeClock
	*fakeTimer
}

func (t *fakeTicker) Stop() {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.closed = true
}

// waitTimers waits until n tickers and timers are pending: the run's
// goroutines have asked for them, so an Advance fires them.
func (c *fakeClock) waitTimers(t *testing.T, n int) {
	t.Helper()
	for {
		c.mu.Lock()
		k := 0
		for _, x := range c.timers {
			if !x.closed {
				k++
			}
		}
		c.mu.Unlock()
		if k >= n {
			return
		}
		runtime.Gosched() // the test's timeout bounds a run that never asks
	}
}

// Advance moves the clock d on, firing what falls due on the way (a
// ticker whose channel is full drops the tick, as time.Ticker does).
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	end := c.now.Add(d)
	for {
		var next *fakeTimer
		for _, t := range c.timers {
			if !t.closed && !t.at.After(end) && (next == nil || t.at.Before(next.at)) {
				next = t
			}
		}
		if next == nil {
			break
		}
		c.now = next.at
		select {
		case next.c <- next.at:
		default:
		}
		if next.every > 0 {
			next.at = next.at.Add(next.every)
		} else {
			next.closed = true
		}
	}
	c.now = end
}

// The fake clock fires a ticker at each period and a timer once, at
// their times, and only when advanced.
func TestFakeClockFiresInOrder(t *testing.T) {
	c := newFakeClock()
	t0 := c.Now()
	tick := c.NewTicker(100 * time.Millisecond)
	after := c.After(250 * time.Millisecond)
	c.Advance(99 * time.Millisecond)
	select {
	case <-tick.C():
		t.Fatal("a tick before its period")
	default:
	}
	c.Advance(1 * time.Millisecond)
	if got := (<-tick.C()).Sub(t0); got != 100*time.Millisecond {
		t.Errorf("first tick at +%v, want +100ms", got)
	}
	c.Advance(150 * time.Millisecond)
	if got := (<-after).Sub(t0); got != 250*time.Millisecond {
		t.Errorf("After(250ms) at +%v", got)
	}
	if got := (<-tick.C()).Sub(t0); got != 200*time.Millisecond {
		t.Errorf("second tick at +%v, want +200ms", got)
	}
	tick.Stop()
	c.Advance(time.Second)
	select {
	case <-tick.C():
		t.Error("a stopped ticker ticked")
	default:
	}
}
