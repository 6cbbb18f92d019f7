package recordings

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"jitterlab/metrics"
	"jitterlab/sim"
	"jitterlab/telemetry"
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
		if want := sampleAt(i + 1); s != Stored(&want) {
			t.Fatalf("sample %d: %+v, want %+v", i, s, Stored(&want))
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
		if n < prev || n > all || (!r.Truncated && n != all && r.DataEnd() != int64(cut)) {
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
	// An index entry claiming a huge frame (its checksum made good) is not
	// believed: nothing that size is allocated, and the frame is
	// recovered from its data.
	huge := append([]byte(nil), b...)
	at := r.frames[1].offset - entryLen
	off := at + 8 + 20
	huge[off], huge[off+1], huge[off+2], huge[off+3] = 0xFF, 0xFF, 0xFF, 0x7F
	reseal(huge, at)
	r3, err := Open(bytes.NewReader(huge), int64(len(huge)))
	if err != nil || len(r3.Damage) != 1 || !r3.Damage[0].Repaired || !strings.Contains(r3.Damage[0].Reason, "impossible") {
		t.Fatalf("huge frame: %v %v", err, r3.Damage)
	}
	if n := count(t, r3); n != 400 {
		t.Fatalf("huge frame: %d of 400 samples read", n)
	}
}

// reseal recomputes the checksum of the index entry at off, as a hostile
// writer would.
func reseal(b []byte, off int64) {
	p := b[off+8 : off+entryLen]
	binary.LittleEndian.PutUint32(p[28:], crc32.ChecksumIEEE(p[:28]))
}

// count reads every sample of r.
func count(t testing.TB, r *Reader) int {
	t.Helper()
	n := 0
	if err := r.Scan(0, sim.Time(1<<62), func(*metrics.Sample) error { n++; return nil }, nil); err != nil {
		t.Fatal(err)
	}
	return n
}

// FuzzOpen: no input panics, and what any input reads as keeps the
// format's promises: samples strictly forward in time, at most MaxChanges
// changes, frames within their bound.
func FuzzOpen(f *testing.F) {
	f.Add(write(f, 300, true))
	f.Add(write(f, 30, false))
	proxy, _ := writePackets(f, 200)
	f.Add(proxy)
	f.Add(writeTelemetry(f, 50))
	f.Add([]byte{0x5A, 0x2A, 0x4D, 0x18, 32, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		if r.Frames() > maxFrames {
			t.Fatalf("%d frames", r.Frames())
		}
		r.OnDamage = func(*DamageError) {}
		last, changes := -1.0, 0
		r.Scan(0, sim.Time(1<<62), func(s *metrics.Sample) error {
			if !(s.TS > last) {
				t.Fatalf("a sample at %v after one at %v", s.TS, last)
			}
			last = s.TS
			return nil
		}, func(Change) error {
			if changes++; changes > MaxChanges {
				t.Fatalf("%d changes", changes)
			}
			return nil
		})
		lastPacket := sim.Time(-1)
		r.ScanPackets(0, sim.Time(1<<62), func(p *Packet) error {
			if p.At < lastPacket {
				t.Fatalf("a packet at %v after one at %v", p.At, lastPacket)
			}
			if err := checkPacket(p); err != nil {
				t.Fatalf("a packet the writer refuses: %v", err)
			}
			lastPacket = p.At
			return nil
		})
		lastTel := sim.Time(-1)
		r.ScanTelemetry(0, sim.Time(1<<62), func(at sim.Time, d *telemetry.Datagram) error {
			if at < lastTel {
				t.Fatalf("telemetry at %v after telemetry at %v", at, lastTel)
			}
			lastTel = at
			var err error
			if d.Kind == telemetry.KindFrame {
				_, err = telemetry.AppendFrame(nil, &d.Frame)
			} else {
				_, err = telemetry.AppendTick(nil, &d.Tick)
			}
			if err != nil || at < 0 || at >= maxAt {
				t.Fatalf("telemetry at %v the writer refuses: %v", at, err)
			}
			return nil
		})
		r.End()
	})
}

// A sample round-trips to what the CSV prints: export gives the live
// run's bytes.
func TestSampleEncodingRoundTrips(t *testing.T) {
	s := sampleAt(123)
	s.TickOffset = -5
	s.PDVMs, s.UpOWDMs, s.DownOWDMs, s.RTTMs = 3.25, 49.51234567, 33.3333333, 82.84567
	odd := s
	odd.TS, odd.UpJitterMs, odd.CorrectionM, odd.VisibleErrorM = 1.0000000001, math.NaN(), math.Inf(-1), math.Copysign(0, -1)
	var bw blockWriter
	var rows []row
	for _, x := range []metrics.Sample{s, odd} {
		r, _ := quantise(&x, nil)
		bw.add(&r)
		rows = append(rows, r)
	}
	br, err := newBlockReader(bw.appendTo(nil))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range rows {
		got, ok, err := br.next()
		if !ok || err != nil || got != want {
			t.Fatalf("row %d: %+v %v %v, want %+v", i, got, ok, err, want)
		}
	}
	if _, ok, err := br.next(); ok || err != nil {
		t.Fatalf("after the last row: %v %v", ok, err)
	}
	back := rows[0].sample()
	if !Same(&back, &s) || back.TS != s.TS || back.ServerTick != s.ServerTick {
		t.Fatalf("%+v, want %+v", back, s)
	}
	if back.UpOWDMs != 49.512 || back.RTTMs != 82.846 {
		t.Fatalf("quantised to %v and %v; want the CSV's 3 decimals", back.UpOWDMs, back.RTTMs)
	}
	// What an integer cannot carry is kept bit for bit.
	o := rows[1].sample()
	if o.TS != odd.TS || !math.IsNaN(o.UpJitterMs) || !math.IsInf(o.CorrectionM, -1) || !math.Signbit(o.VisibleErrorM) {
		t.Fatalf("escaped values: %+v", o)
	}
}

// FuzzSampleBlock: a block that decodes re-encodes to rows that decode
// the same (a round trip), and never yields more rows than the bound.
func FuzzSampleBlock(f *testing.F) {
	var bw blockWriter
	for i := range 3 {
		s := sampleAt(i)
		r, _ := quantise(&s, nil)
		bw.add(&r)
	}
	f.Add(bw.appendTo(nil))
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		br, err := newBlockReader(b)
		if err != nil {
			return
		}
		var rows []row
		for {
			r, ok, err := br.next()
			if err != nil || !ok {
				break
			}
			if rows = append(rows, r); len(rows) > maxFrameRecords {
				t.Fatalf("more than %d rows", maxFrameRecords)
			}
		}
		var again blockWriter
		for i := range rows {
			s := rows[i].sample()
			r, _ := quantise(&s, nil)
			if r != rows[i] {
				t.Fatalf("row %d does not survive a round trip: %+v then %+v", i, rows[i], r)
			}
			again.add(&r)
		}
	})
}

// The format has a column for every field of metrics.Sample, named as the
// CSV names it: a field added to the sample without a column here would
// be lost silently.
func TestColumnsCoverEverySampleField(t *testing.T) {
	if n := reflect.TypeFor[metrics.Sample]().NumField(); n != numColumns || len(metrics.Columns) != numColumns {
		t.Fatalf("metrics.Sample has %d fields and %d CSV columns; the format stores %d: add the new ones to sampleColumns (and bump Version)",
			n, len(metrics.Columns), numColumns)
	}
	for c, col := range sampleColumns {
		if col.name != metrics.Columns[c] {
			t.Errorf("column %d is %q in the format, %q in the CSV", c, col.name, metrics.Columns[c])
		}
	}
	// Every field survives: a sample with a distinct value in each.
	var w [numColumns]uint64
	for c := range w {
		w[c] = uint64(c + 1)
	}
	s := fromWords(&w)
	if words(&s) != w {
		t.Fatalf("words and fromWords disagree: %v, want %v", words(&s), w)
	}
}

// WriteCSV writes a window as the timeline CSV: the header and a row per
// sample in it, as a CSVWriter fed the same samples writes them.
func TestWriteCSVIsTheWindowsTimeline(t *testing.T) {
	r := open(t, write(t, 1200, true))
	var got, want bytes.Buffer
	if _, err := r.WriteCSV(&got, sim.Time(30*time.Second), sim.Time(31*time.Second)); err != nil {
		t.Fatal(err)
	}
	w, err := metrics.NewCSVWriter(&want)
	if err != nil {
		t.Fatal(err)
	}
	for i := 600; i <= 620; i++ { // 30 s to 31 s, 50 ms apart
		s := sampleAt(i)
		s = Stored(&s)
		if err := w.Write(&s); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Fatalf("got\n%s\nwant\n%s", got.String(), want.String())
	}
}
