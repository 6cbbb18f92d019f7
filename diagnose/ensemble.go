package diagnose

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"jitterlab/lab"
	"jitterlab/scenarios"
	"jitterlab/sim"
	"jitterlab/stats"
)

// Cell is one condition of the ensemble a recommendation must hold in: a
// latency offset added to the uplink's latency (and to every latency the
// timeline sets on it), and the input script the player drives with.
// The first cell of a diagnosis is the user's own: the search runs there.
type Cell struct {
	Offset time.Duration `json:"-"`
	Input  string        `json:"input_script"`
}

// cellJSON is a cell as JSON writes it: the offset in ms.
type cellJSON struct {
	OffsetMs float64 `json:"latency_offset_ms"`
	Input    string  `json:"input_script"`
}

// String names the cell: "+12.5 ms, random".
func (c Cell) String() string { return OffsetText(c.Offset) + ", " + c.Input }

// OffsetText writes a latency offset: "+0 ms", "+12.5 ms".
func OffsetText(d time.Duration) string {
	return "+" + strconv.FormatFloat(ms(d), 'f', -1, 64) + " ms"
}

// EnsembleInputs are the input patterns of the default ensemble besides
// the configuration's own: steady driving, stop-and-go and random driving.
var EnsembleInputs = []string{"steady", "stopgo", "random"}

// DefaultOffsets are the latency offsets of the default ensemble: four
// spanning one server tick, +0, +¼, +½ and +¾ tick.
func DefaultOffsets(tick time.Duration) []time.Duration {
	return []time.Duration{0, tick / 4, tick / 2, 3 * tick / 4}
}

// DefaultInputs are the inputs of the default ensemble: the
// configuration's own script first, then EnsembleInputs' others.
func DefaultInputs(own string) []string {
	out := []string{own}
	for _, s := range EnsembleInputs {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// ParseOffsets reads --offsets: latency offsets as durations ("0,12.5ms")
// or shares of the server tick ("0,1/4,1/2,3/4"), each in [0, 1 s).
func ParseOffsets(s string, tick time.Duration) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		var d time.Duration
		if num, den, ok := strings.Cut(f, "/"); ok {
			n, err1 := strconv.Atoi(num)
			m, err2 := strconv.Atoi(den)
			if err1 != nil || err2 != nil || m <= 0 || n < 0 || n >= m {
				return nil, fmt.Errorf("--offsets %q: %q is not a share of the tick n/m with 0 ≤ n < m (e.g. 1/4)", s, f)
			}
			d = tick * time.Duration(n) / time.Duration(m)
		} else if f == "0" {
			d = 0
		} else {
			var err error
			if d, err = time.ParseDuration(f); err != nil || d < 0 || d >= time.Second {
				return nil, fmt.Errorf("--offsets %q: %q is not a duration in [0, 1s) or a share of the tick (e.g. 12.5ms or 1/4)", s, f)
			}
		}
		if slices.Contains(out, d) {
			return nil, fmt.Errorf("--offsets %q: %v twice", s, d)
		}
		out = append(out, d)
	}
	return out, nil
}

// ParseInputs reads --inputs: input scripts ("steady,random").
func ParseInputs(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(scenarios.ScriptNames, f) {
			return nil, fmt.Errorf("--inputs %q: %q: allowed %s", s, f, strings.Join(scenarios.ScriptNames, ", "))
		}
		if slices.Contains(out, f) {
			return nil, fmt.Errorf("--inputs %q: %s twice", s, f)
		}
		out = append(out, f)
	}
	return out, nil
}

// cells is the ensemble of o: offsets × inputs, offsets first, the
// user's own cell (the first offset, the first input) first.
func (o *Options) cells() []Cell {
	offs, ins := o.Offsets, o.Inputs
	if len(offs) == 0 {
		offs = DefaultOffsets(o.Base.Server.Tick)
	}
	if len(ins) == 0 {
		ins = DefaultInputs(o.Base.Script)
	}
	var out []Cell
	for _, in := range ins {
		for _, off := range offs {
			out = append(out, Cell{off, in})
		}
	}
	return out
}

// CellVerdict is a change in one cell against that cell's reference.
type CellVerdict struct {
	Cell     Cell   `json:"-"`
	Change   Change `json:"change"`
	Holds    bool   `json:"holds"`    // within the bar's costs, nothing worse (Change.holds)
	Improves bool   `json:"improves"` // meets the bar (Change.improves)
}

// MarshalJSON writes the cell with its offset in ms.
func (v CellVerdict) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Cell     cellJSON `json:"cell"`
		Change   Change   `json:"change"`
		Holds    bool     `json:"holds"`
		Improves bool     `json:"improves"`
	}{cellJSON{ms(v.Cell.Offset), v.Cell.Input}, v.Change, v.Holds, v.Improves})
}

// Robustness is a change (one setting or several) tried in every cell of
// the ensemble, each against the cell's reference on the same seeds.
type Robustness struct {
	Sets  []string      `json:"sets"`
	Cells []CellVerdict `json:"cells"`
}

// Everywhere reports whether the change holds in every cell.
func (rb *Robustness) Everywhere() bool {
	return !slices.ContainsFunc(rb.Cells, func(v CellVerdict) bool { return !v.Holds })
}

// Helps is how many cells it meets the bar in.
func (rb *Robustness) Helps() int { return rb.count(func(v CellVerdict) bool { return v.Improves }) }

// Held is how many cells it holds in.
func (rb *Robustness) Held() int { return rb.count(func(v CellVerdict) bool { return v.Holds }) }

func (rb *Robustness) count(f func(CellVerdict) bool) int {
	n := 0
	for _, v := range rb.Cells {
		if f(v) {
			n++
		}
	}
	return n
}

// Text says where the change holds and where it fails: "holds in all 12
// cells (4 latency offsets × 3 inputs), meets the bar in 9", or "holds at
// 3 of 4 latency offsets and 2 of 3 inputs; at +37.5 ms on steady it
// costs judder +0.186 ± 0.065 m/s".
func (rb *Robustness) Text() string {
	var offs []time.Duration
	var ins []string
	for _, v := range rb.Cells {
		if !slices.Contains(offs, v.Cell.Offset) {
			offs = append(offs, v.Cell.Offset)
		}
		if !slices.Contains(ins, v.Cell.Input) {
			ins = append(ins, v.Cell.Input)
		}
	}
	if rb.Everywhere() {
		return fmt.Sprintf("holds in all %d cells (%d latency offset%s × %d input%s), meets the bar in %d", len(rb.Cells),
			len(offs), plural(len(offs)), len(ins), plural(len(ins)), rb.Helps())
	}
	holdsOff := 0
	for _, off := range offs {
		if !slices.ContainsFunc(rb.Cells, func(v CellVerdict) bool { return v.Cell.Offset == off && !v.Holds }) {
			holdsOff++
		}
	}
	holdsIn := 0
	for _, in := range ins {
		if !slices.ContainsFunc(rb.Cells, func(v CellVerdict) bool { return v.Cell.Input == in && !v.Holds }) {
			holdsIn++
		}
	}
	var where []string
	for _, in := range ins {
		var fail []CellVerdict
		for _, v := range rb.Cells {
			if v.Cell.Input == in && !v.Holds {
				fail = append(fail, v)
			}
		}
		switch {
		case len(fail) == 0:
		case len(fail) == len(offs) && len(offs) > 1:
			where = append(where, fmt.Sprintf("on %s input at every offset it costs %s (at %s)", in, costs(fail[0].Change),
				OffsetText(fail[0].Cell.Offset)))
		default:
			for _, v := range fail {
				where = append(where, fmt.Sprintf("at %s on %s input it costs %s", OffsetText(v.Cell.Offset), in, costs(v.Change)))
			}
		}
	}
	more := ""
	if len(where) > 2 { // the first two say it; --json has every cell
		more = fmt.Sprintf("; and in %d more cell%s", len(where)-2, plural(len(where)-2))
		where = where[:2]
	}
	return fmt.Sprintf("holds at %d of %d latency offsets and %d of %d inputs; %s%s", holdsOff, len(offs), holdsIn, len(ins),
		strings.Join(where, "; "), more)
}

// costs names what breaks the bar in c, the first two figures.
func costs(c Change) string {
	var b []string
	worse := func(d stats.Diff) bool { return d.Significant && d.Mean > 0 }
	if worse(c.Primary) || worse(c.TieBreak) {
		for i, m := range Metrics {
			if x := c.card[i]; worse(x) && !m.Server { // the server's side is not the local player's cost (breaks)
				if _, ok := allowance(m); !ok {
					b = append(b, m.Effect(x))
				}
			}
		}
	}
	for _, s := range c.breaks() {
		if !slices.Contains(b, strings.TrimSuffix(s, " worse")) {
			b = append(b, strings.TrimSuffix(s, " worse"))
		}
	}
	if len(b) > 2 {
		return fmt.Sprintf("%s and %d more figure%s", strings.Join(b[:2], ", "), len(b)-2, plural(len(b)-2))
	}
	return strings.Join(b, ", ")
}

// cellRefs are the reference's arms in every cell (the first is the
// reference itself), run once.
func (d *diag) cellReferences(r *Result) ([]*Arm, error) {
	if d.cellRefs != nil {
		return d.cellRefs, nil
	}
	var jobs []job
	for i := 1; i < len(d.cells); i++ {
		jobs = append(jobs, job{cell: i})
	}
	arms, err := d.runJobs(jobs)
	if err != nil {
		return nil, err
	}
	d.cellRefs = append([]*Arm{r.Reference}, arms...)
	return d.cellRefs, nil
}

// robust tries sets in every cell of the ensemble; arm is its arm in the
// first cell. The answer is kept: a change is tried once.
func (d *diag) robust(r *Result, sets []string, arm *Arm) (*Robustness, error) {
	key := strings.Join(sets, " ")
	if rb, ok := d.robustness[key]; ok {
		return rb, nil
	}
	refs, err := d.cellReferences(r)
	if err != nil {
		return nil, err
	}
	var jobs []job
	for i := 1; i < len(d.cells); i++ {
		jobs = append(jobs, job{cell: i, sets: sets})
	}
	arms, err := d.runJobs(jobs)
	if err != nil {
		return nil, err
	}
	arms = append([]*Arm{arm}, arms...)
	rb := &Robustness{Sets: slices.Clone(sets)}
	for i, a := range arms {
		c := d.change(refs[i], a, key)
		rb.Cells = append(rb.Cells, CellVerdict{Cell: d.cells[i], Change: c, Holds: c.holds(), Improves: c.improves()})
	}
	d.robustness[key] = rb
	r.Robustness = append(r.Robustness, rb)
	return rb, nil
}

// shiftTimeline schedules sc's timeline on s with off added to every
// uplink latency it sets (link.latency: the uplink's shifted, the
// downlink's as written), as Session.ScheduleTimeline would otherwise.
func shiftTimeline(s *lab.Session, sc *scenarios.Scenario, off time.Duration) error {
	changes, _, err := scenarios.TimelineOf(sc, s.Config().Duration)
	if err != nil {
		return err
	}
	for _, ch := range changes {
		for _, a := range ch.Set {
			sets := []scenarios.Assignment{a}
			if a.Key == "up.latency" || a.Key == "link.latency" {
				cfg := s.Config()
				if err := lab.Set(&cfg, "up.latency", a.Value); err != nil {
					return fmt.Errorf("%s:%d: %w", ch.File, a.Line, err)
				}
				sets = []scenarios.Assignment{{Key: "up.latency", Value: (cfg.Up.Latency + off).String()}}
				if a.Key == "link.latency" {
					sets = append(sets, scenarios.Assignment{Key: "down.latency", Value: a.Value})
				}
			}
			for _, x := range sets {
				if err := s.Schedule(sim.Time(ch.At), x.Key, x.Value); err != nil {
					return fmt.Errorf("%s:%d: %w", ch.File, a.Line, err)
				}
			}
		}
	}
	return nil
}
