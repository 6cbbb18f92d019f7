package main

import (
	"strings"
	"testing"
	"time"
)

// More clients than --max-clients evict one another on every datagram;
// the counter lines say so as it happens, naming the flag, instead of
// only the summary's count at the end.
func TestProxySaysWhenClientsEvictOneAnother(t *testing.T) {
	t.Parallel() // long and independent of the others
	exe := buildLab(t)
	p := startProxy(t, exe, "--to", echoServer(t), "--max-clients", "1", "--every", "200ms")
	a, b := p.client(t), p.client(t)
	for range 10 {
		a.Write([]byte("a"))
		b.Write([]byte("b"))
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // a counter line after the evictions
	out := p.stop(t)
	if !strings.Contains(out, "evicted") || !strings.Contains(out, "--max-clients 1") {
		t.Fatalf("no word of the evictions while running:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--max-clients") && !strings.Contains(l, "clients 1  up") {
			t.Errorf("the warning is not on a counter line: %q", l)
		}
	}
}
