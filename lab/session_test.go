package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"jitterlab/metrics"
	"jitterlab/param"
	"jitterlab/sim"
)

func config(t testing.TB, d time.Duration, sets ...string) Config {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Duration = d
	for _, a := range sets {
		k, v, err := ParseAssignment(a)
		if err == nil {
			err = Set(&cfg, k, v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

// run simulates cfg and returns its samples, CSV bytes and summary.
func run(t testing.TB, cfg Config) ([]metrics.Sample, []byte, Summary) {
	t.Helper()
	s, err := New(cfg, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, _ := metrics.NewCSVWriter(&buf)
	var samples []metrics.Sample
	s.OnSample = func(x *metrics.Sample) {
		samples = append(samples, *x)
		w.Write(x)
	}
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return samples, buf.Bytes(), s.Summary()
}

const jittery = "link.latency=50ms"

func TestSameSeedSameBytes(t *testing.T) {
	sets := []string{"link.latency=40ms", "link.jitter=25ms", "link.loss=3%", "link.duplicate=1%", "link.reorder=2%", "client.frame_jitter=3ms", "input.script=random"}
	cfg := config(t, 20*time.Second, sets...)
	_, csv1, sum1 := run(t, cfg)
	_, csv2, sum2 := run(t, cfg)
	if !bytes.Equal(csv1, csv2) {
		t.Fatal("same seed and settings gave different CSV")
	}
	j1, _ := json.Marshal(sum1)
	j2, _ := json.Marshal(sum2)
	if !bytes.Equal(j1, j2) {
		t.Fatal("same seed and settings gave different summaries")
	}
	cfg.Seed = 2
	_, csv3, _ := run(t, cfg)
	if bytes.Equal(csv1, csv3) {
		t.Fatal("a different seed gave the same CSV")
	}
	if n := bytes.Count(csv1, []byte("\n")); n != 401 {
		t.Fatalf("20 s every 50 ms should give 400 rows + header, got %d lines", n)
	}
}

func TestPerfectLinkWithAccumulatorSender(t *testing.T) {
	cfg := config(t, 5*time.Minute, "client.sender=accumulator")
	samples, _, sum := run(t, cfg)
	if sum.LateDropped != 0 || sum.Overwritten != 0 {
		t.Fatalf("perfect link: late-dropped %d overwritten %d, want 0", sum.LateDropped, sum.Overwritten)
	}
	if sum.Snaps != 0 {
		t.Fatalf("perfect link: %d snaps", sum.Snaps)
	}
	// Starvation only while warming up: none after the first second.
	var starvedAt1s uint64
	for _, s := range samples {
		if s.TS <= 1 {
			starvedAt1s = s.Starved
		} else if s.Starved != starvedAt1s {
			t.Fatalf("starved rose to %d at %.2f s", s.Starved, s.TS)
		}
		if s.TS > 1 && (s.TickOffset < -2 || s.TickOffset > 2) {
			t.Fatalf("tick offset %d at %.2f s is not bounded by the band", s.TickOffset, s.TS)
		}
	}
	// The structural lag is real and shown: the target moves only on
	// PlayerState and smoothing trails it (docs/explanation/model.md, "Structural lag").
	if sum.VisibleErrorM.P50 < 0.1 || sum.VisibleErrorM.Max > 0.5 {
		t.Fatalf("visible error %+v: want the structural lag, below the snap line", sum.VisibleErrorM)
	}
	if math.Abs(sum.MeanVisibleSpeedMPS-2) > 0.01 || sum.JudderMPS <= 0 {
		t.Fatalf("perfect link: speed %v judder %v", sum.MeanVisibleSpeedMPS, sum.JudderMPS)
	}
	t.Logf("perfect link: judder %.3f m/s, visible error %+v", sum.JudderMPS, sum.VisibleErrorM)
}

func TestReferenceOnJitteryLinkPullsBack(t *testing.T) {
	perfect := config(t, 2*time.Minute)
	jitter := config(t, 2*time.Minute, jittery, "link.jitter=20ms")
	_, _, p := run(t, perfect)
	_, _, j := run(t, jitter)
	t.Logf("perfect: judder %.3f speed %.3f starved %d overwritten %d corr p95 %.3f", p.JudderMPS, p.MeanVisibleSpeedMPS, p.Starved, p.Overwritten, p.CorrectionM.P95)
	t.Logf("jitter:  judder %.3f speed %.3f starved %d overwritten %d corr p95 %.3f", j.JudderMPS, j.MeanVisibleSpeedMPS, j.Starved, j.Overwritten, j.CorrectionM.P95)
	if j.Starved <= p.Starved+20 || j.Overwritten <= p.Overwritten+20 {
		t.Error("jitter should starve and overwrite inputs on the reference server")
	}
	if j.CorrectionM.P95 <= p.CorrectionM.P95 || j.JudderMPS <= p.JudderMPS*1.2 {
		t.Error("jitter should raise corrections and judder")
	}
	if j.MeanVisibleSpeedMPS >= j.CommandedSpeedMPS*0.98 {
		t.Errorf("mean visible speed %.3f should fall below the commanded %.3f", j.MeanVisibleSpeedMPS, j.CommandedSpeedMPS)
	}
	// The queue server removes the pull-back on the same seed.
	_, _, q := run(t, config(t, 2*time.Minute, jittery, "link.jitter=20ms", "server.inputs=queue"))
	if math.Abs(q.MeanVisibleSpeedMPS-q.CommandedSpeedMPS) > 0.01*q.CommandedSpeedMPS || q.Overwritten != 0 {
		t.Errorf("queue server: speed %.3f of %.3f, overwritten %d", q.MeanVisibleSpeedMPS, q.CommandedSpeedMPS, q.Overwritten)
	}
}

func TestClientDriftDrivesItsClock(t *testing.T) {
	// With no correction and the accumulator sender, the client sends at
	// 20 Hz of its own clock: +2 % drift sends 2 % more inputs.
	base := config(t, 100*time.Second, "client.sender=accumulator", "client.corrector=off")
	fast := config(t, 100*time.Second, "client.sender=accumulator", "client.corrector=off", "client.drift_ppm=+2%")
	_, _, b := run(t, base)
	_, _, f := run(t, fast)
	ratio := float64(f.InputsSent) / float64(b.InputsSent)
	if math.Abs(ratio-1.02) > 0.002 {
		t.Fatalf("inputs sent ratio %.4f (%d/%d), want 1.02", ratio, f.InputsSent, b.InputsSent)
	}
}

func TestTimelineChangeShowsInCSVAtItsTime(t *testing.T) {
	cfg := config(t, 40*time.Second, "link.latency=20ms")
	s, err := New(cfg, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var samples []metrics.Sample
	s.OnSample = func(x *metrics.Sample) { samples = append(samples, *x) }
	if err := s.Schedule(sim.Time(30*time.Second), "up.latency", "150ms"); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	jump := -1.0
	for _, x := range samples {
		if x.RTTMs > 100 {
			jump = x.TS
			break
		}
	}
	if math.Abs(jump-30.15) > 0.1 {
		t.Fatalf("RTT jumped at %.2f s, want 30 s + the new one-way delay ± one sample", jump)
	}
	if c := s.Changes(); len(c) != 1 || c[0].At != sim.Time(30*time.Second) {
		t.Fatalf("change log %+v", c)
	}
	if err := s.Schedule(0, "up.latency", "1ms"); err == nil {
		t.Fatal("a change in the past was accepted")
	}
	if err := s.Schedule(s.Now(), "sim.seed", "3"); err == nil {
		t.Fatal("sim.seed changed during a run")
	}
}

func TestRegistryRoundTripsAndRejects(t *testing.T) {
	def := DefaultConfig()
	for _, p := range Params() {
		cfg := DefaultConfig()
		v := p.Get(&def)
		if strings.Contains(v, "/") {
			continue // link.* with different directions
		}
		if err := Set(&cfg, p.Key, v); err != nil {
			t.Errorf("%s: its own value %q is rejected: %v", p.Key, v, err)
		}
	}
	bad := map[string]string{
		"up.latency": "-5ms", "down.loss": "120%", "link.jitter_corr": "1.5", "up.jitter_dist": "gaussian",
		"client.sender": "sometimes", "client.fps": "0", "server.tick": "0", "client.drift_ppm": "40",
		"up.rate": "fast", "link.loss": "NaN", "client.frame_jitter": "30ms", "up.loss_burst": "0.5",
	}
	for k, v := range bad {
		cfg := DefaultConfig()
		err := Set(&cfg, k, v)
		if err == nil {
			t.Errorf("%s=%s accepted", k, v)
			continue
		}
		var pe *param.Error
		if errors.As(err, &pe) && (pe.Key != k || pe.Value != v) {
			t.Errorf("%s=%s: error names %s=%s", k, v, pe.Key, pe.Value)
		}
		if !strings.Contains(err.Error(), strings.SplitN(k, ".", 2)[1]) {
			t.Errorf("%s=%s: error %q does not name the key", k, v, err)
		}
	}
	cfg := DefaultConfig()
	err := Set(&cfg, "up.jiter", "5ms")
	var uk *UnknownKeyError
	if !errors.As(err, &uk) || !strings.Contains(err.Error(), "up.jiter") || !strings.Contains(err.Error(), "up.jitter") {
		t.Fatalf("typo: %v", err)
	}
	if err := Set(&cfg, "link.latency", "80ms"); err != nil || cfg.Up.Latency != 80*time.Millisecond || cfg.Down.Latency != 80*time.Millisecond {
		t.Fatal("link.* should set both directions")
	}
}

func TestSteadyStateDoesNotAllocate(t *testing.T) {
	cfg := config(t, time.Hour, jittery, "link.jitter=20ms", "link.loss=1%")
	s, err := New(cfg, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	s.Run(sim.Time(10 * time.Second))
	allocs := testing.AllocsPerRun(20, func() { s.Run(s.Now() + sim.Time(time.Second)) })
	if allocs != 0 {
		t.Fatalf("one simulated second allocates %v times in steady state", allocs)
	}
}

// BenchmarkSessionHour simulates one hour of the default scenario (the
// reference game on a perfect link), and of it on a jittery, lossy link,
// with the full model per op. BenchmarkSessionHourBareLoop, which
// -bench SessionHour runs alongside, is the floor to compare it with;
// built with -tags jitterlab_unmeasured (measured.go) it times the model
// without its measurement.
func BenchmarkSessionHour(b *testing.B) {
	for _, c := range append(benchCases, variantBenchCases...) {
		b.Run(c.name, func(b *testing.B) {
			cfg := config(b, time.Hour, c.sets...)
			b.ReportAllocs()
			rt := startRealtime()
			for b.Loop() {
				s, err := New(cfg, 50*time.Millisecond)
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Run(sim.Time(time.Hour)); err != nil {
					b.Fatal(err)
				}
			}
			rt.stop(b, time.Hour)
		})
	}
}

// BenchmarkSessionHourWatched is BenchmarkSessionHour with a sample
// watcher (OnSample), as diagnose and the timeline run a session: every
// window's sample is built. The 60hz case scales smoothing by the frame's
// length (client.alpha_per=60hz), a fix diagnose tries.
func BenchmarkSessionHourWatched(b *testing.B) {
	cases := append(benchCases[:len(benchCases):len(benchCases)], struct {
		name string
		sets []string
	}{"jitter+60hz", []string{jittery, "link.jitter=20ms", "link.loss=1%", "client.alpha_per=60hz"}})
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			cfg := config(b, time.Hour, c.sets...)
			b.ReportAllocs()
			rt := startRealtime()
			n := 0
			for b.Loop() {
				s, err := New(cfg, 50*time.Millisecond)
				if err != nil {
					b.Fatal(err)
				}
				s.OnSample = func(*metrics.Sample) { n++ }
				if err := s.Run(sim.Time(time.Hour)); err != nil {
					b.Fatal(err)
				}
			}
			rt.stop(b, time.Hour)
			if n == 0 {
				b.Fatal("no sample watched")
			}
		})
	}
}

// FuzzSet: no key or value panics; an accepted value leaves a valid
// configuration whose Get reads back a value Set accepts again.
func FuzzSet(f *testing.F) {
	for _, p := range Params() {
		def := DefaultConfig()
		f.Add(p.Key, p.Get(&def))
	}
	f.Add("up.loss", "120%")
	f.Add("link.rate", "1.5mbit")
	f.Add("client.drift_ppm", "+40ppm")
	f.Fuzz(func(t *testing.T, key, value string) {
		cfg := DefaultConfig()
		if err := Set(&cfg, key, value); err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%s=%q accepted into an invalid config: %v", key, value, err)
		}
		p, _ := Lookup(key)
		again := cfg
		if got := p.Get(&cfg); !strings.Contains(got, "/") {
			if err := Set(&again, key, got); err != nil {
				t.Fatalf("%s=%q reads back as %q, which is rejected: %v", key, value, got, err)
			}
		}
	})
}

// A change made live at T (as the TUI does, after running to T) gives the
// same run as the same change scheduled from the start: that is what lets
// a recording's change log re-simulate a live session.
func TestLiveChangeEqualsScheduledChange(t *testing.T) {
	cfg := config(t, 10*time.Second, jittery, "link.jitter=20ms")
	at := sim.Time(2*time.Second + 33333333) // not on any grid
	runIt := func(live bool) []byte {
		s, _ := New(cfg, 50*time.Millisecond)
		var buf bytes.Buffer
		w, _ := metrics.NewCSVWriter(&buf)
		s.OnSample = func(x *metrics.Sample) { w.Write(x) }
		changes := [][2]string{{"up.latency", "80ms"}, {"client.sender", "accumulator"}, {"server.tick", "40ms"}}
		if !live {
			for _, c := range changes {
				s.Schedule(at, c[0], c[1])
			}
		} else {
			s.Run(at)
			for _, c := range changes {
				s.Schedule(s.Now(), c[0], c[1])
			}
			s.Run(s.Now())
		}
		if err := s.Run(sim.Time(cfg.Duration)); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		return buf.Bytes()
	}
	if !bytes.Equal(runIt(false), runIt(true)) {
		t.Fatal("a live change and the same change scheduled in advance gave different runs")
	}
	// And at an instant where events are due (a sample time).
	at = sim.Time(3 * time.Second)
	if !bytes.Equal(runIt(false), runIt(true)) {
		t.Fatal("differs for a change at a sample instant")
	}
}

// After a latency spike the reference client (frame sender) keeps the tick
// offset it built up: 0.048 s at 60 fps is still every 3rd frame, exactly
// the server's 20 Hz, so the latch cannot drain it. The accumulator sender
// sends at 1/0.048 s and does.
func TestFrameSenderCannotDrainOffsetAfterSpike(t *testing.T) {
	offsetAfter := func(sets ...string) []int {
		cfg, sc := scenarioConfig(t, "latency-spike")
		for _, a := range sets {
			k, v, _ := ParseAssignment(a)
			if err := Set(&cfg, k, v); err != nil {
				t.Fatal(err)
			}
		}
		cfg.Duration = time.Minute
		s, _ := New(cfg, 50*time.Millisecond)
		s.ScheduleTimeline(sc)
		var offs []int
		s.OnSample = func(x *metrics.Sample) {
			if x.TS >= 40 {
				offs = append(offs, x.TickOffset)
			}
		}
		if err := s.Run(sim.Time(cfg.Duration)); err != nil {
			t.Fatal(err)
		}
		return offs
	}
	for _, o := range offsetAfter() {
		if o < 5 {
			t.Fatalf("the reference client drained its offset to %d; the frame sender should stay stuck well above the band", o)
		}
	}
	// The accumulator drains it; the latch then moves it between the
	// thresholds, so it stays within one tick of the band.
	for _, o := range offsetAfter("client.sender=accumulator") {
		if o < -3 || o > 3 {
			t.Fatalf("the accumulator sender left the offset at %d", o)
		}
	}
}

func TestClockWanderMovesTheClientClockDeterministically(t *testing.T) {
	cfg := config(t, 2*time.Minute, "client.wander_ppm=50ppm", "client.sender=accumulator", "client.corrector=off")
	_, csv1, s1 := run(t, cfg)
	_, csv2, _ := run(t, cfg)
	if !bytes.Equal(csv1, csv2) {
		t.Fatal("wander is not repeatable")
	}
	_, _, still := run(t, config(t, 2*time.Minute, "client.sender=accumulator", "client.corrector=off"))
	if s1.InputsSent == still.InputsSent {
		t.Fatal("a wandering client clock sent exactly as many inputs as a perfect one")
	}
}
