package diagnose

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"jitterlab/batch"
	"jitterlab/lab"
	"jitterlab/stats"
)

// The frame sender's send grid locks to the server's by the tick offset;
// the accumulator sends on its own grid, so where its inputs land in the
// server's step depends on the uplink latency's phase against the tick.
// On a clean 106 ms uplink it cuts judder; ¾ tick later (143.5 ms) it adds
// judder. The diagnosis must say so, cell by cell, and not take it.
func TestPhaseLockHelpsAtOneOffsetHarmsAtAnother(t *testing.T) {
	o := options(t, "", "up.latency=106ms", "down.latency=50ms")
	o.Inputs = []string{"steady"}
	r := run(t, o)
	i := slices.IndexFunc(r.Changes, func(c Change) bool { return c.Set == "client.sender=accumulator" })
	if i < 0 {
		t.Fatal("client.sender=accumulator was not tried")
	}
	c := r.Changes[i]
	if !c.improves() || c.Robust == nil {
		t.Fatalf("accumulator at +0 ms: improves %v, robustness %v; the case is gone", c.improves(), c.Robust)
	}
	at := func(off time.Duration) CellVerdict {
		for _, v := range c.Robust.Cells {
			if v.Cell.Offset == off {
				return v
			}
		}
		t.Fatalf("no cell at %v", off)
		return CellVerdict{}
	}
	if v := at(0); !v.Improves {
		t.Errorf("at +0 ms it does not meet the bar: %+v", v.Change.Primary)
	}
	if v := at(37500 * time.Microsecond); v.Holds || !(v.Change.Primary.Significant && v.Change.Primary.Mean > 0) {
		t.Errorf("at +37.5 ms it holds (judder %+v); the phase lock is not seen", v.Change.Primary)
	}
	want := "client.sender=accumulator holds at 3 of 4 latency offsets and 0 of 1 inputs; at +37.5 ms on steady input it costs judder +"
	if out := text(t, r); !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
		t.Errorf("the text does not say where it fails (%q):\n%s", want, out)
	}
	if slices.Contains(r.Recommended, "client.sender=accumulator") {
		t.Errorf("recommended %v: the accumulator fails at +37.5 ms", r.Recommended)
	}
}

// Where the throttle changes, movetowards falls behind (it caps the
// visible step at the current input's speed, so after a change it cannot
// catch up): on a 60 ms path with 30 ms of downlink jitter
// (testdata/downlink-jitter.toml) it takes judder off on steady input, but
// on stop-go and random input it costs visible lag, so it is not taken,
// and the step says on which inputs it fails. The queue, for the uplink's
// overwrites, is taken and holds in all three cells. (jitter-fix, the
// first edition's case, no longer shows it: there movetowards makes
// judder worse on steady input too.)
func TestMoveTowardsFailsOnRandomInput(t *testing.T) {
	o := options(t, "testdata/downlink-jitter.toml")
	o.Offsets = []time.Duration{0}
	r := run(t, o)
	if slices.Contains(r.Recommended, "client.smoothing=movetowards") {
		t.Fatalf("recommended %v", r.Recommended)
	}
	out := strings.Join(strings.Fields(text(t, r)), " ")
	if !strings.Contains(out, "client.smoothing=movetowards, which holds at 0 of 1 latency offsets and 1 of 3 inputs; "+
		"at +0 ms on stopgo input it costs visible lag p99 +") ||
		!regexp.MustCompile(`client\.smoothing=movetowards, which holds at [^;]*; at \+0 ms on stopgo input [^;]*; at \+0 ms on random input it costs visible lag p99 \+`).MatchString(out) {
		t.Errorf("the text does not say movetowards fails on stop-go and random input:\n%s", out)
	}
	rb := r.RecommendedRobustness()
	if rb == nil || !rb.Everywhere() || len(rb.Cells) != 3 {
		t.Errorf("the recommendation across the ensemble: %+v", rb)
	}
}

// The ensemble: offsets × inputs, the user's cell first; flags narrow it.
func TestEnsembleCells(t *testing.T) {
	o := Options{Base: lab.DefaultConfig()}
	o.Base.Script = "random"
	got := o.cells()
	if len(got) != 12 || got[0] != (Cell{0, "random"}) || got[1] != (Cell{12500 * time.Microsecond, "random"}) || got[4].Input != "steady" {
		t.Errorf("default ensemble %v", got)
	}
	o.Offsets, o.Inputs = []time.Duration{0}, []string{"stopgo"}
	if got := o.cells(); !slices.Equal(got, []Cell{{0, "stopgo"}}) {
		t.Errorf("narrowed ensemble %v", got)
	}
}

func TestParseOffsets(t *testing.T) {
	tick := 50 * time.Millisecond
	got, err := ParseOffsets("0,1/4,25ms, 3/4", tick)
	if err != nil || !slices.Equal(got, []time.Duration{0, 12500 * time.Microsecond, 25 * time.Millisecond, 37500 * time.Microsecond}) {
		t.Errorf("ParseOffsets: %v, %v", got, err)
	}
	for _, bad := range []string{"", "x", "4/4", "1/0", "-1ms", "2s", "0,0"} {
		if _, err := ParseOffsets(bad, tick); err == nil || !strings.HasPrefix(err.Error(), "--offsets ") {
			t.Errorf("ParseOffsets(%q): %v", bad, err)
		}
	}
	if _, err := ParseInputs("steady,flying"); err == nil || !strings.Contains(err.Error(), `"flying"`) {
		t.Errorf("ParseInputs: %v", err)
	}
}

// A cell's shifted timeline: the uplink's latency moves with the offset,
// the downlink's stays as written.
func TestOffsetShiftsTheTimelinesUplinkLatency(t *testing.T) {
	o := options(t, "latency-spike")
	d := &diag{o: o}
	ws, wref := new(batch.Worker), new(batch.Worker)
	if err := d.session(ws, Cell{Offset: 10 * time.Millisecond, Input: o.Base.Script}, nil, 1); err != nil {
		t.Fatal(err)
	}
	if err := d.session(wref, Cell{Input: o.Base.Script}, nil, 1); err != nil {
		t.Fatal(err)
	}
	s, ref := &ws.Session, &wref.Session
	if err := s.Run(100 * 1e9); err != nil {
		t.Fatal(err)
	}
	if err := ref.Run(100 * 1e9); err != nil {
		t.Fatal(err)
	}
	if len(s.Changes()) == 0 || len(s.Changes()) < len(ref.Changes()) {
		t.Fatalf("%d changes shifted, %d as written", len(s.Changes()), len(ref.Changes()))
	}
	a, b := s.Config(), ref.Config()
	if a.Up.Latency-b.Up.Latency != 10*time.Millisecond || a.Down.Latency != b.Down.Latency {
		t.Errorf("after the timeline: up %v vs %v, down %v vs %v", a.Up.Latency, b.Up.Latency, a.Down.Latency, b.Down.Latency)
	}
}

// A practical floor, by hand: 10 % of the base or the minimum, whichever
// is larger; a significant 0.002 m/s is no effect, 0.05 of 0.4 is.
func TestFloorIsAShareOrTheMinimum(t *testing.T) {
	judder, _ := LookupMetric("judder_mps")
	for _, c := range []struct{ base, want float64 }{{0.4, 0.04}, {0.05, 0.010}, {-0.3, 0.03}, {math.NaN(), 0.010}} {
		if got := judder.Floor(c.base); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("judder floor on %v: %v, want %v", c.base, got, c.want)
		}
	}
	arm := func(vs ...float64) *Arm {
		a := &Arm{}
		for _, m := range Metrics {
			a.Card = append(a.Card, batch.NewMetricStat(m.Name, vs))
		}
		return a
	}
	base := arm(0.400, 0.401, 0.399, 0.400)
	if d := paired(base, arm(0.402, 0.403, 0.401, 0.402), judder); d.Significant {
		t.Errorf("+0.002 m/s on 0.4 is significant: %+v", d)
	}
	if d := paired(base, arm(0.350, 0.351, 0.349, 0.350), judder); !d.Significant {
		t.Errorf("−0.05 m/s on 0.4 is not significant: %+v", d)
	}
	for _, m := range Metrics {
		if m.floorOf().Min <= 0 {
			t.Errorf("%s has no floor", m.Name)
		}
	}
}

// Where a change fails in a cell, the text names what breaks the bar
// there: the figures made worse, but not the server's side, which is no
// cost of the local player's (breaks skips it too). A queue at +37.5 ms on
// jitter-fix read "costs judder +0.049 ± 0.049 m/s, server input delay p50
// +25.1 ± 10.6 ms".
func TestCellCostsLeaveOutTheServersSide(t *testing.T) {
	c := Change{card: make([]stats.Diff, len(Metrics))}
	for i, m := range Metrics {
		switch m.Name {
		case "judder_mps", "server_input_delay_p50_ms":
			c.card[i] = stats.Diff{Interval: stats.Interval{N: 20, Mean: 0.05, Half: 0.01}, Significant: true}
		}
		if m.Name == "judder_mps" {
			c.Primary = c.card[i]
		}
	}
	got := costs(c)
	if !strings.Contains(got, "judder +0.050 ± 0.010 m/s") || strings.Contains(got, "server input delay") {
		t.Errorf("costs: %q", got)
	}
}
