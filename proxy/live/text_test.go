package live

import (
	"strings"
	"testing"
	"time"

	"jitterlab/proxy"
)

// The clients table says "-" for a delay or a jitter it has no packets
// for (a server that never answers: nothing down; one packet has no
// jitter), as the audit does, not "0.000ms", which reads as a perfect
// link.
func TestClientsTableSaysNoDelayWithoutPackets(t *testing.T) {
	var au proxy.Audit
	au.Flows = []proxy.FlowAudit{{ID: 1, Addr: "127.0.0.1:5001"}, {ID: 2, Addr: "127.0.0.1:5002"}}
	au.Flows[0].Dirs[proxy.Up] = proxy.FlowDirAudit{Received: 50, Written: 50, DelayMean: 10 * time.Millisecond, Jitter: time.Millisecond}
	au.Flows[1].Dirs[proxy.Up] = proxy.FlowDirAudit{Received: 1, Written: 1, DelayMean: 10 * time.Millisecond}
	au.Flows[1].Dirs[proxy.Down] = proxy.FlowDirAudit{Received: 1, Written: 1, DelayMean: 10 * time.Millisecond}
	var b strings.Builder
	writeProxyFlows(&b, au, nil)
	rows := map[string][]string{}
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(l); len(f) > 8 && strings.HasPrefix(f[0], "127.") {
			rows[f[0]] = f
		}
	}
	for addr, want := range map[string][2]string{
		"127.0.0.1:5001": {"10.000ms/-", "1.000ms/-"},  // nothing came back
		"127.0.0.1:5002": {"10.000ms/10.000ms", "-/-"}, // one packet each way: no jitter yet
	} {
		if r := rows[addr]; len(r) < 9 || r[7] != want[0] || r[8] != want[1] {
			t.Errorf("%s: %q; want delay %s and jitter %s", addr, r, want[0], want[1])
		}
	}
}

// The proxy's summary counts the datagrams of new clients refused at a
// table full of active conversations, and says nothing of them when
// there were none (the line the documentation shows).
func TestProxySummaryCountsRefusedClients(t *testing.T) {
	var with, without strings.Builder
	writeProxySummary(&with, time.Second, proxy.Stats{FlowsSeen: 3, Flows: 2, Refused: 7}, nil)
	writeProxySummary(&without, time.Second, proxy.Stats{FlowsSeen: 3, Flows: 2}, nil)
	if !strings.Contains(with.String(), "0 evicted, 7 datagrams of new clients refused (every place held by an active conversation)\n") {
		t.Errorf("summary with refusals:\n%s", with.String())
	}
	if !strings.Contains(without.String(), "0 expired idle, 0 evicted\n") {
		t.Errorf("summary without refusals:\n%s", without.String())
	}
}
