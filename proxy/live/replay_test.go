package live

import (
	"bytes"
	"math"
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/motion"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// A proxy recording played back as the screen reads a relay: up to 1 s,
// three up datagrams read (one lost, one delivered 40 ms late, one
// delivered with a duplicate, reordered) and one down dropped by the
// relay; at 2 s one more delivered, the latency set to 80 ms at 1.5 s;
// 90 frames of a game at 60 frames/s. Each snapshot hands the delays and
// frames since the previous one over once; the time stops at the end.
func TestReplaySourcePlaysAProxyRecording(t *testing.T) {
	cfg := lab.DefaultConfig()
	h := lab.HeaderOf(cfg, "replayed", 0)
	h.Kind = recordings.KindProxy
	var buf bytes.Buffer
	w, err := recordings.NewWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	ms := func(x float64) sim.Time { return sim.Time(x * 1e6) }
	for _, p := range []recordings.Packet{
		{At: ms(100), In: ms(100), Fate: recordings.PacketLost, Flow: 1, Size: 10},
		{At: ms(240), In: ms(200), Out: ms(240), Fate: recordings.PacketDelivered, Flow: 1, Size: 10},
		{At: ms(300), In: ms(280), Out: ms(300), Fate: recordings.PacketDelivered, Flow: 1, Size: 20, Reordered: true},
		{At: ms(310), In: ms(280), Out: ms(310), Fate: recordings.PacketDelivered, Flow: 1, Size: 20, Copy: 1},
		{At: ms(500), In: ms(500), Dir: 1, Fate: recordings.PacketOverLimit, Flow: 1, Size: 30},
		{At: ms(2000), In: ms(1950), Out: ms(2000), Fate: recordings.PacketDelivered, Flow: 1, Size: 10},
	} {
		if err := w.Packet(&p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Change(recordings.Change{At: ms(1500), Key: "up.latency", Value: "80ms"}); err != nil {
		t.Fatal(err)
	}
	for i := range 90 {
		at := ms(float64(i) * 1000 / 60)
		f := telemetry.Frame{TS: at.Seconds(), Frame: uint64(i), AckTick: uint32(i / 3), PendingInputs: 1, Input: motion.Input{Throttle: 1},
			Visible: motion.Pose{Y: float64(i) / 30}, Predicted: motion.Pose{Y: float64(i)/30 + 0.1}, TickOffset: 2, SendIntervalS: 0.05}
		if err := w.Telemetry(at, &telemetry.Datagram{Kind: telemetry.KindFrame, Frame: f}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recordings.End{At: ms(2000)}); err != nil {
		t.Fatal(err)
	}
	r, err := recordings.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	src, err := NewReplaySource(r, "r.jlrec", clock)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	s := src.Snapshot()
	if s.Wall != time.Second || s.Up.In != 3 || s.Up.Delivered != 3 || s.Up.Lost != 1 || s.Up.Duplicated != 1 || s.Up.Reordered != 1 ||
		s.Up.Bytes != 50 || s.Down.In != 1 || s.Down.Dropped != 1 || s.Clients != 1 {
		t.Fatalf("at 1 s: %+v", s)
	}
	if d := s.Up.DelaysMs; len(d) != 3 || d[0] != 40 || d[1] != 20 || d[2] != 30 {
		t.Errorf("delays %v; want 40 20 30 ms", d)
	}
	if s.Game == nil || s.Game.Frames != 61 || len(s.Game.Points) != 61 || s.Game.Points[60].At != time.Second || s.Game.Points[0].TickOffset != 2 {
		t.Fatalf("game at 1 s: %+v", s.Game)
	}
	if got := src.Get("up.latency"); got != "0" && got != "0s" {
		t.Errorf("up.latency at 1 s %q; want the start's 0", got)
	}
	if err := src.Apply([][2]string{{"up.latency", "10ms"}}); err == nil {
		t.Error("a replay applied a setting")
	}
	clock.Advance(5 * time.Second) // past the end: the time stops there
	s = src.Snapshot()
	if s.Wall != 2*time.Second || s.Up.In != 4 || len(s.Up.DelaysMs) != 1 || s.Up.DelaysMs[0] != 50 || s.Game.Frames != 90 || len(s.Game.Points) != 29 {
		t.Fatalf("at the end: wall %v, in %d, delays %v, game %d frames, %d points", s.Wall, s.Up.In, s.Up.DelaysMs, s.Game.Frames, len(s.Game.Points))
	}
	if got := src.Get("up.latency"); got != "80ms" || len(s.Changes) != 1 || s.Changes[0].At != 1500*time.Millisecond {
		t.Errorf("up.latency %q, changes %+v; want 80ms from 1.5 s", got, s.Changes)
	}
	frames := make([]telemetry.Frame, 0, 90)
	r.ScanTelemetry(0, ms(2000), func(_ sim.Time, d *telemetry.Datagram) error { frames = append(frames, d.Frame); return nil })
	want := lab.TelemetryCard(&cfg, frames)
	if a, b := s.Game.Card.VisibleLagM.P50, want.VisibleLagM.P50; a != b || math.IsNaN(a) || s.Game.CardFrames == 0 {
		t.Errorf("the card's visible lag %v m over %d frames; lab.TelemetryCard's %v", a, s.Game.CardFrames, b)
	}
	if s = src.Snapshot(); len(s.Up.DelaysMs) != 0 || len(s.Game.Points) != 0 || s.Up.In != 4 {
		t.Errorf("the same packets handed over again: %+v", s)
	}
}
