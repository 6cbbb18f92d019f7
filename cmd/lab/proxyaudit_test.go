package main

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"

	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
)

// countingRelay is a relay whose audit has one client and counts the
// audits taken.
type countingRelay struct{ n uint64 }

func (c *countingRelay) Audit() proxy.Audit {
	c.n++
	var au proxy.Audit
	au.Flows = []proxy.FlowAudit{{ID: 1, Addr: "127.0.0.1:5001"}}
	au.Flows[0].Dirs[proxy.Up].Received = c.n
	return au
}

// A script changing the settings all day keeps the audit bounded: past
// maxAuditPeriods the changes fold into the last period, which says how
// many and shows the settings as they ended (issue 12.3).
func TestAuditPeriodsFoldPastTheBound(t *testing.T) {
	p := &auditPeriods{r: &countingRelay{}}
	client := netip.MustParseAddrPort("127.0.0.1:5001")
	p.applied(proxyctl.Applied{Flow: client, Set: []proxyctl.Assignment{{Key: "up.loss", Value: "5%"}}}) // --flow, before the start
	p.begin(p.start)
	for range maxAuditPeriods + 10 {
		p.applied(proxyctl.Applied{Set: []proxyctl.Assignment{{Key: "up.latency", Value: "10ms"}}})
	}
	p.applied(proxyctl.Applied{Flow: client, Cleared: true})
	marks := p.periods(proxy.Audit{})
	if len(marks) != maxAuditPeriods || marks[len(marks)-1].folded != 12 {
		t.Fatalf("%d periods, the last with %d folded; want %d and 12 (11 changes and the clear)", len(marks), marks[len(marks)-1].folded, maxAuditPeriods)
	}
	if up, _ := marks[0].configOf("127.0.0.1:5001"); up.Loss != 0.05 {
		t.Errorf("period 1: the client's --flow loss is %v", up.Loss)
	}
	if up, _ := marks[len(marks)-1].configOf("127.0.0.1:5001"); up.Loss != 0 {
		t.Errorf("the last period: the client put back on everybody's still has loss %v", up.Loss)
	}
	var b bytes.Buffer
	writeAuditPeriods(&b, marks, proxy.Audit{})
	if !strings.Contains(b.String(), "and 12 more changes (more than 20 periods): the settings as they ended") {
		t.Errorf("the folded period does not say so:\n%s", b.String())
	}
}
