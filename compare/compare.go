package compare

import (
	"fmt"
	"math"
	"slices"
	"time"

	"jitterlab/batch"
	"jitterlab/lab"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/stats"
	"jitterlab/telemetry"
)

// Game is what a proxy recording says of a real game's run.
type Game struct {
	Name string
	// Config is the game's settings (the keys of lab game) on the link the
	// proxy started with (the recording's up.* and down.*).
	Config lab.Config
	// Changes are everybody's link settings changed during the run, at
	// the game's time: from its first telemetry frame's arrival.
	Changes []lab.Change
	// Ignored are the clients' own settings, which the model (one client)
	// does not run: "client ADDR KEY = VALUE".
	Ignored []string
	// Duration is the span of the game's frames (first to last t_s).
	Duration time.Duration
	Frames   []telemetry.Frame
}

// Load reads a proxy recording with telemetry: game is the game's
// settings (lab game's --set keys) to put on the recording's link.
func Load(r *recordings.Reader, name string, game lab.Config) (*Game, error) {
	if r.Header.Kind != recordings.KindProxy {
		return nil, fmt.Errorf("%s is a session recording: lab compare takes proxy recordings (lab proxy --telemetry --record)", name)
	}
	g := &Game{Name: name, Config: game}
	for _, kv := range r.Header.Params {
		if err := lab.Set(&g.Config, kv[0], kv[1]); err != nil {
			return nil, fmt.Errorf("%s: the link it started with: %w", name, err)
		}
	}
	first := sim.Time(-1)
	err := r.ScanTelemetry(0, sim.Time(1<<62), func(at sim.Time, d *telemetry.Datagram) error {
		if d.Kind == telemetry.KindFrame {
			if first < 0 {
				first = at
			}
			g.Frames = append(g.Frames, d.Frame)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(g.Frames) < 2 {
		return nil, fmt.Errorf("%s holds %d telemetry frames: record the game with lab proxy --telemetry ADDR --record FILE", name, len(g.Frames))
	}
	g.Duration = time.Duration(math.Round((g.Frames[len(g.Frames)-1].TS - g.Frames[0].TS) * 1e9))
	if g.Duration <= 0 {
		return nil, fmt.Errorf("%s: its telemetry frames span %v: the game's t_s must go forward", name, g.Duration)
	}
	changes, err := r.Changes()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, c := range changes {
		s := proxyrec.ParseChange(c)
		switch {
		case s.Flow > 0:
			continue
		case s.Client != "":
			g.Ignored = append(g.Ignored, s.String())
			continue
		}
		if s.At <= first {
			if err := lab.Set(&g.Config, s.Key, s.Value); err != nil {
				return nil, fmt.Errorf("%s: change at %v: %w", name, s.At, err)
			}
			continue
		}
		g.Changes = append(g.Changes, lab.Change{At: s.At - first, Key: s.Key, Value: s.Value})
	}
	return g, nil
}

// Figure is one figure of the game beside the model's.
type Figure struct {
	Name, Label, Unit string
	Prec              int
	Game              float64
	Model             stats.Interval // the model's runs: mean and the interval of the mean
	Lo, Hi            float64        // the model's interval for one run, at the Result's Level
	Inside            bool
	// Away is how far the game lies from the model's mean, in the model's
	// spreads: the standard deviation of one more run's difference from
	// the mean, s·√(1 + 1/n) (at least the printed precision's half unit
	// over the interval's t factor); signed, + above.
	Away   float64
	NoData bool // the game or the model gives no value
}

// Family is the confidence of compare's verdict for all figures at once:
// if the game is the model, every figure falls inside with a probability
// of at least Family.
const Family = 0.95

// Result is a game beside the model over seeds.
type Result struct {
	Game    *Game
	Seeds   int
	Figures []Figure
	// Level is each figure's interval's confidence: 1 − (1 − Family)/k
	// for the k figures with data (Bonferroni), so that all k hold at
	// once with a probability of at least Family.
	Level float64
}

// Known is how many figures have data (k).
func (r *Result) Known() int {
	k := 0
	for i := range r.Figures {
		if r.Figures[i].hasData() {
			k++
		}
	}
	return k
}

// hasData reports whether both the game and the model (two runs or
// more) give the figure a value.
func (f *Figure) hasData() bool { return f.Model.N >= 2 && !math.IsNaN(f.Game) }

// Inside reports whether the game falls inside the model: it has figures
// with data, and every one lies inside its interval. Under the model this
// fails for at most 1 − Family of games.
func (r *Result) Inside() bool { return r.Known() > 0 && len(r.Outside()) == 0 }

// extra are the figures beside the card's that the game's frames give
// and the model's: what the client's corrector did.
var extra = []struct {
	name, label, unit string
	prec              int
}{
	{"send_interval_mean_s", "send interval, mean", "s", 4},
	{"tick_offset_mean", "tick offset, mean", "", 2},
}

// meter computes a run's figures from its frames: the card, and the
// corrector's means over the frames the card counts.
type meter struct {
	card          *lab.TelemetryMeter
	n             int
	sumIv, sumOff float64
}

func newMeter(cfg *lab.Config) *meter { return &meter{card: lab.NewTelemetryMeter(cfg)} }

func (m *meter) frame(f *telemetry.Frame) {
	if m.card.Frame(f) {
		m.n++
		m.sumIv += f.SendIntervalS
		m.sumOff += float64(f.TickOffset)
	}
}

// values are the figures: the card's, then extra's.
func (m *meter) values() []float64 {
	c := m.card.Card()
	var out []float64
	for _, cm := range lab.CardMetrics {
		out = append(out, cm.Get(&c))
	}
	nan := math.NaN()
	iv, off := nan, nan
	if m.n > 0 {
		iv, off = m.sumIv/float64(m.n), m.sumOff/float64(m.n)
	}
	return append(out, iv, off)
}

// Run runs the model on g's link and timeline over seeds 1…n (workers at
// once) and sets g's figures beside the model's.
func Run(g *Game, n, workers int) (*Result, error) {
	gm := newMeter(&g.Config)
	for i := range g.Frames {
		gm.frame(&g.Frames[i])
	}
	game := gm.values()
	runs, err := batch.Each(&batch.Runner{Workers: workers}, n, func(w *batch.Worker, i int) ([]float64, error) {
		// The model's client starts at a phase drawn from the seed against
		// the server's steps, as a session's (client.start); its run is
		// the game's frames' span from there, and the timeline moves with it.
		cfg := &w.Config
		*cfg = g.Config
		cfg.Seed = uint64(i + 1)
		cfg.ClientStart = time.Duration(sim.NewRand(cfg.Seed, "compare.start").Int64N(int64(time.Second)))
		cfg.Duration = cfg.ClientStart + g.Duration
		if err := w.Start(nil); err != nil {
			return nil, err
		}
		s := &w.Session
		for _, c := range g.Changes {
			if at := c.At.Add(cfg.ClientStart); at <= sim.Time(cfg.Duration) {
				if err := s.Schedule(at, c.Key, c.Value); err != nil {
					return nil, fmt.Errorf("%s at %v: %w", c.Key, c.At, err)
				}
			}
		}
		m := newMeter(cfg)
		s.OnFrame = m.frame
		if err := s.Run(sim.Time(cfg.Duration)); err != nil {
			return nil, err
		}
		return m.values(), nil
	})
	if err != nil {
		return nil, fmt.Errorf("the model on %s's link: %w", g.Name, err)
	}
	res := &Result{Game: g, Seeds: n}
	for k := range game {
		f := Figure{Game: game[k]}
		if k < len(lab.CardMetrics) {
			cm := lab.CardMetrics[k]
			if lab.NotInTelemetry[cm.Name] != "" {
				continue
			}
			f.Name, f.Label, f.Unit, f.Prec = cm.Name, cm.Label, cm.Unit, cm.Prec
		} else {
			e := extra[k-len(lab.CardMetrics)]
			f.Name, f.Label, f.Unit, f.Prec = e.name, e.label, e.unit, e.prec
		}
		var xs []float64
		for _, r := range runs {
			if !math.IsNaN(r[k]) {
				xs = append(xs, r[k])
			}
		}
		f.Model = stats.Mean(xs)
		res.Figures = append(res.Figures, f)
	}
	res.judge()
	return res, nil
}

// judge sets r's Level from its figures with data and each figure's
// interval and verdict at that level.
func (r *Result) judge() {
	r.Level = familyLevel(r.Known())
	for i := range r.Figures {
		f := &r.Figures[i]
		f.Lo, f.Hi, f.Inside, f.Away, f.NoData = oneRun(f.Model, f.Game, f.Prec, r.Level)
	}
}

// familyLevel is the confidence of each of k intervals that hold all at
// once with a probability of at least Family: 1 − (1 − Family)/k
// (Bonferroni: the chance that any of k falls outside is at most the sum
// of their chances). One figure, or none, keeps Family.
func familyLevel(k int) float64 {
	return 1 - (1-Family)/float64(max(k, 1))
}

// oneRun is the model's interval of confidence level for one more run,
// mean ± t·s·√(1 + 1/n) with t Student's two-sided factor for n − 1
// degrees of freedom, widened to half a unit of the last decimal printed
// (a difference the table cannot show is none); whether game lies in it,
// and how many spreads away it lies. With fewer than two model runs, or no
// game value, there is no data.
func oneRun(iv stats.Interval, game float64, prec int, level float64) (lo, hi float64, inside bool, away float64, noData bool) {
	if f := (Figure{Model: iv, Game: game}); !f.hasData() {
		return math.NaN(), math.NaN(), false, math.NaN(), true
	}
	t := stats.TTwoSided(level, iv.N-1)
	half := t * iv.SD * math.Sqrt(1+1/float64(iv.N))
	half = max(half, 0.5*math.Pow(10, -float64(prec)))
	lo, hi = iv.Mean-half, iv.Mean+half
	return lo, hi, lo <= game && game <= hi, (game - iv.Mean) / (half / t), false
}

// Outside are the figures outside the model's interval, the farthest
// first.
func (r *Result) Outside() []Figure {
	var out []Figure
	for _, f := range r.Figures {
		if !f.NoData && !f.Inside {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b Figure) int { return -cmpAbs(a.Away, b.Away) })
	return out
}

func cmpAbs(a, b float64) int {
	switch a, b = math.Abs(a), math.Abs(b); {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
