package testtool

import (
	"sync"
	"sync/atomic"
	"testing"
)

// A missing tool skips under plain 'go test' and fails under CI's
// JITTERLAB_REQUIRE_TOOLS=1.
func TestMissingToolSkipsOrFails(t *testing.T) {
	for _, required := range []string{"", "1"} {
		t.Setenv("JITTERLAB_REQUIRE_TOOLS", required)
		ft := &fakeTB{TB: t}
		func() {
			defer func() { recover() }() // Skipf and Fatalf stop the goroutine in a real test
			Need(ft, "no-such-tool-jitterlab", "none")
		}()
		if required == "1" && !ft.failed || required == "" && !ft.skipped {
			t.Errorf("JITTERLAB_REQUIRE_TOOLS=%q: failed %v skipped %v", required, ft.failed, ft.skipped)
		}
	}
	if p := Need(t, "sh", "dash"); p == "" {
		t.Error("sh not found")
	}
}

type fakeTB struct {
	testing.TB
	failed, skipped bool
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Fatalf(string, ...any) {
	f.failed = true
	panic("fatal")
}
func (f *fakeTB) Skipf(string, ...any) {
	f.skipped = true
	panic("skip")
}

// A Memo calls its function once per key, and hands the same result to
// every caller, in parallel too.
func TestMemoCallsOncePerKey(t *testing.T) {
	var m Memo[int]
	var calls atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := []string{"a", "b"}[i%2]
			v, err := m.Do(key, func() (int, error) { calls.Add(1); return len(key), nil })
			if v != 1 || err != nil {
				t.Errorf("Do(%q) = %d, %v", key, v, err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 2 {
		t.Errorf("%d calls for 2 keys", calls.Load())
	}
}
