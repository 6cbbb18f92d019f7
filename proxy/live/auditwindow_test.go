package live

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"jitterlab/proxy"
)

// The audit's configured "written late by" is the release window
// (qa2): with --release-window 1ms at 3,000 packets/s the relay wrote
// copies p50 0.505 ms late by design, beside a configured "0", and the
// line under the table called up to 1.5 ms the relay's own error without
// a word of the window. The configured cell says how late a copy may
// leave ("≤ 1ms"; 0 with the window off), and the line says the window.
func TestAuditSaysTheReleaseWindow(t *testing.T) {
	var au proxy.Audit
	au.Wall = 5 * time.Second
	au.Dirs[proxy.Up].Counters.Delivered, au.Dirs[proxy.Down].Counters.Delivered = 200, 100
	au.Dirs[proxy.Up].LateP50, au.Dirs[proxy.Up].LateMaxOutsideStalls = 505*time.Microsecond, 1501*time.Microsecond
	au.Dirs[proxy.Up].Stalled = 3
	row := regexp.MustCompile(`written late by\s+(\S+(?: \S+)?)\s+p50`)
	for _, c := range []struct {
		window   time.Duration
		cell     string
		sentence string
	}{
		{time.Millisecond, "≤ 1ms", "a copy may leave up to 1ms late by design (--release-window)"},
		{0, "0", ""},
	} {
		var b bytes.Buffer
		writeProxyAudit(&b, au, nil, c.window)
		out := b.String()
		if m := row.FindStringSubmatch(out); m == nil || m[1] != c.cell {
			t.Errorf("window %v: want the configured cell %q; got %q in\n%s", c.window, c.cell, m, out)
		}
		if c.sentence != "" && !strings.Contains(out, c.sentence) {
			t.Errorf("window %v: want %q in\n%s", c.window, c.sentence, out)
		}
		if c.window == 0 && strings.Contains(out, "release-window") {
			t.Errorf("window off: the audit names it:\n%s", out)
		}
	}
}

// The audit gives the window the relay runs with: the default for the
// relay's 0, none for its negative (--release-window 0), else the value.
func TestReleaseWindowInForce(t *testing.T) {
	for _, c := range []struct {
		relay, want time.Duration
	}{{0, proxy.DefaultReleaseWindow}, {-1, 0}, {time.Millisecond, time.Millisecond}, {50 * time.Microsecond, 50 * time.Microsecond}} {
		if got := inForce(c.relay); got != c.want {
			t.Errorf("proxy.Options.ReleaseWindow %v: in force %v; want %v", c.relay, got, c.want)
		}
	}
}
