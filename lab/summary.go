package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"jitterlab/metrics"
	"jitterlab/netem"
)

// Quantiles are nearest-rank percentiles and the maximum.
type Quantiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// quantiles of h; all NaN (no data, null in JSON) when h is empty.
func quantiles(h *metrics.Histogram) Quantiles {
	if h.Count() == 0 {
		nan := math.NaN()
		return Quantiles{nan, nan, nan, nan}
	}
	return Quantiles{h.Quantile(0.5), h.Quantile(0.95), h.Quantile(0.99), h.Max()}
}

// MarshalJSON writes a figure with no data (NaN) as null.
func (q Quantiles) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range []struct {
		name string
		v    float64
	}{{"p50", q.P50}, {"p95", q.P95}, {"p99", q.P99}, {"max", q.Max}} {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, f.name...)
		b = append(b, `":`...)
		if math.IsNaN(f.v) {
			b = append(b, "null"...)
			continue
		}
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads null as NaN (no data).
func (q *Quantiles) UnmarshalJSON(data []byte) error {
	var raw struct {
		P50, P95, P99, Max *float64
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	get := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	*q = Quantiles{get(raw.P50), get(raw.P95), get(raw.P99), get(raw.Max)}
	return nil
}

// LinkSummary is one direction's counters.
type LinkSummary struct {
	Sent         uint64 `json:"sent"`
	Delivered    uint64 `json:"delivered"`
	Lost         uint64 `json:"lost"`
	QueueDropped uint64 `json:"queue_dropped"`
	Duplicated   uint64 `json:"duplicated"`
	Reordered    uint64 `json:"reordered"`
}

func linkSummary(c netem.Counters) LinkSummary {
	return LinkSummary{c.Sent, c.Delivered, c.Lost, c.QueueDropped, c.Duplicated, c.Reordered}
}

// Summary is the end-of-run report. Frame statistics start WarmUp after
// login. It holds nothing from the wall clock, so the same run gives the
// same Summary.
type Summary struct {
	Seed      uint64   `json:"seed"`
	SimS      float64  `json:"sim_s"`
	Overrides []string `json:"overrides"`
	// Overridden are the scenario's timeline changes the overrides pinned
	// away (lab.Unpinned).
	Overridden []string `json:"timeline_overridden,omitempty"`

	JudderMPS           float64   `json:"judder_mps"`
	MeanVisibleSpeedMPS float64   `json:"mean_visible_speed_mps"`
	CommandedSpeedMPS   float64   `json:"commanded_speed_mps"`
	VisibleErrorM       Quantiles `json:"visible_error_m"`
	CorrectionM         Quantiles `json:"correction_m"`
	RTTMs               Quantiles `json:"rtt_ms"`
	UpOWDMs             Quantiles `json:"up_owd_ms"`
	DownOWDMs           Quantiles `json:"down_owd_ms"`
	InputDelayMs        Quantiles `json:"input_delay_ms"`
	UpJitterMs          Quantiles `json:"up_jitter_ms"`
	DownJitterMs        Quantiles `json:"down_jitter_ms"`

	Snaps       uint64  `json:"snaps"`
	LatchFlips  uint64  `json:"latch_flips"`
	TimeFastS   float64 `json:"time_fast_s"`
	TimeBaseS   float64 `json:"time_base_s"`
	TimeSlowS   float64 `json:"time_slow_s"`
	FinalOffset int     `json:"final_tick_offset"`

	Up   LinkSummary `json:"up"`
	Down LinkSummary `json:"down"`

	InputsSent  uint64 `json:"inputs_sent"`
	Arrived     uint64 `json:"inputs_arrived"`
	Applied     uint64 `json:"inputs_applied"`
	LateDropped uint64 `json:"late_dropped"`
	Overwritten uint64 `json:"overwritten"`
	Starved     uint64 `json:"starved"`
	// Inputs that never reached the server, and those that did only as a
	// redundant copy (server.Counters).
	Lost      uint64 `json:"inputs_lost"`
	Recovered uint64 `json:"inputs_recovered"`

	Card ReportCard `json:"report_card"`
	// Issue 11 variants; absent from JSON while the variant is off.
	Buffer   *BufferSummary   `json:"buffer,omitempty"`
	Dilation *DilationSummary `json:"dilation,omitempty"`
	Frames   *FrameSummary    `json:"frames,omitempty"`
	View     *ViewSummary     `json:"remote_view,omitempty"`
}

// Summary reports the run so far.
func (s *Session) Summary() Summary {
	cc, sv := s.cl.Counters(), s.sv.Counters()
	sum := Summary{
		Seed: s.cfg.Seed, SimS: s.now.Seconds(), Overrides: []string{}, Overridden: append([]string{}, s.dropped...),
		Snaps: cc.Snaps, LatchFlips: cc.LatchFlips,
		TimeFastS: cc.TimeFast.Seconds(), TimeBaseS: cc.TimeBase.Seconds(), TimeSlowS: cc.TimeSlow.Seconds(),
		FinalOffset: s.cl.Offset(),
		Up:          linkSummary(s.up.Counters()), Down: linkSummary(s.down.Counters()),
		InputsSent: cc.Sent, Arrived: sv.Arrived, Applied: sv.Applied,
		LateDropped: sv.LateDropped, Overwritten: sv.Overwritten, Starved: sv.Starved,
		Lost: sv.Lost, Recovered: sv.Recovered,
	}
	s.m.summarize(&sum, &s.cfg, s.cl, s.sv)
	return sum
}

// NoGame says why a run has no report card, in plain words ("the game
// never got going: …"), or "" when it has one (a driving frame counted).
func (sum *Summary) NoGame() string {
	if !math.IsNaN(sum.Card.JudderMPS) {
		return ""
	}
	link := fmt.Sprintf("the link delivered %d of %d packets up and %d of %d down", sum.Up.Delivered, sum.Up.Sent, sum.Down.Delivered, sum.Down.Sent)
	switch {
	case sum.InputsSent == 0:
		return "the game never got going: the client never logged in (" + link + ")"
	case sum.Arrived == 0:
		return "the game never got going: no input reached the server (" + link + ")"
	}
	return fmt.Sprintf("the game never got going: no driving frame was counted (frames count from %v after login; %s): "+
		"the run is too short, or the input never drives", WarmUp, link)
}

// OffPace says, in plain words, that the client did not keep pace with
// the server's ticks: its final tick offset is more than offPaceTicks and
// more than offPaceShare of the ticks the server had stepped since login
// by its latest state (the inputs sent plus the offset). The corrector
// keeps a client that can keep pace within a few ticks whatever the
// latency, so an offset that large grows with the run: the client sends
// fewer inputs than the server steps (behind), or more (ahead). "" when it
// kept pace, or never logged in.
func (sum *Summary) OffPace() string {
	off := sum.FinalOffset
	steps := int64(sum.InputsSent) + int64(off)
	if sum.InputsSent == 0 || steps <= 0 {
		return ""
	}
	if far := abs(float64(off)); far <= offPaceTicks || far <= float64(offPaceShare*float64(steps)) {
		return ""
	}
	way := fmt.Sprintf("fell %d ticks behind", off)
	if off < 0 {
		way = fmt.Sprintf("ran %d ticks ahead of", -off)
	}
	return fmt.Sprintf("the client %s the server (the final tick offset): it sent %d inputs while the server stepped %d ticks; "+
		"'lab diagnose' looks for why", way, sum.InputsSent, steps)
}

// The smallest final tick offset OffPace reports: more ticks than this,
// and more than this share of the server's ticks since login.
const (
	offPaceTicks = 10
	offPaceShare = 0.05
)

// WriteText prints the summary as readable tables.
func (sum *Summary) WriteText(w io.Writer) error {
	table := func(flags uint, rows func(tw *tabwriter.Writer)) error {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', flags)
		rows(tw)
		if err := tw.Flush(); err != nil {
			return err
		}
		_, err := fmt.Fprintln(w)
		return err
	}
	errs := []error{
		table(0, func(tw *tabwriter.Writer) {
			fmt.Fprintf(tw, "simulated\t%.1f s\tseed %d\n", sum.SimS, sum.Seed)
			if len(sum.Overridden) > 0 {
				fmt.Fprintf(tw, "timeline entries overridden by --set\t%s\n", strings.Join(sum.Overridden, ", "))
			}
			if why := sum.NoGame(); why != "" {
				fmt.Fprintf(tw, "warning: %s\n", why)
			}
			if why := sum.OffPace(); why != "" {
				fmt.Fprintf(tw, "warning: %s\n", why)
			}
			if math.IsNaN(sum.Card.JudderMPS) {
				fmt.Fprintf(tw, "mean visible speed\tno data\n")
			} else {
				fmt.Fprintf(tw, "mean visible speed\t%.3f m/s\tcommanded %.3f m/s\n", sum.MeanVisibleSpeedMPS, sum.CommandedSpeedMPS)
			}
			fmt.Fprintf(tw, "snaps\t%d\n", sum.Snaps)
			fmt.Fprintf(tw, "latch flips\t%d\ttime at fast %.1f s, base %.1f s, slow %.1f s\n", sum.LatchFlips, sum.TimeFastS, sum.TimeBaseS, sum.TimeSlowS)
			fmt.Fprintf(tw, "final tick offset\t%d\n", sum.FinalOffset)
		}),
		sum.Card.WriteText(w),
		table(tabwriter.AlignRight, func(tw *tabwriter.Writer) {
			q := func(name string, x Quantiles, prec int) {
				fmt.Fprint(tw, name)
				for _, v := range []float64{x.P50, x.P95, x.P99, x.Max} {
					if math.IsNaN(v) {
						fmt.Fprint(tw, "\t-") // no data
					} else {
						fmt.Fprintf(tw, "\t%.*f", prec, v)
					}
				}
				fmt.Fprint(tw, "\t\n")
			}
			fmt.Fprintln(tw, "\tp50\tp95\tp99\tmax\t")
			q("visible error (m)", sum.VisibleErrorM, 4)
			q("correction (m)", sum.CorrectionM, 4)
			q("rtt (ms)", sum.RTTMs, 2)
			q("up one-way delay (ms)", sum.UpOWDMs, 2)
			q("down one-way delay (ms)", sum.DownOWDMs, 2)
			q("input delay, sample → applied (ms)", sum.InputDelayMs, 2)
			q("up jitter (ms)", sum.UpJitterMs, 2)
			q("down jitter (ms)", sum.DownJitterMs, 2)
		}),
		table(tabwriter.AlignRight, func(tw *tabwriter.Writer) {
			fmt.Fprintln(tw, "link\tsent\tdelivered\tlost\tqueue-dropped\tduplicated\treordered\t")
			for _, l := range []struct {
				n string
				c LinkSummary
			}{{"up", sum.Up}, {"down", sum.Down}} {
				fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t\n", l.n, l.c.Sent, l.c.Delivered, l.c.Lost, l.c.QueueDropped, l.c.Duplicated, l.c.Reordered)
			}
		}),
		table(tabwriter.AlignRight, func(tw *tabwriter.Writer) {
			fmt.Fprintln(tw, "inputs\tsent\tarrived\tlost\trecovered\tapplied\tlate-dropped\toverwritten\tstarved\t")
			fmt.Fprintf(tw, "\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", sum.InputsSent, sum.Arrived, sum.Lost, sum.Recovered, sum.Applied, sum.LateDropped, sum.Overwritten, sum.Starved)
		}),
		sum.writeVariants(w),
	}
	return errors.Join(errs...)
}
