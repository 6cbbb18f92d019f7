package proxyscreen

import (
	"strings"
	"testing"
	"time"
)

// Before any packet, every realised figure of the box is a dash: the
// burst length and the jitter too (they read 0 and 0.0 beside a loss of
// –): no packets have no loss runs and no transit differences.
func TestProxyRealisedRowBeforeAnyPacketIsDashes(t *testing.T) {
	f := newFakeProxy(t)
	v, screen := openProxy(f, Options{}, 120, 40, 0)
	for range 20 {
		f.snap.Wall += 100 * time.Millisecond
		v.advance(0)
	}
	text := drawProxy(v, screen)
	var real []string
	for _, l := range strings.Split(text, "\n") {
		if i := strings.Index(l, "   real "); i >= 0 {
			real = append(real, l[i:])
		}
	}
	if len(real) != 2 {
		t.Fatalf("want a real row per direction:\n%s", text)
	}
	for _, r := range real {
		fields := strings.Fields(strings.Trim(r, "│║ "))
		// real, delay p50, p99, jitter, loss, burst, reorder, dup, pkt/s, kbit/s
		if len(fields) < 6 || fields[3] != "–" || fields[4] != "–" || fields[5] != "–" {
			t.Errorf("with no packet, jitter, loss and burst should be dashes: %q", r)
		}
	}
}

// Clients evicting one another (more send than --max-clients) are said on
// the status line as it happens, naming the flag.
func TestProxyStatusSaysWhenClientsEvictOneAnother(t *testing.T) {
	v, f, screen := proxyAt(t, 120, 40)
	f.snap.MaxClients = 1
	f.snap.Evicted = 7
	f.tick()
	v.advance(0)
	if text := drawProxy(v, screen); !strings.Contains(text, "evicted 7 clients: more than --max-clients 1 send") {
		t.Fatalf("no word of the evictions:\n%s", text)
	}
}
