package lab

import (
	"io"
	"time"

	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// A Plot is the chart 'lab plot' draws of a window of a session: the
// session's samples, decimated as they come to what the image's pixel
// columns show ([metrics.Decimator]: memory does not grow with the
// session's length), in the panels its client's settings draw
// ([metrics.StandardPanels]).
type Plot struct {
	cfg   *Config
	dec   *metrics.Decimator
	width int
}

// NewPlot is an empty plot, width pixels wide, of a session of cfg.
func NewPlot(cfg *Config, width int) *Plot {
	p := &Plot{cfg: cfg, width: width}
	p.dec = metrics.NewDecimator(p.panels(), metrics.PlotColumns(width))
	return p
}

func (p *Plot) panels() []metrics.Panel {
	cc := p.cfg.Client
	return metrics.StandardPanels(cc.Band, cc.IntervalFast.Seconds(), cc.IntervalSlow.Seconds(), cc.Snap)
}

// Scan adds the samples of the recording r from from to to.
func (p *Plot) Scan(r *recordings.Reader, from, to sim.Time) error {
	return r.Scan(from, to, func(x *metrics.Sample) error { p.dec.Add(x); return nil }, nil)
}

// Run runs s to to and adds its samples from from on.
func (p *Plot) Run(s *Session, from, to sim.Time) error {
	s.OnSample = func(x *metrics.Sample) {
		if t := time.Duration(x.TS * 1e9); t >= time.Duration(from) && t <= time.Duration(to) {
			p.dec.Add(x)
		}
	}
	return s.Run(to)
}

// Len is how many samples were added.
func (p *Plot) Len() int { return p.dec.Len() }

// Samples are the samples the chart draws, in time order.
func (p *Plot) Samples() []metrics.Sample { return p.dec.Samples() }

// WritePNG draws the chart with title as a PNG image.
func (p *Plot) WritePNG(w io.Writer, title string) error {
	return metrics.WritePNG(w, p.Samples(), p.panels(), p.width, title)
}
