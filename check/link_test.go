package check

import (
	"testing"
)

// A gate asserts on the link's counters as on the report card's figures
// (issue 24: "any figure name as --json prints it: report card, link,
// counters"), named with the direction first: up_lost is the uplink's
// "lost" in lab run --json's "up". On an uplink that loses a fifth of its
// packets, each sent packet is lost or delivered, about a fifth lost; the
// downlink loses none.
func TestGateAssertsOnTheLinksCounters(t *testing.T) {
	p := gateFile(t, "link.toml", `seeds = "1-3"
duration = "5s"
up.loss = "20%"

[[assert]]
metric = "up_delivered"
min = 1

[[assert]]
metric = "down_lost"
max = 0

[[assert]]
metric = "up_lost"
min = 1
`)
	g, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	figs, _, err := RunGate(g, "test", 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.Seeds {
		sent, lost, delivered := figs["up_sent"][i], figs["up_lost"][i], figs["up_delivered"][i]
		if sent < 50 || lost+delivered != sent || lost < 0.1*sent || lost > 0.3*sent {
			t.Errorf("seed %d: up_sent %g, up_lost %g, up_delivered %g; want each lost or delivered, about a fifth lost", g.Seeds[i], sent, lost, delivered)
		}
		if figs["down_sent"][i] < 50 || figs["down_sent"][i] != figs["down_delivered"][i] {
			t.Errorf("seed %d: down_sent %g, down_delivered %g; want every one delivered", g.Seeds[i], figs["down_sent"][i], figs["down_delivered"][i])
		}
	}
	rs, err := Judgement(g, figs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Status != Pass {
			t.Errorf("%s: %v, want a pass", r.Claim(), r.Status)
		}
	}
}
