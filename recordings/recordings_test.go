package recordings

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"jitterlab/metrics"
	"jitterlab/sim"
)

func sampleAt(i int) metrics.Sample {
	return metrics.Sample{TS: float64(i) * 0.05, ServerTick: uint32(i), ClientTick: uint32(i + 1), TickOffset: i%7 - 3,
		SendIntervalS: 0.048, RTTMs: 100 + float64(i%13), VisibleErrorM: float64(i%10) / 37, Starved: uint64(i / 9)}
}

// write records n samples (50 ms apart) and a change every 100 samples.
func write(t testing.TB, n int, closeIt bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Scenario: "test", Seed: 7, EveryNs: int64(50 * time.Millisecond), Params: [][2]string{{"up.latency", "50ms"}}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if i%100 == 0 {
			if err := w.Change(Change{At: sim.Time(i) * sim.Time(50*time.Millisecond), Key: "up.loss", Value: "1%"}); err != nil {
				t.Fatal(err)
			}
		}
		s := sampleAt(i)
		if err := w.Sample(&s); err != nil {
			t.Fatal(err)
		}
	}
	if closeIt {
		if err := w.Close(End{At: sim.Time(n) * sim.Time(50*time.Millisecond), Summary: []byte(`{"ok":true}`)}); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func open(t testing.TB, b []byte) *Reader {
	t.Helper()
	r, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRoundTripAndSeek(t *testing.T) {
	b := write(t, 1200, true) // 60 s
	r := open(t, b)
	if r.Header.Scenario != "test" || r.Header.Seed != 7 || r.Truncated {
		t.Fatalf("header %+v truncated %v", r.Header, r.Truncated)
	}
	// Header frame + 6 frames of 10 s + the end.
	if r.Frames() < 7 || r.Duration() != sim.Time(60*time.Second) {
		t.Fatalf("%d frames, duration %v", r.Frames(), r.Duration())
	}
	var got []metrics.Sample
	if err := r.Scan(0, sim.Time(time.Hour), func(s *metrics.Sample) error { got = append(got, *s); return nil }, nil); err != nil {
		t.Fatal(err)
	}
	for i, s := range got {
		if s != sampleAt(i+1) {
			t.Fatalf("sample %d: %+v, want %+v", i, s, sampleAt(i+1))
		}
	}
	if len(got) != 1200 {
		t.Fatalf("read %d samples", len(got))
	}
	ch, _ := r.Changes()
	if len(ch) != 12 || ch[0].At != sim.Time(5*time.Second) || ch[0].Key != "up.loss" {
		t.Fatalf("changes %+v", ch)
	}
	end, err := r.End()
	if err != nil || end == nil || string(end.Summary) != `{"ok":true}` {
		t.Fatalf("end %+v %v", end, err)
	}
	// Seek: a window decodes only its frames and returns exactly its samples.
	var win []float64
	r.Scan(sim.Time(30*time.Second), sim.Time(31*time.Second), func(s *metrics.Sample) error { win = append(win, s.TS); return nil }, nil)
	if len(win) != 21 || win[0] != 30 || win[20] != 31 {
		t.Fatalf("window 30–31 s: %v", win)
	}
}

func TestSameInputSameBytes(t *testing.T) {
	if !bytes.Equal(write(t, 500, true), write(t, 500, true)) {
		t.Fatal("the same records gave different files")
	}
}

func TestTruncatedFileReadsUpToItsLastWholeFrame(t *testing.T) {
	b := write(t, 1200, false) // not closed: as after a crash
	whole := open(t, b)
	var all int
	whole.Scan(0, sim.Time(time.Hour), func(*metrics.Sample) error { all++; return nil }, nil)
	prev := -1
	cuts := []int{}
	for cut := 0; cut < len(b); cut += max(1, len(b)/997) {
		cuts = append(cuts, cut)
	}
	for _, cut := range append(cuts, len(b)) {
		r, err := Open(bytes.NewReader(b[:cut]), int64(cut))
		if err != nil {
			if r == nil && cut > 200 && !strings.Contains(err.Error(), "truncated before its header") {
				t.Fatalf("cut at %d: %v", cut, err)
			}
			continue
		}
		n := 0
		if err := r.Scan(0, sim.Time(time.Hour), func(*metrics.Sample) error { n++; return nil }, nil); err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if n < prev || n > all || (cut < len(b) && !r.Truncated && n != all) {
			t.Fatalf("cut at %d: %d samples (before %d, all %d, truncated %v)", cut, n, prev, all, r.Truncated)
		}
		prev = n
	}
	if prev != all {
		t.Fatalf("the whole file gave %d of %d", prev, all)
	}
}

func TestCorruptFilesAreErrors(t *testing.T) {
	b := write(t, 400, true)
	if _, err := Open(bytes.NewReader([]byte("hello, world, not a recording at all")), 36); !errors.Is(err, ErrNotRecording) {
		t.Fatalf("not a recording: %v", err)
	}
	// Flip a byte inside the second frame's data: its CRC catches it.
	r := open(t, b)
	bad := append([]byte(nil), b...)
	bad[r.frames[1].offset+5] ^= 0xFF
	r2 := open(t, bad)
	if err := r2.Scan(0, sim.Time(time.Hour), nil, nil); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("flipped byte: %v", err)
	}
	// An index entry claiming a huge frame is refused before allocating.
	huge := append([]byte(nil), b...)
	off := r.frames[1].offset - entrySize + 20
	huge[off], huge[off+1], huge[off+2], huge[off+3] = 0xFF, 0xFF, 0xFF, 0x7F
	if _, err := Open(bytes.NewReader(huge), int64(len(huge))); err == nil || !strings.Contains(err.Error(), "bad index entry") {
		t.Fatalf("huge frame: %v", err)
	}
}

// FuzzOpen: no input panics, and reading stays within the format's bounds.
func FuzzOpen(f *testing.F) {
	f.Add(write(f, 300, true))
	f.Add(write(f, 30, false))
	f.Add([]byte{0x5A, 0x2A, 0x4D, 0x18, 32, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		r.Scan(0, sim.Time(1<<62), func(*metrics.Sample) error { return nil }, func(Change) error { return nil })
		r.End()
	})
}

func TestSampleEncodingRoundTrips(t *testing.T) {
	s := sampleAt(123)
	s.TickOffset = -5
	s.PDVMs, s.UpOWDMs = 3.25, 49.5
	b := EncodeSample(nil, &s)
	if len(b) != SampleSize {
		t.Fatalf("%d bytes, want %d", len(b), SampleSize)
	}
	got, err := DecodeSample(b)
	if err != nil || got != s {
		t.Fatalf("%+v %v", got, err)
	}
}

// FuzzRecords: the records inside a frame (behind its checksum, so a
// hostile file, not a random one, reaches them) never panic the parsers.
func FuzzRecords(f *testing.F) {
	s := sampleAt(3)
	f.Add(append([]byte{recSample, SampleSize}, EncodeSample(nil, &s)...))
	f.Add(append([]byte{recChange, 14}, encodeChange(nil, Change{At: 5, Key: "a", Value: "b"})...))
	f.Add([]byte{recChange, 9, 1, 2, 3, 4, 5, 6, 7, 8, 0xFF})
	f.Fuzz(func(t *testing.T, raw []byte) {
		recs, err := parseRecords(raw)
		if err != nil {
			return
		}
		for _, r := range recs {
			switch r.typ {
			case recSample:
				DecodeSample(r.payload)
			case recChange:
				if c, err := decodeChange(r.payload); err == nil && (len(c.Key) > maxString || c.At < 0) {
					t.Fatalf("accepted %+v", c)
				}
			}
		}
	})
}
