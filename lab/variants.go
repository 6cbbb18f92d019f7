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
	"jitterlab/server"
)

// BufferSummary is the server's input buffer (server.inputs = buffer) from
// WarmUp on: the depth each step reports, and the cumulative counters.
type BufferSummary struct {
	Target     int    `json:"target"`
	DepthMean  Figure `json:"depth_mean"`
	DepthSD    Figure `json:"depth_sd"`
	DepthMin   int    `json:"depth_min"`
	DepthMax   int    `json:"depth_max"`
	Underruns  uint64 `json:"underruns"`
	Overflowed uint64 `json:"overflowed"`
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
	depth            metrics.Welford
	depthN           int
	depthMin         int
	depthMax         int
	scale            metrics.Welford
	scaleN           int
	scaleLo, scaleHi float64
	longestFrame     time.Duration
}

func (v *variantStats) addDepth(d int16) {
	x := int(d)
	if v.depthN == 0 {
		v.depthMin, v.depthMax = x, x
	}
	v.depthN++
	v.depthMin, v.depthMax = min(v.depthMin, x), max(v.depthMax, x)
	v.depth.Add(float64(x))
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
func (v *variantStats) summarize(sum *Summary, s *Session) {
	if s.cfg.Server.Inputs == server.Buffer || v.depthN > 0 {
		sv := s.sv.Counters()
		b := &BufferSummary{Target: s.cfg.Server.Buffer, Underruns: sv.Underruns, Overflowed: sv.Overflowed,
			DepthMean: Figure(math.NaN()), DepthSD: Figure(math.NaN())}
		if v.depthN > 0 {
			b.DepthMean, b.DepthMin, b.DepthMax = Figure(v.depth.Mean()), v.depthMin, v.depthMax
			if v.depthN > 1 {
				b.DepthSD = Figure(v.depth.SD())
			}
		}
		sum.Buffer = b
	}
	if s.cfg.Client.Corrector == client.Dilation || v.scaleN > 0 {
		nan := Figure(math.NaN())
		d := &DilationSummary{ScaleMean: nan, ScaleMin: nan, ScaleMax: nan}
		if v.scaleN > 0 {
			d.ScaleMean, d.ScaleMin, d.ScaleMax = Figure(v.scale.Mean()), Figure(v.scaleLo), Figure(v.scaleHi)
		}
		sum.Dilation = d
	}
	if cc := s.cfg.Client; cc.FixedCost > 0 || cc.MaxCatchup != client.CatchupOff {
		c := s.cl.Counters()
		sum.Frames = &FrameSummary{LongestFrameMs: ms(v.longestFrame), MaxFixedPerFrame: c.MaxFixedPerFrame, GameClockLagS: c.CatchupLost.Seconds()}
	}
}

// writeVariants prints the rows of the issue-11 variants in use, if any.
func (sum *Summary) writeVariants(w io.Writer) error {
	if sum.Recovered == 0 && sum.Buffer == nil && sum.Dilation == nil && sum.Frames == nil {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if sum.Recovered > 0 {
		fmt.Fprintf(tw, "inputs recovered from redundancy\t%d\n", sum.Recovered)
	}
	if b := sum.Buffer; b != nil {
		fmt.Fprintf(tw, "input buffer depth (target %d)\tmean %.2f, sd %.2f, min %d, max %d steps\tunderruns %d, overflowed %d\n",
			b.Target, b.DepthMean, b.DepthSD, b.DepthMin, b.DepthMax, b.Underruns, b.Overflowed)
	}
	if d := sum.Dilation; d != nil {
		fmt.Fprintf(tw, "time dilation\tmean %.4f×, min %.4f×, max %.4f×\n", d.ScaleMean, d.ScaleMin, d.ScaleMax)
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
