package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"

	"time"

	"jitterlab/client"
	"jitterlab/metrics"
	"jitterlab/motion"
	"jitterlab/observer"
	"jitterlab/server"
	"jitterlab/sim"
)

// BufferSummary is the server's input buffer (server.inputs = buffer) from
// WarmUp on: the depth each step reports, and the cumulative counters.
type BufferSummary struct {
	Target    int    `json:"target"`
	DepthMean Figure `json:"depth_mean"`
	DepthSD   Figure `json:"depth_sd"`
	DepthMin  int    `json:"depth_min"`
	DepthMax  int    `json:"depth_max"`
	Underruns uint64 `json:"underruns"`
	Held      uint64 `json:"held"`
	Dropped   uint64 `json:"dropped"`
	Resyncs   uint64 `json:"resyncs"`
	// server.buffer_mode = auto: the depth target over the steps from
	// WarmUp on (Target is then the starting one).
	Auto       bool   `json:"auto,omitempty"`
	TargetMean Figure `json:"target_mean,omitempty"`
	TargetMin  int    `json:"target_min,omitempty"`
	TargetMax  int    `json:"target_max,omitempty"`
}

// DilationSummary is the client's time-dilation scale (client.corrector =
// dilation) over the frames from WarmUp on.
type DilationSummary struct {
	ScaleMean Figure `json:"scale_mean"`
	ScaleMin  Figure `json:"scale_min"`
	ScaleMax  Figure `json:"scale_max"`
}

// Figure is a summary number that may have no data: NaN, null in JSON.
type Figure float64

// MarshalJSON writes NaN as null.
func (f Figure) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// UnmarshalJSON reads null as NaN.
func (f *Figure) UnmarshalJSON(b []byte) error {
	var p *float64
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*f = Figure(math.NaN())
	if p != nil {
		*f = Figure(*p)
	}
	return nil
}

// FrameSummary is the death-spiral view (client.fixed_cost,
// client.max_catchup): the longest frame, the most fixed updates one frame
// ran, and how far the game clock fell behind local time.
type FrameSummary struct {
	LongestFrameMs   float64 `json:"longest_frame_ms"`
	MaxFixedPerFrame int     `json:"max_fixed_per_frame"`
	GameClockLagS    float64 `json:"game_clock_lag_s"`
}

// variantStats accumulates what the issue-11 variants add to a summary.
type variantStats struct {
	depth, target    steps // the buffer's depth and its auto target, per server step
	scale            metrics.Welford
	scaleN           int
	scaleLo, scaleHi float64
	longestFrame     time.Duration

	// The remote view, from WarmUp on.
	viewPrev    motion.Pose
	viewLast    sim.Time
	viewStarted bool
	viewSpeed   metrics.Welford
	viewDist    float64
	viewTime    [4]time.Duration // by observer.State
	viewDelay   *metrics.Histogram
	viewUsed    metrics.Welford // the interpolation delay in force, ms
}

// ViewSummary is what a remote player sees of our tank (view.interp):
// the judder and mean speed of the interpolated pose, the time spent
// interpolating, extrapolating, frozen or waiting for a first snapshot,
// and the delay behind the server (the server's clock minus the render
// time, ms), over frames from WarmUp on.
type ViewSummary struct {
	Mode           string    `json:"mode"`
	InterpDelayMs  Figure    `json:"interp_delay_ms"` // mean of the delay in force
	JudderMPS      Figure    `json:"judder_mps"`
	MeanSpeedMPS   Figure    `json:"mean_speed_mps"`
	InterpolatingS float64   `json:"interpolating_s"`
	ExtrapolatingS float64   `json:"extrapolating_s"`
	FrozenS        float64   `json:"frozen_s"`
	WaitingS       float64   `json:"waiting_s"`
	BehindServerMs Quantiles `json:"behind_server_ms"`
}

func (v *variantStats) viewSummary(mode string) *ViewSummary {
	nan := Figure(math.NaN())
	vs := &ViewSummary{Mode: mode, InterpDelayMs: nan, JudderMPS: nan, MeanSpeedMPS: nan,
		InterpolatingS: v.viewTime[observer.Interpolating].Seconds(), ExtrapolatingS: v.viewTime[observer.Extrapolating].Seconds(),
		FrozenS: v.viewTime[observer.Frozen].Seconds(), WaitingS: v.viewTime[observer.Waiting].Seconds(),
		BehindServerMs: quantiles(v.viewDelay)}
	var total time.Duration
	for _, d := range v.viewTime {
		total += d
	}
	if total > 0 {
		vs.InterpDelayMs, vs.MeanSpeedMPS = Figure(v.viewUsed.Mean()), Figure(v.viewDist/total.Seconds())
		vs.JudderMPS = Figure(v.viewSpeed.SD())
	}
	return vs
}

// steps accumulates a count of steps: mean, sd, min and max.
type steps struct {
	w        metrics.Welford
	n        int
	min, max int
}

func (st *steps) add(d int16) {
	x := int(d)
	if st.n == 0 {
		st.min, st.max = x, x
	}
	st.n++
	st.min, st.max = min(st.min, x), max(st.max, x)
	st.w.Add(float64(x))
}

func (v *variantStats) addScale(f float64) {
	if v.scaleN == 0 {
		v.scaleLo, v.scaleHi = f, f
	}
	v.scaleN++
	v.scaleLo, v.scaleHi = min(v.scaleLo, f), max(v.scaleHi, f)
	v.scale.Add(f)
}

// summarize adds the sections of the variants in use to sum.
func (v *variantStats) summarize(sum *Summary, cfg *Config, cl *client.Client, svr *server.Server) {
	if cfg.Server.Inputs == server.Buffer || v.depth.n > 0 {
		sv := svr.Counters()
		b := &BufferSummary{Target: cfg.Server.Buffer, Underruns: sv.Underruns, Held: sv.Held, Dropped: sv.Dropped, Resyncs: sv.Resyncs,
			DepthMean: Figure(math.NaN()), DepthSD: Figure(math.NaN())}
		if v.depth.n > 0 {
			b.DepthMean, b.DepthMin, b.DepthMax = Figure(v.depth.w.Mean()), v.depth.min, v.depth.max
			if v.depth.n > 1 {
				b.DepthSD = Figure(v.depth.w.SD())
			}
		}
		if cfg.Server.BufferMode == server.BufferAuto || v.target.n > 0 {
			b.Auto, b.TargetMean, b.TargetMin, b.TargetMax = true, Figure(v.target.w.Mean()), v.target.min, v.target.max
		}
		sum.Buffer = b
	}
	if cfg.Client.Corrector == client.Dilation || v.scaleN > 0 {
		nan := Figure(math.NaN())
		d := &DilationSummary{ScaleMean: nan, ScaleMin: nan, ScaleMax: nan}
		if v.scaleN > 0 {
			d.ScaleMean, d.ScaleMin, d.ScaleMax = Figure(v.scale.Mean()), Figure(v.scaleLo), Figure(v.scaleHi)
		}
		sum.Dilation = d
	}
	if cfg.View.Mode != observer.Off || v.viewStarted {
		sum.View = v.viewSummary(observer.ModeNames[cfg.View.Mode])
	}
	if cc := cfg.Client; cc.FixedCost > 0 || cc.MaxCatchup != client.CatchupOff {
		c := cl.Counters()
		sum.Frames = &FrameSummary{LongestFrameMs: ms(v.longestFrame), MaxFixedPerFrame: c.MaxFixedPerFrame, GameClockLagS: c.CatchupLost.Seconds()}
	}
}

// writeVariants prints the rows of the issue-11 variants in use, if any.
func (sum *Summary) writeVariants(w io.Writer) error {
	if sum.Buffer == nil && sum.Dilation == nil && sum.Frames == nil && sum.View == nil {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if b := sum.Buffer; b != nil {
		target := fmt.Sprintf("target %d", b.Target)
		if b.Auto {
			target = fmt.Sprintf("target auto from %d: mean %.2f, %d–%d", b.Target, b.TargetMean, b.TargetMin, b.TargetMax)
		}
		fmt.Fprintf(tw, "input buffer depth (%s)\tmean %.2f, sd %.2f, min %d, max %d steps\tunderruns %d, held %d, dropped %d, resyncs %d\n",
			target, b.DepthMean, b.DepthSD, b.DepthMin, b.DepthMax, b.Underruns, b.Held, b.Dropped, b.Resyncs)
	}
	if d := sum.Dilation; d != nil {
		fmt.Fprintf(tw, "time dilation\tmean %.4f×, min %.4f×, max %.4f×\n", d.ScaleMean, d.ScaleMin, d.ScaleMax)
	}
	if r := sum.View; r != nil {
		fmt.Fprintf(tw, "remote view (%s, delay %.1f ms)\tjudder %.3f m/s, mean speed %.3f m/s\tinterpolating %.1f s, extrapolating %.1f s, frozen %.1f s\n",
			r.Mode, r.InterpDelayMs, r.JudderMPS, r.MeanSpeedMPS, r.InterpolatingS, r.ExtrapolatingS, r.FrozenS)
		fmt.Fprintf(tw, "remote view behind server (ms)\tp50 %.1f, p95 %.1f, p99 %.1f, max %.1f\n", r.BehindServerMs.P50, r.BehindServerMs.P95, r.BehindServerMs.P99, r.BehindServerMs.Max)
	}
	if f := sum.Frames; f != nil {
		fmt.Fprintf(tw, "frames\tlongest %.1f ms, at most %d fixed updates\tgame clock %.2f s behind\n", f.LongestFrameMs, f.MaxFixedPerFrame, f.GameClockLagS)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}
