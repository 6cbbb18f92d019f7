package live

import (
	"strings"
	"testing"

	"jitterlab/proxy"
)

// Each check refuses what it must in one line naming the flag and lets
// the rest through.
func TestChecksBeforeARunStarts(t *testing.T) {
	limits := func(edit func(*proxy.Limits)) func() error {
		return func() error {
			l := proxy.DefaultLimits()
			edit(&l)
			return CheckLimits(&l)
		}
	}
	for _, c := range []struct {
		name  string
		check func() error
		want  string // "" for none
	}{
		{"loopback addresses", func() error { return CheckAddrs("127.0.0.1:7777", "127.0.0.1:7778") }, ""},
		{"--listen on port 0", func() error { return CheckAddrs("127.0.0.1:0", "127.0.0.1:7778") }, ""},
		{"--to on port 0", func() error { return CheckAddrs("127.0.0.1:7777", "127.0.0.1:0") }, `--to "127.0.0.1:0": port "0": allowed 1 to 65535`},
		{"--listen without a port", func() error { return CheckAddrs("127.0.0.1", "127.0.0.1:7778") }, `--listen "127.0.0.1": want host:port`},
		{"--to past 65535", func() error { return CheckAddrs("127.0.0.1:7777", "h:65536") }, `--to "h:65536": port "65536": allowed 1 to 65535`},
		{"link keys and the seed", func() error { return CheckSets([]string{"up.loss=2%", "link.latency=80ms", "sim.seed=4"}) }, ""},
		{"a malformed or unknown key is the config's", func() error { return CheckSets([]string{"up.loss", "nosuch.key=1"}) }, ""},
		{"sim.duration", func() error { return CheckSets([]string{"sim.duration=10s"}) }, "--set sim.duration=10s: the proxy relays in wall time"},
		{"a model key", func() error { return CheckSets([]string{"client.snap=2"}) }, "--set client.snap=2: client.snap is not a link setting"},
		{"the default limits", limits(func(*proxy.Limits) {}), ""},
		{"no client", limits(func(l *proxy.Limits) { l.MaxFlows = 0 }), "--max-clients 0: allowed 1 to "},
		{"less than a datagram in flight", limits(func(l *proxy.Limits) { l.FlowBytes = proxy.MaxPacket - 1 }), "--inflight-bytes "},
		{"control on loopback", func() error { return CheckControl("127.0.0.1:0") }, ""},
		{"control on every interface", func() error { return CheckControl("0.0.0.0:9000") }, `--control "0.0.0.0:9000": 0.0.0.0 is not a loopback address`},
		{"control without a host", func() error { return CheckControl(":9000") }, `--control ":9000": want a loopback host:port`},
		{"control on a bad port", func() error { return CheckControl("127.0.0.1:x") }, `--control "127.0.0.1:x": port "x": allowed 0 to 65535`},
	} {
		err := c.check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want no error", c.name, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: %v, want one line starting %q", c.name, err, c.want)
		}
	}
}

// CheckLimits raises the bytes in flight in all to one client's.
func TestCheckLimitsRaisesTheTotalToOneClients(t *testing.T) {
	l := proxy.DefaultLimits()
	l.FlowBytes, l.TotalBytes = proxy.MaxFlowBytes, 1
	if err := CheckLimits(&l); err != nil || l.TotalBytes != proxy.MaxFlowBytes {
		t.Fatalf("total %d (%v), want %d", l.TotalBytes, err, proxy.MaxFlowBytes)
	}
}
