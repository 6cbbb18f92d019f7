package lab

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// The card from a session's telemetry frames is the session's own card,
// figure for figure, for every figure telemetry carries (issue 25.2: the
// same code on the real frames): on links and scripts of several kinds.
func TestTelemetryCardIsTheSessionsCard(t *testing.T) {
	for _, c := range []struct{ script, latency, jitter, loss string }{
		{"steady", "0", "0", "0"},
		{"stopgo", "50ms", "20ms", "2%"},
		{"zigzag", "80ms", "30ms", "0"},
	} {
		for seed := uint64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("%s-%s-%s-seed%d", c.script, c.latency, c.jitter, seed), func(t *testing.T) {
				cfg := DefaultConfig()
				cfg.Seed, cfg.Duration = seed, 30*time.Second
				for _, kv := range [][2]string{{"input.script", c.script}, {"link.latency", c.latency}, {"link.jitter", c.jitter}, {"link.loss", c.loss}} {
					if err := Set(&cfg, kv[0], kv[1]); err != nil {
						t.Fatal(err)
					}
				}
				s, err := New(cfg, 0)
				if err != nil {
					t.Fatal(err)
				}
				var frames []telemetry.Frame
				s.OnFrame = func(f *telemetry.Frame) { frames = append(frames, *f) }
				if err := s.Run(sim.Time(cfg.Duration)); err != nil {
					t.Fatal(err)
				}
				want, got := s.Summary().Card, TelemetryCard(&cfg, frames)
				for _, m := range CardMetrics {
					w, g := m.Get(&want), m.Get(&got)
					if NotInTelemetry[m.Name] != "" {
						if !math.IsNaN(g) {
							t.Errorf("%s: %v, want no data: telemetry does not carry it", m.Name, g)
						}
						continue
					}
					if !(math.Abs(w-g) <= 1e-9*max(1, math.Abs(w))) && !(math.IsNaN(w) && math.IsNaN(g)) {
						t.Errorf("%s: %v from telemetry, %v in the session", m.Name, g, w)
					}
				}
			})
		}
	}
}

// steadyFrames are n frames at fps of a tank driven at full throttle along
// +y at speed m/s (visible) with the prediction lead metres ahead, logged
// in from frame login on (one input sent each frame from there).
func steadyFrames(n, fps, login int, speed, lead float64) []telemetry.Frame {
	fs := make([]telemetry.Frame, n)
	for i := range fs {
		ts := float64(i) / float64(fps)
		y := speed * ts
		f := telemetry.Frame{TS: ts, Frame: uint64(i), Input: motion.Input{Throttle: 1},
			Visible: motion.Pose{Y: y}, Predicted: motion.Pose{Y: y + lead}, SendIntervalS: 0.05}
		if i >= login {
			f.AckTick, f.PendingInputs = uint32(i-login), 1
		}
		fs[i] = f
	}
	return fs
}

// The card's figures on frames where the answer is known by hand.
func TestTelemetryCardByHand(t *testing.T) {
	cfg := DefaultConfig() // client.move_speed 2 m/s
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if !(math.Abs(got-want) <= tol) {
			t.Errorf("%s: %v, want %v ± %v", name, got, want, tol)
		}
	}
	// 61 s at 50 fps at the commanded 2 m/s, 0.2 m behind the prediction,
	// logged in at frame 0: counted from 1 s on, nothing lost, a lag of
	// 0.2 m, 0.1 s at 2 m/s.
	c := TelemetryCard(&cfg, steadyFrames(61*50+1, 50, 0, 2, 0.2))
	near("progress deficit m/s", c.ProgressDeficitMPS, 0, 1e-9)
	near("judder", c.JudderMPS, 0, 1e-9)
	near("rubber bands", c.BackwardExcursionsPerMin, 0, 0)
	near("hesitations", c.HesitationsPerMin, 0, 0)
	near("visible lag m p50", c.VisibleLagM.P50, 0.2, 1e-4)
	near("visible lag ms p50", c.VisibleLagMs.P50, 100, 0.02)
	if !math.IsNaN(c.LocalResponseMs.P50) {
		t.Errorf("local response %v without a throttle change: want no data", c.LocalResponseMs.P50)
	}
	for _, m := range CardMetrics {
		if v := m.Get(&c); (NotInTelemetry[m.Name] != "") != math.IsNaN(v) && !strings.HasPrefix(m.Name, "local_response") {
			t.Errorf("%s = %v: NaN exactly when telemetry does not carry it", m.Name, v)
		}
	}
	// At 1.5 m/s of the commanded 2: a deficit of 0.5 m/s, 25 %.
	c = TelemetryCard(&cfg, steadyFrames(61*50+1, 50, 0, 1.5, 0.2))
	near("progress deficit m/s at 1.5", c.ProgressDeficitMPS, 0.5, 1e-9)
	near("progress deficit % at 1.5", c.ProgressDeficitPct, 25, 1e-7)
	// Standing still for 5 s before login counts for nothing: the card of
	// frames logged in at 5 s is that of the same motion from 0.
	fs := steadyFrames(66*50+1, 50, 5*50, 2, 0.2)
	for i := range 5 * 50 {
		fs[i].Visible, fs[i].Predicted = motion.Pose{}, motion.Pose{}
	}
	for i := 5 * 50; i < len(fs); i++ {
		fs[i].Visible.Y -= 10
		fs[i].Predicted.Y -= 10
	}
	fs[5*50].Visible.Y, fs[5*50].Predicted.Y = 0, 0.2 // the login frame, where the tank starts
	c2 := TelemetryCard(&cfg, fs)
	near("deficit after a late login", c2.ProgressDeficitMPS, 0, 1e-9)
	near("lag after a late login", c2.VisibleLagM.P50, 0.2, 1e-4)
	// One backward jump of 5 cm in 60 counted seconds: one rubber band a
	// minute, 0.05 m backward a minute.
	fs = steadyFrames(61*50+1, 50, 0, 2, 0.2)
	for i := 30 * 50; i < len(fs); i++ {
		fs[i].Visible.Y -= 0.05 + 2.0/50 // frame 1500 moves 5 cm back instead of 4 cm on
	}
	c = TelemetryCard(&cfg, fs)
	near("rubber bands", c.BackwardExcursionsPerMin, 1, 1e-9)
	near("backward m/min", c.BackwardMPerMin, 0.05, 1e-9)
	// A frame repeated and one out of order are skipped, and counted.
	fs = steadyFrames(61*50+1, 50, 0, 2, 0.2)
	fs = append(fs[:100:100], append([]telemetry.Frame{fs[99], fs[50]}, fs[100:]...)...)
	m := NewTelemetryMeter(&cfg)
	for i := range fs {
		m.Frame(&fs[i])
	}
	if c := m.Card(); m.Skipped() != 2 || math.Abs(c.ProgressDeficitMPS) > 1e-9 {
		t.Errorf("skipped %d, deficit %v: want 2 frames skipped, none lost", m.Skipped(), c.ProgressDeficitMPS)
	}
	// Every name telemetry does not carry is a card figure.
	names := map[string]bool{}
	for _, m := range CardMetrics {
		names[m.Name] = true
	}
	for n := range NotInTelemetry {
		if !names[n] {
			t.Errorf("NotInTelemetry names %s, no card figure", n)
		}
	}
}

// BenchmarkTelemetryMeterFrame is the cost of one telemetry frame on the
// card: what lab replay and lab compare pay a frame.
func BenchmarkTelemetryMeterFrame(b *testing.B) {
	cfg := DefaultConfig()
	fs := steadyFrames(3600, 60, 0, 2, 0.2)
	m := NewTelemetryMeter(&cfg)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		f := fs[i%len(fs)]
		f.TS += float64(i/len(fs)) * 60
		m.Frame(&f)
	}
}

// Counted is how many frames Frame said the card counts: none before the
// warm-up after login, every later one, none repeated.
func TestTelemetryMeterCountsWhatItCounts(t *testing.T) {
	cfg := DefaultConfig()
	m := NewTelemetryMeter(&cfg)
	var said uint64
	for i := range 300 { // 5 s at 60 fps, a tick sent from the first frame
		f := telemetry.Frame{TS: float64(i) / 60, AckTick: uint32(i / 3), PendingInputs: 1}
		if m.Frame(&f) {
			said++
		}
		if i%50 == 0 {
			m.Frame(&f) // repeated: skipped
		}
	}
	if m.Counted() != said || said == 0 || said >= 300 || m.Skipped() != 6 {
		t.Errorf("counted %d, Frame said %d of 300, skipped %d; want equal, after the warm-up, 6 skipped", m.Counted(), said, m.Skipped())
	}
}
