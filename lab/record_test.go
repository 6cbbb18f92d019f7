package lab

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// recordRun runs cfg (with sc's timeline, if any) and records it.
func recordRun(t *testing.T, scenario string, d time.Duration) ([]byte, Config, int) {
	t.Helper()
	sc, err := LoadScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	if err := ApplyScenario(&cfg, sc); err != nil {
		t.Fatal(err)
	}
	cfg.Duration = d
	s, _ := New(cfg, 50*time.Millisecond)
	if err := s.ScheduleTimeline(sc); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := recordings.NewWriter(&buf, HeaderOf(cfg, sc.Name, s.Every()))
	if err != nil {
		t.Fatal(err)
	}
	rec := Record(s, w, nil)
	s.OnSample = rec.Sample
	s.OnChange = rec.Change
	if err := s.Run(sim.Time(d)); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), cfg, len(s.Changes())
}

func TestRecordingVerifiesBitForBit(t *testing.T) {
	for _, sc := range []string{"handover", "../scenarios/examples/wifi-handover.toml", "../scenarios/examples/bursty-mobile.toml"} {
		t.Run(sc, func(t *testing.T) {
			b, cfg, changes := recordRun(t, sc, 30*time.Second)
			r, err := recordings.Open(bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ConfigFromHeader(r.Header)
			if err != nil {
				t.Fatal(err)
			}
			if got.Up != cfg.Up || got.Client != cfg.Client || len(got.Segments) != len(cfg.Segments) {
				t.Fatalf("header rebuilt %+v, want %+v", got.Up, cfg.Up)
			}
			v, err := Verify(r)
			if err != nil {
				t.Fatal(err)
			}
			if v.Samples != 600 || !v.SummaryOK || v.Changes != changes {
				t.Fatalf("verification %+v: want 600 samples, the summary and the timeline's changes", v)
			}
		})
	}
}

func TestVerifyCatchesADifferentRun(t *testing.T) {
	b, cfg, _ := recordRun(t, "handover", 20*time.Second)
	r, _ := recordings.Open(bytes.NewReader(b), int64(len(b)))
	// The same samples claimed for another seed: re-simulation differs.
	r.Header.Seed = cfg.Seed + 1
	for i, kv := range r.Header.Params {
		if kv[0] == "sim.seed" {
			r.Header.Params[i][1] = "2"
		}
	}
	if _, err := Verify(r); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Fatalf("a recording verified against another seed: %v", err)
	}
}

func TestRecordMidSessionIncludesThePast(t *testing.T) {
	cfg := config(t, time.Minute, jittery, "link.jitter=20ms")
	s, _ := New(cfg, 50*time.Millisecond)
	var past []metrics.Sample
	s.OnSample = func(x *metrics.Sample) { past = append(past, *x) }
	s.Schedule(sim.Time(3*time.Second), "up.loss", "5%")
	s.Run(sim.Time(10 * time.Second))
	var buf bytes.Buffer
	w, _ := recordings.NewWriter(&buf, HeaderOf(s.Initial(), "test", s.Every()))
	rec := Record(s, w, past)
	s.OnSample, s.OnChange = rec.Sample, rec.Change
	s.Schedule(sim.Time(12*time.Second), "down.latency", "80ms")
	s.Run(sim.Time(20 * time.Second))
	rec.Close()
	r, _ := recordings.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	v, err := Verify(r)
	if err != nil || v.Samples != 400 || v.Changes != 2 {
		t.Fatalf("verification %+v %v", v, err)
	}
}

// The shipped example recording must keep verifying: it is the model's
// golden. When a deliberate model change breaks it, regenerate it with
//
//	go run ./cmd/lab run --scenario jitter-fix --duration 60s --record recordings/examples/jitter-fix.jlrec
//
// and say so in the change.
func TestShippedExampleRecordingVerifies(t *testing.T) {
	f, err := os.Open("../recordings/examples/jitter-fix.jlrec")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r, err := recordings.Open(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(r)
	if err != nil {
		t.Fatalf("%v\nregenerate the example if the model changed on purpose (see the comment)", err)
	}
	if v.Samples != 1200 || !v.SummaryOK {
		t.Fatalf("%+v", v)
	}
}
