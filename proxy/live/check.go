package live

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"jitterlab/lab"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
)

// The checks of what a run is asked before it starts. Each error is one
// line naming lab proxy's flag, the value and what is allowed: a bad
// command line.

// CheckAddrs refuses a --listen or a --to that is not host:port with a
// port number (--to's not 0), and a --listen that is no address; a --to
// whose host does not resolve is found when the relay starts.
func CheckAddrs(listen, target string) error {
	for _, a := range []struct {
		flag, addr string
		lo         uint64
	}{{"listen", listen, 0}, {"to", target, 1}} {
		_, port, err := net.SplitHostPort(a.addr)
		if err != nil {
			return fmt.Errorf("--%s %q: want host:port, e.g. 127.0.0.1:7777", a.flag, a.addr)
		}
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n < a.lo {
			return fmt.Errorf("--%s %q: port %q: allowed %d to 65535", a.flag, a.addr, port, a.lo)
		}
	}
	if _, err := net.ResolveUDPAddr("udp", listen); err != nil {
		return fmt.Errorf("--listen %q: %v", listen, err)
	}
	return nil
}

// CheckSets refuses --set keys that are not link settings: the proxy
// relays a link; the game's own client and server are the real ones.
// sim.seed is taken; a malformed assignment or an unknown key is left to
// the config, which names it (and an unknown key's neighbours).
func CheckSets(sets []string) error {
	for _, a := range sets {
		k, _, err := lab.ParseAssignment(a)
		if err != nil {
			continue
		}
		if _, known := lab.Lookup(k); !known {
			continue
		}
		switch {
		case k == "sim.seed":
			continue
		case k == "sim.duration":
			return fmt.Errorf("--set %s: the proxy relays in wall time, so sim.duration does not apply; for how long it runs give --duration, e.g. --duration 10s (without it, until interrupted)", a)
		case strings.HasPrefix(k, "sim."):
			return fmt.Errorf("--set %s: %s does not apply to the proxy: --set takes link keys (up.*, down.*, link.*) and sim.seed", a, k)
		}
		if !proxyctl.IsLinkKey(k) {
			return fmt.Errorf("--set %s: %s is not a link setting: the proxy relays a link between your game's real client and server, so the model's client.* and server.* keys do not apply; allowed up.*, down.* and link.* (see lab proxy -h)", a, k)
		}
	}
	return nil
}

// CheckLimits bounds the relay's limits as the flags give them
// (--max-clients, --idle-timeout, --inflight-packets, --inflight-bytes)
// and raises the bytes in flight in all to at least one client's.
func CheckLimits(l *proxy.Limits) error {
	switch {
	case l.MaxFlows < 1 || l.MaxFlows > proxy.MaxMaxFlows:
		return fmt.Errorf("--max-clients %d: allowed 1 to %d", l.MaxFlows, proxy.MaxMaxFlows)
	case l.IdleTimeout < proxy.MinIdleTimeout || l.IdleTimeout > proxy.MaxIdleTimeout:
		return fmt.Errorf("--idle-timeout %v: allowed %v to %v", l.IdleTimeout, proxy.MinIdleTimeout, proxy.MaxIdleTimeout)
	case l.FlowPackets < 1 || l.FlowPackets > proxy.MaxFlowPackets:
		return fmt.Errorf("--inflight-packets %d: allowed 1 to %d", l.FlowPackets, proxy.MaxFlowPackets)
	case l.FlowBytes < proxy.MaxPacket || l.FlowBytes > proxy.MaxFlowBytes:
		return fmt.Errorf("--inflight-bytes %d: allowed %d (one largest datagram) to %d", l.FlowBytes, proxy.MaxPacket, proxy.MaxFlowBytes)
	}
	l.TotalBytes = max(l.TotalBytes, l.FlowBytes)
	return l.Validate()
}

// CheckControl refuses a --control address that is not loopback: the
// control API has no authentication and changes what the relay does.
// Port 0 asks for a free port (printed at the start).
func CheckControl(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--control %q: want a loopback host:port, e.g. 127.0.0.1:9000", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("--control %q: port %q: allowed 0 to 65535 (0: a free port, printed at the start)", addr, port)
	}
	ips, err := net.LookupIP(host)
	if host == "" || err != nil || len(ips) == 0 {
		return fmt.Errorf("--control %q: want a loopback host:port, e.g. 127.0.0.1:9000 (the API has no authentication)", addr)
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return fmt.Errorf("--control %q: %v is not a loopback address; allowed 127.0.0.1, ::1 or localhost (the API has no authentication)", addr, ip)
		}
	}
	return nil
}
