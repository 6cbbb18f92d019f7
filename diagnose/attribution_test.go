package diagnose

import (
	"slices"
	"strings"
	"testing"
	"time"

	"jitterlab/batch"
)

// Each condition of the configuration is removed by its own settings, and
// only the conditions present: jitter, loss (with a burst model), spikes,
// netem's reordering and duplication (both directions at once: 20 % of the
// inputs reordered cost a latest-wins server overwrites and starved steps
// as jitter does, and no other removal takes them away), the latency off
// the tick grid, each clock's drift by name, a frame rate the server's
// rate does not divide.
func TestRemovalsAreTheConditionsPresent(t *testing.T) {
	o := options(t, "", "up.jitter=10ms", "down.loss=2%", "down.loss_burst=3", "up.spike=1%", "up.reorder=20%",
		"down.duplicate=5%", "up.latency=62ms", "down.latency=40ms", "server.drift_ppm=300ppm", "client.fps=30")
	d := &diag{o: o}
	var got []string
	for _, r := range d.removals() {
		got = append(got, r.what+": "+strings.Join(r.sets, " "))
	}
	want := []string{
		"jitter → 0: up.jitter=0 down.jitter=0",
		"loss → 0: down.loss=0",
		"spikes → 0: up.spike=0 down.spike=0",
		"reordering → 0: up.reorder=0 down.reorder=0",
		"duplicates → 0: up.duplicate=0 down.duplicate=0",
		"latency → whole ticks (50ms up, 50ms down): up.latency=50ms down.latency=50ms",
		"server clock drift → 0: server.drift_ppm=0 server.wander_ppm=0",
		"frame rate → 40 fps (a multiple of the server's rate): client.fps=40",
	}
	if !slices.Equal(got, want) {
		t.Errorf("removals\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rs := (&diag{o: options(t, "")}).removals(); len(rs) != 0 {
		t.Errorf("a perfect link has conditions to remove: %v", rs)
	}
	// In a cell with an offset the uplink's aligned latency is what it
	// sets after the offset is added.
	o = options(t, "", "up.latency=50ms")
	d = &diag{o: o, cells: []Cell{{Offset: 10 * time.Millisecond, Input: "steady"}}}
	if rs := d.removals(); len(rs) != 1 || !slices.Contains(rs[0].sets, "up.latency=40ms") {
		t.Errorf("removals at +10 ms: %+v", rs)
	}
}

func TestRateFPS(t *testing.T) {
	for _, c := range []struct{ fps, want int }{{60, 60}, {30, 40}, {144, 140}, {10, 20}, {25, 20}} {
		if got := RateFPS(c.fps, 50*time.Millisecond); got != c.want {
			t.Errorf("RateFPS(%d) = %d, want %d", c.fps, got, c.want)
		}
	}
}

// On jitter-fix the jitter is what costs: without it judder and speed
// deficit fall, and the counters say by which mechanism (the overwrites
// and the starved steps vanish); the text says so.
func TestAttributionNamesTheJitterAndItsCounters(t *testing.T) {
	r := run(t, jitterFixCell(t))
	if len(r.Attribution) != 1 || r.Attribution[0].Condition != "jitter → 0" {
		t.Fatalf("attribution %+v", r.Attribution)
	}
	a := r.Attribution[0]
	if !(a.Primary.Significant && a.Primary.Mean < 0) || !(a.TieBreak.Significant && a.TieBreak.Mean < 0) {
		t.Errorf("without jitter: judder %+v, progress deficit %+v", a.Primary, a.TieBreak)
	}
	if len(a.Counters) < 2 || !strings.HasPrefix(a.Counters[0], "overwritten -") || !strings.HasPrefix(a.Counters[1], "starved -") {
		t.Errorf("counters %v: want the overwrites and the starved steps gone", a.Counters)
	}
	out := strings.Join(strings.Fields(text(t, r)), " ")
	if !strings.Contains(out, "- jitter → 0 (up.jitter=0 down.jitter=0): judder -") || !strings.Contains(out, "per run overwritten -") {
		t.Errorf("the text does not state the attribution:\n%s", out)
	}
}

// The overwrite finding is confirmed by its counter: with the queue the
// overwrites fall, per run, and the change line says by how much.
func TestOverwriteFindingConfirmedByItsCounter(t *testing.T) {
	r := run(t, jitterFixCell(t))
	f, ok := finding(r, "latest-wins-overwrite")
	if !ok || !f.Confirmed || !f.Problem {
		t.Fatalf("overwrite finding %v: confirmed %v, problem %v", ok, f.Confirmed, f.Problem)
	}
	if line := r.ChangeLine(&f); !strings.Contains(line, "; per run overwritten -") {
		t.Errorf("the change line does not give the counter: %q", line)
	}
}

// A clean 40 ms link: the latency's phase against the 50 ms tick is a
// mechanism of its own; moved to whole ticks, judder falls, and the
// finding says so with the removal's numbers.
func TestLatencyPhaseIsAFinding(t *testing.T) {
	o := options(t, "", "link.latency=40ms")
	o.Offsets, o.Inputs = []time.Duration{0}, []string{"steady"}
	r := run(t, o)
	f, ok := finding(r, "latency-phase")
	if !ok || !f.Problem || !(f.Cost.Significant && f.Cost.Mean > 0) {
		t.Fatalf("latency-phase finding %v: %+v", ok, f)
	}
	want := "the latency's phase against the server's tick: inputs land at the same point of a server step, and states at the " +
		"same point of a frame, run after run (moved to whole ticks, the latencies also change by up to half a tick); " +
		"latency → whole ticks (50ms up, 50ms down): judder -"
	if !strings.HasPrefix(f.Text, want) {
		t.Errorf("finding %q, want it to start %q", f.Text, want)
	}
}

// jitterFixCell is jitter-fix's diagnosis in its own cell alone (steady
// input, its latency) over 8 seeds × 1 min, a fifth of the default's
// work: the jitter's attribution and its counters, and the overwrite
// finding confirmed, come out as over 20 × 2 min.
func jitterFixCell(t *testing.T) Options {
	t.Helper()
	o := options(t, "jitter-fix")
	o.Offsets, o.Inputs = []time.Duration{0}, []string{"steady"}
	o.Seeds, o.Base.Duration = o.Seeds[:8], time.Minute
	return o
}

// A condition is a problem as a change helps: its removal makes the
// primary or the tie-break significantly better and the other not
// significantly worse. On latency-spike moving the latencies to whole
// ticks takes judder -0.107 ± 0.095 m/s off and adds progress deficit
// +0.114 ± 0.107 m/s: a trade, named with its cost, not a problem.
func TestConditionThatTradesIsNoProblem(t *testing.T) {
	judder, _ := LookupMetric("judder_mps")
	deficit, _ := LookupMetric("progress_deficit_mps")
	d := &diag{o: options(t, ""), primary: judder, tie: deficit}
	arm := func(j, p []float64) *Arm {
		return &Arm{Card: []batch.MetricStat{batch.NewMetricStat("judder_mps", j), batch.NewMetricStat("progress_deficit_mps", p)}}
	}
	ref := arm([]float64{0.48, 0.47, 0.49, 0.48}, []float64{0.04, 0.04, 0.03, 0.05})
	r := &Result{Reference: ref}
	for _, c := range []struct {
		name    string
		removed *Arm
		problem bool
	}{
		{"better judder, worse deficit", arm([]float64{0.37, 0.36, 0.38, 0.37}, []float64{0.15, 0.16, 0.14, 0.15}), false},
		{"better judder, the same deficit", arm([]float64{0.37, 0.36, 0.38, 0.37}, []float64{0.04, 0.04, 0.03, 0.05}), true},
	} {
		r.Attribution = []Attribution{{Condition: "latency → whole ticks (50ms up, 50ms down)", arm: c.removed,
			Primary: d.diff(ref, c.removed, judder), TieBreak: d.diff(ref, c.removed, deficit)}}
		fs := conditionFindings(d, r, nil)
		if len(fs) != 1 || fs[0].Problem != c.problem {
			t.Errorf("%s: findings %+v, want one, a problem %v", c.name, fs, c.problem)
		}
	}
}
