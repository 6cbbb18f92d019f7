package record

import (
	"jitterlab/client"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// gameBins are the game's telemetry frames in a plot's bins, as the
// proxy's screen charts them: per bin the least and the most tick offset,
// send interval and visible error (client.VisibleError of the visible and
// the predicted pose) of the frames that arrived in it; a bin without a
// frame has no data (NaN).
type gameBins struct {
	frames                   int
	offset, interval, visErr []plotBin
}

// readGameBins puts the frames that arrived from from to to into
// plotBins bins over span (the packets' bins).
func readGameBins(r *recordings.Reader, from, to, span sim.Time) (gameBins, error) {
	g := gameBins{offset: newPlotLine(), interval: newPlotLine(), visErr: newPlotLine()}
	err := r.ScanTelemetry(from, to, func(at sim.Time, d *telemetry.Datagram) error {
		if d.Kind != telemetry.KindFrame {
			return nil
		}
		g.frames++
		i := min(int(int64(at-from)*plotBins/int64(span)), plotBins-1)
		f := &d.Frame
		g.offset[i].add(float64(f.TickOffset))
		g.interval[i].add(f.SendIntervalS)
		g.visErr[i].add(client.VisibleError(f.Visible, f.Predicted))
		return nil
	})
	return g, err
}

// panels are the game's three panels, titled and coloured as the lab's
// (metrics.StandardPanels) with "game:" before, without the lab's
// reference lines (the game's band, intervals and snap are its own); none
// without a frame.
func (g *gameBins) panels(at func([]plotBin) func(int) float64) []metrics.Panel {
	if g.frames == 0 {
		return nil
	}
	var out []metrics.Panel
	for i, p := range metrics.StandardPanels(0, 0, 0, 0)[:3] {
		bins := [][]plotBin{g.offset, g.interval, g.visErr}[i]
		out = append(out, metrics.Panel{Title: "game: " + p.Title, Color: p.Color, Series: []metrics.Series{{Color: p.Color, Value: at(bins)}}})
	}
	return out
}
