package control

import (
	"fmt"
	"net/netip"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// Changes due at the same time apply in the order given — the file's
// (issue 27.8): five entries at 0s end on the last, every time, and so do
// three at 500ms and four at 1s. synctest's clock; 20 trials.
func TestSameTimeChangesApplyInFileOrder(t *testing.T) {
	for trial := range 20 {
		synctest.Test(t, func(t *testing.T) {
			c, r := newConditions(t)
			defer c.Stop()
			var order []string
			c.Observe(func(a Applied) { order = append(order, a.Set[0].Value) }) // under c.mu
			// The relay as the timer's goroutine left it.
			latency := func() time.Duration {
				c.mu.Lock()
				defer c.mu.Unlock()
				return r.up.Latency
			}
			body := ""
			var want []string
			for i := range 12 {
				at := []string{"0s", "0s", "0s", "0s", "0s", "500ms", "500ms", "500ms", "1s", "1s", "1s", "1s"}[i]
				v := fmt.Sprintf("%dms", i+1)
				body += fmt.Sprintf("[[timeline]]\nat = %q\nup.latency = %q\n", at, v)
				want = append(want, v)
			}
			changes, err := testRegistry.ParseTimeline("t.toml", []byte(body), netip.AddrPort{})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Schedule(changes); err != nil {
				t.Fatal(err)
			}
			time.Sleep(600 * time.Millisecond)
			synctest.Wait()
			if got := latency(); got != 8*time.Millisecond {
				t.Errorf("trial %d: at 600ms up.latency %v; want 8ms (the last at 500ms)", trial, got)
			}
			time.Sleep(time.Second)
			synctest.Wait()
			c.mu.Lock()
			defer c.mu.Unlock()
			if !slices.Equal(order, want) {
				t.Errorf("trial %d: applied %v; want %v", trial, order, want)
			}
			if r.up.Latency != 12*time.Millisecond || len(c.pending) != 0 {
				t.Errorf("trial %d: ends on %v with %d pending; want the file's last, 12ms", trial, r.up.Latency, len(c.pending))
			}
		})
	}
}
