package diagnose

import (
	"fmt"
	"math"
	"strings"
	"time"

	"jitterlab/lab"
	"jitterlab/stats"
)

// withoutTimeline is the pseudo-setting of the arm whose scenario has no
// timeline: no changes, oscillators or flaps.
const withoutTimeline = "(without the timeline)"

// Attribution is what one condition of the link or the clocks costs the
// player: the reference against the same runs with the condition removed,
// seed by seed (removed − reference: a negative difference is what the
// condition costs), in the primary metric and the tie-break, with the
// counters of the mechanisms it drives.
type Attribution struct {
	Condition string     `json:"condition"` // "jitter → 0"
	Sets      []string   `json:"sets"`      // the settings that remove it
	Primary   stats.Diff `json:"primary"`
	TieBreak  stats.Diff `json:"tie_break"`
	// Counters are the mechanism counters the removal changes
	// significantly, per run: "overwritten -399 ± 85".
	Counters []string `json:"counters"`
	arm      *Arm
}

// counter is a per-run count of a mechanism at work, from a run's summary.
type counter struct {
	name string
	get  func(s *lab.Summary) float64
}

// counters are the mechanisms' counters a removal or a finding is checked
// against: inputs the server overwrote (latest-wins), server steps without
// an input (starved), inputs that arrived too late, packets the link lost
// each way, snaps of the visible pose.
var counters = []counter{
	{"overwritten", func(s *lab.Summary) float64 { return float64(s.Overwritten) }},
	{"starved", func(s *lab.Summary) float64 { return float64(s.Starved) }},
	{"late", func(s *lab.Summary) float64 { return float64(s.LateDropped) }},
	{"lost up", func(s *lab.Summary) float64 { return float64(s.Up.Lost) }},
	{"lost down", func(s *lab.Summary) float64 { return float64(s.Down.Lost) }},
	{"snaps", func(s *lab.Summary) float64 { return float64(s.Snaps) }},
}

// counterDiffs are the counters that differ significantly between a and
// b (b − a per run, seed by seed): "overwritten -399 ± 85".
func counterDiffs(a, b *Arm) []string {
	out := []string{}
	for _, c := range counters {
		if d := stats.PairedMin(runValues(a, c.get), runValues(b, c.get), 0.5); d.Significant {
			out = append(out, c.name+" "+plain(d, 0))
		}
	}
	return out
}

// removal is one condition and the settings that remove it.
type removal struct {
	what string
	sets []string
}

// removals are the conditions of cfg (in the user's cell) that can be
// removed one at a time: the jitter, the loss, the spikes, netem's
// reordering and duplication, the latency's
// phase against the server's tick, each clock's drift, the timeline, the
// CPU time of the fixed updates, a frame rate the server's rate does not
// divide.
func (d *diag) removals() []removal {
	c := d.o.Base
	c.Up.Latency += d.userCell().Offset
	var out []removal
	if c.Up.Jitter > 0 || c.Down.Jitter > 0 {
		out = append(out, removal{"jitter → 0", []string{"up.jitter=0", "down.jitter=0"}})
	}
	lossy := func(dir string, lossModel string, loss float64) []string {
		var s []string
		if loss > 0 {
			s = append(s, dir+".loss=0")
		}
		if lossModel != "random" {
			s = append(s, dir+".loss_model=random")
		}
		return s
	}
	upModel, _ := lab.Lookup("up.loss_model")
	downModel, _ := lab.Lookup("down.loss_model")
	if l := append(lossy("up", upModel.Get(&c), c.Up.Loss), lossy("down", downModel.Get(&c), c.Down.Loss)...); len(l) > 0 {
		what := "loss → 0"
		if d.timelineTouches("up.loss", "down.loss", "link.loss") {
			what += " (and the timeline's loss, blackouts included)"
		}
		out = append(out, removal{what, l})
	}
	if c.Up.Spike > 0 || c.Down.Spike > 0 {
		out = append(out, removal{"spikes → 0", []string{"up.spike=0", "down.spike=0"}})
	}
	if c.Up.Reorder > 0 || c.Down.Reorder > 0 {
		out = append(out, removal{"reordering → 0", []string{"up.reorder=0", "down.reorder=0"}})
	}
	if c.Up.Duplicate > 0 || c.Down.Duplicate > 0 {
		out = append(out, removal{"duplicates → 0", []string{"up.duplicate=0", "down.duplicate=0"}})
	}
	tick := c.Server.Tick
	align := func(l time.Duration) time.Duration { return (l + tick/2) / tick * tick }
	if align(c.Up.Latency) != c.Up.Latency || align(c.Down.Latency) != c.Down.Latency {
		up, down := align(c.Up.Latency), align(c.Down.Latency)
		// The offset of the cell is added to the uplink's: take it off.
		out = append(out, removal{fmt.Sprintf("latency → whole ticks (%v up, %v down)", up, down),
			[]string{"up.latency=" + (up - d.userCell().Offset).String(), "down.latency=" + down.String()}})
	}
	if c.ClientDriftPPM != 0 || c.ClientWanderPPM != 0 {
		out = append(out, removal{"client clock drift → 0", []string{"client.drift_ppm=0", "client.wander_ppm=0"}})
	}
	if c.ServerDriftPPM != 0 || c.ServerWanderPPM != 0 {
		out = append(out, removal{"server clock drift → 0", []string{"server.drift_ppm=0", "server.wander_ppm=0"}})
	}
	if d.o.Scenario != nil && (len(d.o.Scenario.Timeline) > 0 || len(d.o.Scenario.Oscillators) > 0 || len(d.o.Scenario.Flaps) > 0) {
		out = append(out, removal{"timeline off", []string{withoutTimeline}})
	}
	if c.Client.FixedCost > 0 {
		out = append(out, removal{"fixed updates' cost → 0", []string{"client.fixed_cost=0"}})
	}
	if fps := RateFPS(c.Client.FPS, tick); fps != c.Client.FPS {
		out = append(out, removal{fmt.Sprintf("frame rate → %d fps (a multiple of the server's rate)", fps), []string{fmt.Sprintf("client.fps=%d", fps)}})
	}
	return out
}

// RateFPS is the frame rate nearest fps that the server's rate divides
// (a whole number of frames per tick), at least one frame per tick:
// 30 fps against 20 Hz is 40, 60 stays 60.
func RateFPS(fps int, tick time.Duration) int {
	hz := float64(time.Second) / float64(tick)
	if hz != math.Trunc(hz) {
		return fps
	}
	k := max(1, int(math.Round(float64(fps)/hz)))
	return k * int(hz)
}

// attribute runs every removal on every seed in the user's cell and
// compares it with the reference: what each condition costs, most first.
func (d *diag) attribute(r *Result) ([]Attribution, error) {
	rs := d.removals()
	out := []Attribution{}
	if len(rs) == 0 {
		return out, nil
	}
	sets := make([][]string, len(rs))
	for i, x := range rs {
		sets[i] = x.sets
	}
	arms, err := d.runArms(sets)
	if err != nil {
		return nil, err
	}
	for i, x := range rs {
		a := Attribution{Condition: x.what, Sets: x.sets, Primary: d.diff(r.Reference, arms[i], d.primary),
			TieBreak: d.diff(r.Reference, arms[i], d.tie), Counters: counterDiffs(r.Reference, arms[i]), arm: arms[i]}
		out = append(out, a)
	}
	return out, nil
}

// AttributionLine states one removal: "jitter → 0 (up.jitter=0
// down.jitter=0): judder -0.311 ± 0.048 * m/s, progress deficit … ;
// counters per run: overwritten -399 ± 85".
func (r *Result) AttributionLine(a Attribution) string {
	sets := make([]string, 0, len(a.Sets))
	for _, s := range a.Sets {
		if s != withoutTimeline {
			sets = append(sets, s)
		}
	}
	how := ""
	if len(sets) > 0 {
		how = " (" + strings.Join(sets, " ") + ")"
	}
	s := fmt.Sprintf("%s%s: %s %s, %s %s", a.Condition, how, r.metric.Label, r.metric.Quantity(FormatDiff(a.Primary, r.metric.Prec)),
		r.tie.Label, r.tie.Quantity(FormatDiff(a.TieBreak, r.tie.Prec)))
	if len(a.Counters) > 0 {
		s += "; per run " + strings.Join(a.Counters, ", ")
	}
	return s
}

// AttributionHead introduces the removals.
func (r *Result) AttributionHead() string {
	return fmt.Sprintf("what costs the player what: each condition removed in turn (removed − reference, paired over %d seeds "+
		"in the first cell; a negative difference is what the condition costs)", len(r.Conditions.Seeds))
}
