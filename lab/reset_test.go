package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"testing"
	"time"

	"jitterlab/metrics"
	"jitterlab/scenarios"
	"jitterlab/sim"
)

// resetCase is one run a reused session must reproduce.
type resetCase struct {
	name     string
	cfg      Config
	sc       *scenarios.Scenario // nil: no timeline
	every    time.Duration
	stopAt   sim.Time // run this far only (0: the whole duration)
	callback bool     // watch samples and packets through the callbacks
}

func resetCases(t *testing.T) []resetCase {
	t.Helper()
	var cs []resetCase
	for _, name := range []string{"handover", "jitter-fix", "latency-spike"} {
		cfg, sc := scenarioConfig(t, name)
		cfg.Duration = min(cfg.Duration, 40*time.Second)
		cs = append(cs, resetCase{name: name, cfg: cfg, sc: sc, callback: true})
	}
	for _, c := range []struct {
		name  string
		every time.Duration
		sets  []string
	}{
		{"perfect", 0, nil},
		{"jitter+dup+reorder+redundancy", 20 * time.Millisecond, []string{jittery, "link.jitter=20ms", "link.loss=2%", "link.duplicate=1%", "link.reorder=1%", "client.redundancy=3", "sim.seed=7"}},
		{"view", 100 * time.Millisecond, []string{jittery, "link.jitter=30ms", "view.interp=adaptive", "sim.seed=3"}},
		{"buffer+dilation", 0, []string{jittery, "link.jitter=20ms", "server.inputs=buffer", "server.buffer=3", "client.corrector=dilation", "client.sender=accumulator"}},
	} {
		cs = append(cs, resetCase{name: c.name, cfg: config(t, 20*time.Second, c.sets...), every: c.every, callback: c.name != "perfect"})
	}
	half := cs[1]
	half.name, half.stopAt = "jitter-fix, half run", sim.Time(half.cfg.Duration/2)
	return append(cs, half)
}

// fingerprint runs c on s (already New or Reset for c) and returns what a
// caller can see of it: the summary, every sample and packet record, the
// changes applied.
func (c *resetCase) fingerprint(t *testing.T, s *Session) string {
	t.Helper()
	if c.sc != nil {
		if err := s.ScheduleTimeline(c.sc); err != nil {
			t.Fatal(err)
		}
	}
	h := fnv.New64a()
	if c.callback {
		s.OnSample = func(x *metrics.Sample) { fmt.Fprintf(h, "%v\n", *x) }
		s.OnPacket = func(p *PacketRecord) { fmt.Fprintf(h, "%v\n", *p) }
	}
	until := c.stopAt
	if until == 0 {
		until = sim.Time(c.cfg.Duration)
	}
	if err := s.Run(until); err != nil {
		t.Fatal(err)
	}
	sum, err := json.Marshal(s.Summary())
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\nsamples and packets %x\nchanges %v\nnow %v", sum, h.Sum64(), s.Changes(), s.Now())
}

// A reset session is the session New returns: one session reset through
// runs of other scenarios, links, variants and sample periods (in two
// orders, each run after a different one, one of them stopped half way)
// gives every run's summary, samples and packet records byte for byte.
func TestResetSessionRunsAsNew(t *testing.T) {
	cases := resetCases(t)
	want := make([]string, len(cases))
	for i := range cases {
		s, err := New(cases[i].cfg, cases[i].every)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = cases[i].fingerprint(t, s)
	}
	s := new(Session) // the zero Session may be Reset
	order := make([]int, 0, 2*len(cases))
	for i := range cases {
		order = append(order, i)
	}
	for i := range cases {
		order = append(order, len(cases)-1-i)
	}
	for _, i := range order {
		c := &cases[i]
		if err := s.Reset(c.cfg, c.every); err != nil {
			t.Fatal(err)
		}
		if got := c.fingerprint(t, s); got != want[i] {
			t.Errorf("%s after Reset:\n%s\nnew:\n%s", c.name, got, want[i])
		}
	}
}

// Reset clears the callbacks and a stopped run's error; a configuration
// it refuses gets New's error.
func TestResetClearsCallbacksAndErrors(t *testing.T) {
	s, err := New(config(t, 10*time.Second), 0)
	if err != nil {
		t.Fatal(err)
	}
	s.OnSample = func(*metrics.Sample) { t.Error("OnSample survived Reset") }
	s.OnPacket = func(*PacketRecord) { t.Error("OnPacket survived Reset") }
	s.OnSend = func(*SendRecord) { t.Error("OnSend survived Reset") }
	s.OnChange = func(Change) { t.Error("OnChange survived Reset") }
	s.err = errors.New("a change failed") // as applyChanges leaves it
	if err := s.Run(sim.Time(time.Second)); err == nil {
		t.Fatal("the stopped session ran on")
	}
	if err := s.Reset(config(t, 2*time.Second), 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Schedule(sim.Time(time.Second), "link.latency", "80ms"); err != nil {
		t.Fatal(err)
	}
	if err := s.Run(sim.Time(2 * time.Second)); err != nil {
		t.Fatalf("the run after Reset: %v", err)
	}
	if s.Now() != sim.Time(2*time.Second) || len(s.Changes()) != 1 {
		t.Fatalf("after Reset the run reached %v with changes %v", s.Now(), s.Changes())
	}
	bad := config(t, time.Second)
	bad.Client.FPS = 0
	_, errNew := New(bad, 0)
	if errReset := s.Reset(bad, 0); errNew == nil || errReset == nil || errReset.Error() != errNew.Error() {
		t.Fatalf("Reset with client.fps=0: %v; New: %v", errReset, errNew)
	}
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// A reused session keeps all its memory (queue, message table, input-delay
// ring, histograms, links, client, server, viewer, report card, random
// streams): a reset and a run allocate at most 1 KB (the input script),
// where a new session allocates hundreds.
func TestResetReusesTheSessionsMemory(t *testing.T) {
	cfg := config(t, 10*time.Second, jittery, "link.jitter=20ms", "link.loss=1%")
	run := func(s *Session) {
		if err := s.Run(sim.Time(cfg.Duration)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	run(s)
	fresh := allocated(func() {
		s, err := New(cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		run(s)
	})
	reused := allocated(func() {
		if err := s.Reset(cfg, 0); err != nil {
			t.Fatal(err)
		}
		run(s)
	})
	t.Logf("new + run: %d B; reset + run: %d B", fresh, reused)
	if reused > 1024 {
		t.Errorf("reset + run allocates %d B (new + run %d B): want at most 1 KB", reused, fresh)
	}
}
