package diagnose

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// On a clean 40 ms path whose uplink loses 10 % (testdata/lossy-uplink.toml)
// neither change helps alone: redundant inputs change nothing for a
// latest-wins server (it applies one input per step whatever arrives), and
// the queue applies every input but stalls on each lost one (judder
// +0.17 m/s). Together the redundancy refills the queue's gaps: judder
// −0.33 m/s, no speed deficit, one tick of input delay. The search tries
// them as a known pair and takes it. (With --offsets 0: at +25 ms the pair
// costs judder, and the full ensemble refuses it, saying so.)
func TestSearchFindsAPairThatHelpsOnlyTogether(t *testing.T) {
	o := options(t, "testdata/lossy-uplink.toml")
	o.Offsets = []time.Duration{0}
	r := run(t, o)
	for _, set := range []string{"server.inputs=queue", "client.redundancy=2"} {
		i := slices.IndexFunc(r.Changes, func(c Change) bool { return c.Set == set })
		if i < 0 || r.Changes[i].improves() {
			t.Fatalf("%s alone meets the bar (or was not tried): not the case this test is about", set)
		}
	}
	if len(r.Recommended) < 2 || !slices.Equal(r.Recommended[:2], []string{"server.inputs=queue", "client.redundancy=2"}) {
		t.Fatalf("recommended %v, want the pair server.inputs=queue client.redundancy=2 first", r.Recommended)
	}
	if s := r.Steps[0]; !s.Pair || s.Robust == nil || !s.Robust.Everywhere() {
		t.Errorf("first step %+v: want the pair, holding in every cell", s)
	}
	out := strings.Join(strings.Fields(text(t, r)), " ")
	if !strings.Contains(out, "1. + server.inputs=queue + client.redundancy=2 together (a pair: together they beat the reference and each alone)") {
		t.Errorf("the text does not take the pair:\n%s", out)
	}

	// The full ensemble: the pair fails at some offsets, and the text says where.
	r = run(t, options(t, "testdata/lossy-uplink.toml"))
	rb := r.robustness([]string{"server.inputs=queue", "client.redundancy=2"})
	if rb == nil || rb.Everywhere() || slices.Contains(r.Recommended, "client.redundancy=2") {
		t.Fatalf("across the ensemble the pair: %+v, recommended %v", rb, r.Recommended)
	}
	if out := strings.Join(strings.Fields(text(t, r)), " "); !strings.Contains(out, "server.inputs=queue + client.redundancy=2, which holds at ") {
		t.Errorf("the text does not say where the pair fails:\n%s", out)
	}
}

// The ladders: the snap threshold and smoothing constant halved and
// doubled, the buffer's depth either side, values the registry takes.
func TestLadderChanges(t *testing.T) {
	o := options(t, "")
	var got []string
	for _, l := range ladderChanges(&o.Base) {
		got = append(got, l[0])
	}
	want := []string{"client.snap=0.25", "client.snap=1", "client.snap=2.5", "client.alpha=0.075", "client.alpha=0.3", "server.buffer=1", "server.buffer=3"}
	if !slices.Equal(got, want) {
		t.Errorf("ladder %v, want %v", got, want)
	}
	if got := sameAs(&o.Base, []string{"server.buffer=1"}); got != "same as the reference: the depth acts only with server.inputs=buffer" {
		t.Errorf("server.buffer=1 without the buffer: %q", got)
	}
	if got := sameAs(&o.Base, []string{"server.inputs=buffer", "server.buffer=1"}); got != "" {
		t.Errorf("server.buffer=1 with the buffer: %q", got)
	}
}
