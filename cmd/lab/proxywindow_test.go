package main

import (
	"strings"
	"testing"
	"time"

	"jitterlab/proxy"
)

// lab proxy --release-window trades CPU for precision as proxybench's
// does (issue 12, proxyscreen 4): 0 turns it off, up to
// proxy.MaxReleaseWindow, proxy.DefaultReleaseWindow when not given; a
// bad value is one line naming the flag, the value and what is allowed.
func TestProxyReleaseWindowFlag(t *testing.T) {
	for _, c := range []struct {
		arg  string
		want time.Duration // what the relay is given (negative: off)
	}{
		{"", proxy.DefaultReleaseWindow},
		{"0", -1},
		{"0s", -1},
		{"50us", 50 * time.Microsecond},
		{"1ms", proxy.MaxReleaseWindow},
	} {
		got, err := relayReleaseWindow(c.arg)
		if err != nil || got != c.want {
			t.Errorf("--release-window %q: relay given %v (%v), want %v", c.arg, got, err, c.want)
		}
	}
	for _, bad := range []string{"2ms", "-1us", "fast", "1"} {
		args := []string{"proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "1s", "--release-window", bad}
		code, out, errOut := runLab(t, args...)
		want := `--release-window "` + bad + `": allowed 0 (off) up to 1ms`
		if code != 2 || out != "" || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("--release-window %s: code %d, stderr %q; want 2 and %q", bad, code, errOut, want)
		}
	}
	// A good value runs the relay.
	code, out, errOut := runLab(t, "proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--duration", "200ms", "--no-tui", "--release-window", "0")
	if code != 0 || !strings.Contains(out, "summary after ") {
		t.Errorf("--release-window 0: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, help, _ := runLab(t, "proxy", "-h")
	if !strings.Contains(help, "-release-window duration") || !strings.Contains(help, "0 turns it off") {
		t.Errorf("-h does not describe --release-window:\n%s", help)
	}
}

// Whatever --release-window is given, the relay gets off (negative), its
// default, or a window in (0, proxy.MaxReleaseWindow], or the command
// line is refused naming the flag.
func FuzzRelayReleaseWindow(f *testing.F) {
	for _, s := range []string{"", "0", "100us", "1ms", "2ms", "-1s", "x", "1e3ms", "0.5ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := relayReleaseWindow(s)
		switch {
		case err != nil:
			if !strings.HasPrefix(err.Error(), "--release-window ") {
				t.Fatalf("%q: error %q does not name the flag", s, err)
			}
		case d != -1 && (d <= 0 || d > proxy.MaxReleaseWindow):
			t.Fatalf("%q: the relay would get %v", s, d)
		}
	})
}
