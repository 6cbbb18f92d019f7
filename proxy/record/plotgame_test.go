package record

import (
	"math"
	"net/netip"
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// lab plot draws a recording's telemetry as the proxy's screen charts it
// (issue 25.2): per bin the least and the most tick offset, send interval
// and visible error of the frames that arrived in it. Over 2 s, a bin is
// 1 ms: two frames at 500.2 and 500.7 ms share bin 500, one at 1500.5 ms
// is bin 1500 alone; every other bin has no data; a server tick is no
// frame.
func TestPlotBinsTheGamesFrames(t *testing.T) {
	sw, origin := recordingSwitch(t)
	for _, f := range []struct {
		at       time.Duration
		offset   int64
		interval float64
		pred     motion.Pose // visible at the origin: the error is |pred|
	}{
		{500200 * time.Microsecond, 2, 0.05, motion.Pose{X: 3, Y: 4}},
		{500700 * time.Microsecond, 5, 0.033, motion.Pose{X: 0.6, Y: 0.8}},
		{1500500 * time.Microsecond, -1, 0.048, motion.Pose{}},
	} {
		sw.Telemetry(origin.Add(f.at), &telemetry.Datagram{Kind: telemetry.KindFrame, Frame: telemetry.Frame{TS: f.at.Seconds(),
			TickOffset: f.offset, SendIntervalS: f.interval, Predicted: f.pred}})
	}
	sw.Telemetry(origin.Add(time.Second), &telemetry.Datagram{Kind: telemetry.KindTick, Tick: telemetry.Tick{TS: 1, Tick: 20}})
	r := sw.stop(t, 2*time.Second)
	span := sim.Time(2 * time.Second)
	g, err := readGameBins(r, 0, span, span)
	if err != nil || g.frames != 3 {
		t.Fatalf("%d frames, %v; want 3", g.frames, err)
	}
	for _, c := range []struct {
		name string
		bins []plotBin
		i    int
		want plotBin
	}{
		{"offset, bin 500", g.offset, 500, plotBin{2, 5}},
		{"interval, bin 500", g.interval, 500, plotBin{0.033, 0.05}},
		{"visible error, bin 500", g.visErr, 500, plotBin{1, 5}},
		{"offset, bin 1500", g.offset, 1500, plotBin{-1, -1}},
		{"visible error, bin 1500", g.visErr, 1500, plotBin{0, 0}},
	} {
		if got := c.bins[c.i]; math.Abs(got.lo-c.want.lo) > 1e-12 || math.Abs(got.hi-c.want.hi) > 1e-12 {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	for i := range g.offset {
		if i != 500 && i != 1500 && (!math.IsNaN(g.offset[i].lo) || !math.IsNaN(g.visErr[i].hi)) {
			t.Fatalf("bin %d has data: %+v", i, g.offset[i])
		}
	}
	if p := g.panels(func([]plotBin) func(int) float64 { return nil }); len(p) != 3 || p[0].Title != "game: tick offset (ticks)" {
		t.Errorf("panels %+v; want the game's three", p)
	}
	if p := (&gameBins{}).panels(nil); p != nil {
		t.Errorf("no frame: panels %+v", p)
	}
}

// The game's telemetry can reach the lab before the game's first datagram
// reaches the relay (its client renders and reports from its first frame):
// a plot of the whole recording starts with the earlier, so it draws every
// frame (the end-to-end game test counted 150 of 151 under load).
func TestPlotStartsWithTelemetryBeforeTheFirstClient(t *testing.T) {
	sw, origin := recordingSwitch(t)
	sw.Telemetry(origin.Add(100*time.Millisecond), &telemetry.Datagram{Kind: telemetry.KindFrame, Frame: telemetry.Frame{TS: 0.1, SendIntervalS: 0.05}})
	sw.cur.FlowStarted(1, netip.MustParseAddrPort("127.0.0.1:5001"), origin.Add(500*time.Millisecond))
	sw.Telemetry(origin.Add(700*time.Millisecond), &telemetry.Datagram{Kind: telemetry.KindFrame, Frame: telemetry.Frame{TS: 0.7, SendIntervalS: 0.05}})
	r := sw.stop(t, 2*time.Second)
	changes, err := r.Changes()
	if err != nil || len(changes) == 0 || changes[0].At != sim.Time(500*time.Millisecond) {
		t.Fatalf("changes %v, %v; want the client's start at 500ms", changes, err)
	}
	from, err := plotStart(r, changes[0].At)
	if err != nil || from != sim.Time(100*time.Millisecond) {
		t.Fatalf("the plot starts at %v, %v; want 100ms, the first telemetry", time.Duration(from), err)
	}
	if g, err := readGameBins(r, from, sim.Time(2*time.Second), sim.Time(2*time.Second)-from); err != nil || g.frames != 2 {
		t.Fatalf("%d frames, %v; want both", g.frames, err)
	}
}
