package proxyscreen

import (
	"math"
	"testing"
	"time"
)

// rateProxy is a relay at a fixed packet rate whose up delays are
// early ms until switch and late ms after it; only the test moves it on.
type rateProxy struct {
	*fakeProxy
	perTick     int // copies per 100 ms
	early, late float64
	switchAt    time.Duration
}

func (r *rateProxy) tick() {
	r.snap.Wall += 100 * time.Millisecond
	ms := r.early
	if r.snap.Wall > r.switchAt {
		ms = r.late
	}
	u := &r.snap.Up
	u.DelaysMs = u.DelaysMs[:0]
	for range r.perTick {
		u.In++
		u.Delivered++
		u.DelaysMs = append(u.DelaysMs, ms)
	}
}

// The realised delay p50 and p99 cover the last 10 s (issue 12,
// proxyscreen 2) at any packet rate, not the newest 16,384 copies: at
// 5,000 copies/s, 8 s of 10 ms then 2 s of 30 ms are p50 10 ms and p99
// 30 ms (the newest 16,384 copies, 3.3 s, would give p50 30 ms).
func TestProxyRealisedPercentilesCoverTheWindowAtAnyRate(t *testing.T) {
	for _, rate := range []int{5_000, 50_000} {
		r := &rateProxy{fakeProxy: newFakeProxy(t), perTick: rate / 10, early: 10, late: 30}
		v := New(r, Options{})
		// 20 s of traffic: 10 s that fall out of the window (50 ms), then
		// 8 s of 10 ms and 2 s of 30 ms.
		r.early, r.switchAt = 50, 10*time.Second
		for range 100 {
			r.tick()
			v.advance(0)
		}
		r.early, r.switchAt = 10, 18*time.Second
		for range 100 {
			r.tick()
			v.advance(0)
		}
		got := v.realDelays(0, v.realFrom())
		// The histogram's buckets are within 0.05 % of the value.
		if math.Abs(got[0]-10) > 0.01 || math.Abs(got[1]-30) > 0.02 {
			t.Errorf("%d copies/s, the last 10 s 8 s of 10 ms then 2 s of 30 ms: realised p50 %.3f ms, p99 %.3f ms; want 10 and 30", rate, got[0], got[1])
		}
	}
}

// A delay's bucket midpoint is within 1/2048 of it (0.5 µs below
// 1.024 ms), from a microsecond to an hour, and the window keeps no more
// than its seconds: memory bounded at any rate.
func TestDelayWindowPrecisionAndBound(t *testing.T) {
	for ms := 0.001; ms < 3.6e6; ms *= 1.0007 {
		mid := delayMid(delayBucket(ms))
		if tol := max(ms/2048, 0.0005); math.Abs(mid-ms) > tol*1.000001 {
			t.Fatalf("%g ms: bucket midpoint %g ms, off by more than %g", ms, mid, tol)
		}
	}
	var w delayWindow
	delays := make([]float64, 5000)
	for i := range delays {
		delays[i] = 20 + float64(i%997)/100
	}
	for tick := range 600 { // a minute at 50,000 copies/s
		w.add(time.Duration(tick+1)*100*time.Millisecond, delays)
	}
	if n := len(w.secs); n > int(realSpan/time.Second)+2 {
		t.Errorf("the window holds %d seconds after a minute; want at most %d", n, int(realSpan/time.Second)+2)
	}
	for _, s := range w.secs {
		if len(s.counts) > 997 {
			t.Errorf("a second holds %d buckets for 997 distinct delays", len(s.counts))
		}
	}
}
