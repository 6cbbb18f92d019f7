package lab

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testmem"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// recordRun runs cfg (with sc's timeline, if any) and records it.
func recordRun(t testing.TB, scenario string, d time.Duration) ([]byte, Config, int) {
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
			got, err := ConfigFromHeader(r.Header, Untrusted)
			if err != nil {
				t.Fatal(err)
			}
			if got.Up != cfg.Up || got.Client != cfg.Client || len(got.Segments) != len(cfg.Segments) {
				t.Fatalf("header rebuilt %+v, want %+v", got.Up, cfg.Up)
			}
			v, err := Verify(r, Untrusted)
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
	if _, err := Verify(r, Untrusted); err == nil || !strings.Contains(err.Error(), "differs") {
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
	v, err := Verify(r, Untrusted)
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
	r, f, err := recordings.OpenFile("../recordings/examples/jitter-fix.jlrec")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, err := Verify(r, Untrusted)
	if err != nil {
		t.Fatalf("%v\nregenerate the example if the model changed on purpose (see the comment)", err)
	}
	if v.Samples != 1200 || !v.SummaryOK {
		t.Fatalf("%+v", v)
	}
}

// frames lists the byte ranges of a recording's frames (index entry and
// data) with the time each starts at.
func frames(b []byte) (spans [][2]int, starts []sim.Time) {
	for off := 0; off+40 <= len(b); {
		next := off + 40 + int(binary.LittleEndian.Uint32(b[off+28:]))
		spans = append(spans, [2]int{off, next})
		starts = append(starts, sim.Time(binary.LittleEndian.Uint64(b[off+12:])))
		off = next
	}
	return spans, starts
}

func openBytes(t *testing.T, b []byte) *recordings.Reader {
	t.Helper()
	r, err := recordings.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// handMade writes a recording with the header of cfg, the given samples
// and an end record at end.
func handMade(t *testing.T, cfg Config, samples []metrics.Sample, end time.Duration) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := recordings.NewWriter(&buf, HeaderOf(cfg, "hand-made", 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	for i := range samples {
		if err := w.Sample(&samples[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recordings.End{At: sim.Time(end)}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Issue 15.2: verify compares sample by sample as the re-simulation goes,
// in memory that does not grow with the recording's length; a small file
// claiming a 999 h end is refused where its data runs out, before
// simulating (TestVerifyWorkIsBoundedByTheFile).
func TestVerifyStreamsInConstantMemory(t *testing.T) {
	b, _, _ := recordRun(t, "jitter-fix", 2*time.Hour)
	r := openBytes(t, b)
	var v Verification
	var err error
	testmem.Within(t, 24<<20, "verify of a 2 h recording", func() { v, err = Verify(r, Untrusted) })
	if err != nil || v.Samples != 144000 {
		t.Fatalf("2 h: %+v %v", v, err)
	}

	// The true first second of a session, and an end record claiming 999 h.
	cfg := DefaultConfig()
	s, _ := New(cfg, 50*time.Millisecond)
	var first []metrics.Sample
	s.OnSample = func(x *metrics.Sample) { first = append(first, *x) }
	s.Run(sim.Time(time.Second))
	hostile := handMade(t, cfg, first, 999*time.Hour)
	testmem.Within(t, 24<<20, "verify of a small file claiming 999 h", func() { _, err = Verify(openBytes(t, hostile), Untrusted) })
	if err == nil || !strings.Contains(err.Error(), "samples end at 00:00:01.000") {
		t.Fatalf("%d bytes claiming 999 h: %v", len(hostile), err)
	}
}

// Issue 15.8: a recording verifies only when it holds the whole session:
// every sample from the first to the recorded end, with an index that
// agrees. No samples, 10 s cut out, or the end missing: no verification.
func TestVerifyProvesCompleteness(t *testing.T) {
	empty := handMade(t, DefaultConfig(), nil, 0)
	if v, err := Verify(openBytes(t, empty), Untrusted); err == nil || !strings.Contains(err.Error(), "no samples") {
		t.Errorf("a recording of no samples: %+v %v", v, err)
	}

	b, _, _ := recordRun(t, "jitter-fix", 2*time.Minute)
	spans, starts := frames(b)
	cut := -1
	for i, st := range starts {
		if st >= sim.Time(50*time.Second) {
			cut = i
			break
		}
	}
	if cut < 0 {
		t.Fatal("no frame at 50 s")
	}
	without := append(append([]byte(nil), b[:spans[cut][0]]...), b[spans[cut][1]:]...)
	if v, err := Verify(openBytes(t, without), Untrusted); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("10 s cut out at %v: %+v %v", starts[cut], v, err)
	}

	// The end record cut off: the session may have gone on.
	unclosed := b[:spans[len(spans)-1][0]]
	if v, err := Verify(openBytes(t, unclosed), Untrusted); err == nil || !strings.Contains(err.Error(), "not closed") {
		t.Errorf("without its last frame: %+v %v", v, err)
	}
	// Cut inside a frame.
	if v, err := Verify(openBytes(t, b[:len(b)-10]), Untrusted); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated: %+v %v", v, err)
	}
	if v, err := Verify(openBytes(t, b), Untrusted); err != nil || v.Samples != 2400 || v.From != sim.Time(50*time.Millisecond) {
		t.Fatalf("the whole recording: %+v %v", v, err)
	}
}

// Issue 15.10: a hostile header cannot make verify run for ever: the
// header's configuration goes through the parameter registry's checks,
// and the re-simulation has a work budget.
func TestVerifyRefusesHostileHeader(t *testing.T) {
	cfg := DefaultConfig()
	b := handMade(t, cfg, []metrics.Sample{{TS: 0.05, ServerTick: 1}}, time.Second)
	for _, bad := range []struct {
		key, value string
		everyNs    int64
	}{{"server.tick", "1ns", int64(50 * time.Millisecond)}, {"client.fps", "1000", 1}} {
		r := openBytes(t, b)
		for i, kv := range r.Header.Params {
			if kv[0] == bad.key {
				r.Header.Params[i][1] = bad.value
			}
		}
		r.Header.EveryNs = bad.everyNs
		var err error
		testmem.Within(t, 24<<20, "verify of a hostile header", func() { _, err = Verify(r, Untrusted) })
		// Refused by the registry (naming the key) or by the work budget.
		if err == nil || !strings.Contains(err.Error(), bad.key) && !strings.Contains(err.Error(), "at most") {
			t.Errorf("%s=%s and a sample every %dns: %v", bad.key, bad.value, bad.everyNs, err)
		}
	}
}

// A header's custom input script is checked before simulating too.
func TestHostileHeaderScript(t *testing.T) {
	b := handMade(t, DefaultConfig(), []metrics.Sample{{TS: 0.05, ServerTick: 1}}, time.Second)
	for _, c := range []struct {
		name string
		segs []recordings.Segment
		want string
	}{
		{"a negative duration", []recordings.Segment{{DurNs: -1, Turn: 0, Throttle: 1}}, "recording header"},
		{"a turn past 1", []recordings.Segment{{DurNs: 1e9, Turn: 1e308, Throttle: 1}}, "recording header"},
		{"20000 segments", make([]recordings.Segment, 20000), "at most 10000"},
	} {
		r := openBytes(t, b)
		r.Header.Segments = c.segs
		if _, err := Verify(r, Untrusted); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// Issue 15.16: the jitter-fix scenario (50 ± 20 ms of jitter) at 20
// samples a second records in at most 1.5 MB per simulated hour.
func TestRecordingSizePerHour(t *testing.T) {
	b, _, _ := recordRun(t, "jitter-fix", time.Hour)
	if mb := float64(len(b)) / 1e6; mb > 1.5 {
		t.Fatalf("an hour of jitter-fix takes %.2f MB; at most 1.5 MB", mb)
	}
}

// FuzzConfigFromHeader: a header the registry accepts rebuilds a
// configuration whose own header reads back to the same configuration
// (a round trip), and whose re-simulation stays within the work budget or
// is refused.
func FuzzConfigFromHeader(f *testing.F) {
	h := HeaderOf(DefaultConfig(), "test", 50*time.Millisecond)
	js, _ := json.Marshal(h)
	f.Add(js)
	f.Add([]byte(`{"params":[["server.tick","1ns"]],"every_ns":1}`))
	f.Add([]byte(`{"params":[["up.latency","9223372036854775807ns"]]}`))
	f.Add([]byte(`{"segments":[{"dur_ns":1,"turn":1e308}]}`))
	f.Fuzz(func(t *testing.T, js []byte) {
		var h recordings.Header
		if json.Unmarshal(js, &h) != nil {
			return
		}
		cfg, err := ConfigFromHeader(h, Untrusted)
		if err != nil {
			return
		}
		again, err := ConfigFromHeader(HeaderOf(cfg, h.Scenario, time.Duration(h.EveryNs)), Untrusted)
		if err != nil {
			t.Fatalf("the header of an accepted configuration is refused: %v", err)
		}
		a, _ := json.Marshal(HeaderOf(cfg, "", 0))
		b, _ := json.Marshal(HeaderOf(again, "", 0))
		if !bytes.Equal(a, b) {
			t.Fatalf("round trip:\n%s\n%s", a, b)
		}
		if h.EveryNs > 0 {
			verifyBudget(cfg, time.Duration(h.EveryNs), sim.Time(time.Hour)) // must not panic for any accepted config
		}
	})
}

// FuzzVerifyMutated: a valid recording edited behind good checksums
// (recordings.Rewrite for the frames' contents, and an index entry's times
// moved with its checksum made good) verifies only if what it holds is
// what was recorded: verify cannot be fooled into vouching for other data.
func FuzzVerifyMutated(f *testing.F) {
	base, _, _ := recordRun(f, "jitter-fix", 3*time.Second)
	want := export(f, base)
	f.Add(uint8(1), uint16(40), []byte{1}, int32(0), int32(0))
	f.Add(uint8(0), uint16(100), []byte("9"), int32(0), int32(0))
	f.Add(uint8(1), uint16(0), []byte{}, int32(-50_000_000), int32(0))
	f.Add(uint8(1), uint16(0), []byte{}, int32(0), int32(1))
	f.Fuzz(func(t *testing.T, frame uint8, pos uint16, patch []byte, moveStart, moveEnd int32) {
		b, err := recordings.Patch(base, int(frame), int(pos), patch)
		if err != nil {
			t.Fatal(err)
		}
		if spans, _ := frames(b); int(frame) < len(spans) && (moveStart != 0 || moveEnd != 0) {
			e := b[spans[frame][0]+8 : spans[frame][0]+40]
			le := binary.LittleEndian
			le.PutUint64(e[4:], le.Uint64(e[4:])+uint64(int64(moveStart)))
			le.PutUint64(e[12:], le.Uint64(e[12:])+uint64(int64(moveEnd)))
			le.PutUint32(e[28:], crc32.ChecksumIEEE(e[:28]))
		}
		r, err := recordings.Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if _, err := Verify(r, Untrusted); err != nil {
			return
		}
		if got := export(t, b); got != want {
			t.Fatalf("verified, but the file's samples and changes differ from the recording's:\n%s\nwant\n%s", got, want)
		}
	})
}

// export is a recording's content as text: its header (without the
// scenario's name and file text, which are for reference: nothing
// re-simulates them), changes, samples and end.
func export(t testing.TB, b []byte) string {
	r, err := recordings.Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	h := r.Header
	h.Scenario, h.Source = "", ""
	js, _ := json.Marshal(h)
	out.Write(js)
	w, _ := metrics.NewCSVWriter(&out)
	err = r.Scan(0, sim.Time(math.MaxInt64), w.Write, func(c recordings.Change) error {
		fmt.Fprintf(&out, "%v %s=%s\n", c.At, c.Key, c.Value)
		return nil
	})
	w.Flush()
	end, _ := r.End()
	fmt.Fprintf(&out, "%v %+v", err, end)
	return out.String()
}

// BenchmarkRecordingHour: an hour of jitter-fix at 20 samples a second,
// its size and the time to read every sample back (issue 15.16).
func BenchmarkRecordingHour(b *testing.B) {
	rec, _, _ := recordRun(b, "jitter-fix", time.Hour)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := recordings.Open(bytes.NewReader(rec), int64(len(rec)))
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if err := r.Scan(0, sim.Time(math.MaxInt64), func(*metrics.Sample) error { n++; return nil }, nil); err != nil || n != 72000 {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "decode-ms/sim-hour")
	b.ReportMetric(float64(len(rec))/1e6, "MB/sim-hour")
}

// Issue 27 (LOW, "a 256-byte file costs 47 s of verify"): verify's work is
// bounded by what the file holds, not by what its header or end record
// claim. A session takes a sample every period from t 0, so the
// re-simulation runs at most one period past each recorded sample (half a
// period of slack for rounding): a small file whose samples leave a gap,
// start late or stop early is refused before anything is simulated.
func TestVerifyWorkIsBoundedByTheFile(t *testing.T) {
	cfg := DefaultConfig()
	s, _ := New(cfg, 50*time.Millisecond)
	var first []metrics.Sample
	s.OnSample = func(x *metrics.Sample) { first = append(first, *x) }
	s.Run(sim.Time(time.Second))
	late := first[len(first)-1]
	late.TS = 3600 // a made-up sample an hour in
	for _, c := range []struct {
		name    string
		samples []metrics.Sample
		end     time.Duration
		want    string
	}{
		{"one sample an hour in", []metrics.Sample{late}, time.Hour, "no sample from 00:00:00.000 to 01:00:00.000"},
		{"a second, then a sample an hour in", append(append([]metrics.Sample(nil), first...), late), time.Hour, "no sample from 00:00:01.000 to 01:00:00.000"},
		{"a second, then an end an hour in", first, time.Hour, "samples end at 00:00:01.000"},
	} {
		b := handMade(t, cfg, c.samples, c.end)
		v, err := Verify(openBytes(t, b), Untrusted)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "data is missing") {
			t.Errorf("%s (%d bytes): %v; want an error with %q", c.name, len(b), err, c.want)
		}
		if v.Simulated != 0 {
			t.Errorf("%s (%d bytes): the re-simulation ran to %v; want it refused before simulating", c.name, len(b), v.Simulated)
		}
	}
	// A whole recording: the re-simulation runs to its end and no further.
	b, _, _ := recordRun(t, "jitter-fix", 3*time.Second)
	v, err := Verify(openBytes(t, b), Untrusted)
	if err != nil || v.Samples != 60 || v.Simulated != sim.Time(3*time.Second) {
		t.Fatalf("3 s recording: %+v %v; want 60 samples, simulated to 3s", v, err)
	}
}
