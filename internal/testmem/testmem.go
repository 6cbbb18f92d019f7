package testmem

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

const heapObjects = "/memory/classes/heap/objects:bytes"

func heap() uint64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Within runs fn with the Go runtime's memory limit set to limit bytes
// (so the collector works hard to stay under it) and fails t when the
// heap grew by more than limit while fn ran. When the heap passes four
// times the limit the process panics at once: a regression ends the test
// run instead of eating the machine. It returns the peak growth.
func Within(t testing.TB, limit uint64, what string, fn func()) uint64 {
	t.Helper()
	runtime.GC()
	base := heap()
	old := debug.SetMemoryLimit(int64(base + limit))
	defer debug.SetMemoryLimit(old)
	var mu sync.Mutex
	var peak uint64
	measure := func() {
		h := heap()
		grown := uint64(0)
		if h > base {
			grown = h - base
		}
		mu.Lock()
		peak = max(peak, grown)
		mu.Unlock()
		if grown > 4*limit {
			panic(fmt.Sprintf("%s: the heap grew by %d MB, over four times its bound of %d MB: stopping before the machine swaps",
				what, grown>>20, limit>>20))
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				measure()
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	measure()
	if peak > limit {
		t.Errorf("%s: the heap grew by %.1f MB; the bound is %.1f MB", what, float64(peak)/(1<<20), float64(limit)/(1<<20))
	}
	return peak
}
