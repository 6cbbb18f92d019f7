package recordings

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"jitterlab/internal/testmem"
	"jitterlab/metrics"
	"jitterlab/sim"
)

// craftedFrame is a frame's decompressed bytes and the times its index
// entry claims.
type craftedFrame struct {
	start, end sim.Time
	raw        []byte
}

// craft builds a recording from raw frames with good checksums: what a
// hostile writer can make. The header frame comes first.
func craft(t testing.TB, frames ...craftedFrame) []byte {
	t.Helper()
	js, _ := json.Marshal(Header{Version: Version, Scenario: "hostile", Seed: 1, EveryNs: int64(50 * time.Millisecond)})
	header := craftedFrame{raw: rec(nil, recHeader, js)}
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	var out []byte
	for i, f := range append([]craftedFrame{header}, frames...) {
		comp := enc.EncodeAll(f.raw, nil)
		out = appendEntry(out, entry{seq: int64(i), start: f.start, end: f.end, compLen: uint32(len(comp)), crc: crc32.ChecksumIEEE(comp)})
		out = append(out, comp...)
	}
	return out
}

func rec(b []byte, typ byte, payload []byte) []byte {
	b = append(b, typ)
	b = binary.AppendUvarint(b, uint64(len(payload)))
	return append(b, payload...)
}

// changes is a frame of n parameter changes at time at.
func changes(n int, at sim.Time) craftedFrame {
	one := rec(nil, recChange, encodeChange(nil, Change{At: at, Key: "up.loss", Value: "1%"}))
	return craftedFrame{start: at, end: at, raw: bytes.Repeat(one, n)}
}

// lostPackets is a packet block of n packets lost at time 0.
func lostPackets(n int) []byte {
	b := binary.AppendUvarint(nil, uint64(n))
	for range numPacketColumns {
		b = binary.AppendUvarint(b, uint64(n))
	}
	for c := range numPacketColumns {
		col := make([]byte, n)
		if c == pBits {
			col[0] = byte(PacketLost) << 1 // zigzag
		}
		b = append(b, col...)
	}
	return b
}

type hostileCase struct {
	name   string
	frames []craftedFrame
	want   string
}

// hostileCases are small recordings demanding huge memory.
func hostileCases() []hostileCase {
	return []hostileCase{
		{"16M empty records in one frame", []craftedFrame{{start: 0, end: 0, raw: bytes.Repeat([]byte{recChange, 0}, 16<<20)}}, "frame 1"},
		{"300k changes in one frame", []craftedFrame{changes(300_000, sim.Time(time.Second))}, "parameter changes"},
		{"12k changes in two frames", []craftedFrame{changes(6000, sim.Time(time.Second)), changes(6000, sim.Time(2*time.Second))}, "parameter changes"},
		{"a packet block of 131072 packets and a change", []craftedFrame{{start: 0, end: 0,
			raw: append(changes(1, 0).raw, rec(nil, recPackets, lostPackets(maxFrameRecords))...)}}, "more than 131072 records"},
		{"a packet block claiming 1M packets", []craftedFrame{{start: 0, end: 0, raw: rec(nil, recPackets, lostPackets(1<<20))}}, "allowed 1 to 131072"},
	}
}

// Issue 15.4: small recordings demanding huge memory. A few kilobytes of
// zstd expand to frames of millions of records, or to more changes than
// any session makes; each is a clear error, read in bounded memory.
func TestSmallRecordingsHugeMemory(t *testing.T) {
	cases := hostileCases()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := craft(t, c.frames...)
			if len(b) > 64<<10 {
				t.Fatalf("the hostile file is %d bytes; it should be small", len(b))
			}
			var err error
			testmem.Within(t, MemoryBound, c.name, func() {
				var r *Reader
				if r, err = Open(bytes.NewReader(b), int64(len(b))); err != nil {
					return
				}
				if err = r.Scan(0, sim.Time(1<<62), func(*metrics.Sample) error { return nil }, nil); err != nil {
					return
				}
				_, err = r.Changes()
			})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%d bytes read without the error naming %q: %v", len(b), c.want, err)
			}
		})
	}
}

// The writer keeps within the bounds the reader enforces: a frame that
// would hold too many records is closed early, a session that makes more
// changes than a file holds is told so, and nothing goes back in time.
func TestWriterKeepsTheReadersBounds(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Scenario: "dense", EveryNs: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	// 10 µs samples: 1M samples in 10 s, far more than a frame may hold.
	const n = 300_000
	for i := 1; i <= n; i++ {
		s := sampleAt(i)
		s.TS = float64(i) * 1e-5
		if err := w.Sample(&s); err != nil {
			t.Fatal(err)
		}
	}
	for i := range MaxChanges {
		if err := w.Change(Change{At: sim.Time(3 * time.Second), Key: "up.loss", Value: "1%"}); err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
	}
	if err := w.Change(Change{At: sim.Time(3 * time.Second), Key: "up.loss", Value: "2%"}); err == nil || !strings.Contains(err.Error(), "at most 10000") {
		t.Fatalf("change %d: %v", MaxChanges+1, err)
	}
	back := sampleAt(1)
	if err := w.Sample(&back); err == nil || !strings.Contains(err.Error(), "forward in time") {
		t.Fatalf("a sample back in time: %v", err)
	}
	if err := w.Close(End{At: sim.Time(time.Second)}); err == nil {
		t.Fatal("an end before the last sample was accepted")
	}
	if err := w.Close(End{At: sim.Time(3 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	r := open(t, buf.Bytes())
	if got := count(t, r); got != n {
		t.Fatalf("read %d of %d samples", got, n)
	}
	if ch, err := r.Changes(); err != nil || len(ch) != MaxChanges {
		t.Fatalf("%d changes, %v", len(ch), err)
	}
}

// A file of the previous format version is a clear error, not garbage.
func TestOldFormatVersionIsAClearError(t *testing.T) {
	v1 := binary.LittleEndian.AppendUint32(nil, skippableMagic)
	v1 = binary.LittleEndian.AppendUint32(v1, entrySize)
	v1 = append(v1, 1)
	v1 = append(v1, make([]byte, entrySize-1+100)...)
	_, err := Open(bytes.NewReader(v1), int64(len(v1)))
	if err == nil || !strings.Contains(err.Error(), "version 1") || !strings.Contains(err.Error(), "reads versions 2 to 3") {
		t.Fatalf("a version 1 file: %v", err)
	}
}

// Issue 15.16: a recording costs at most 1.5 MB per simulated hour at 20
// samples a second, even when every delay column is noise.
func TestRecordingSizePerHour(t *testing.T) {
	b := noisyHour(t)
	if mb := float64(len(b)) / 1e6; mb > 1.5 {
		t.Fatalf("an hour of noisy samples takes %.2f MB; at most 1.5 MB", mb)
	}
}

// noisyHour records an hour of samples whose delays are 50 ± 20 ms of
// noise, like the jitter-fix scenario's (lab's tests record the scenario
// itself).
func noisyHour(t testing.TB) []byte {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Scenario: "noise", EveryNs: int64(50 * time.Millisecond)})
	x := uint64(1)
	rnd := func() float64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return float64(x>>11) / (1 << 53) }
	var s metrics.Sample
	for i := 1; i <= 72000; i++ {
		s.TS = float64(i) * 0.05
		s.ServerTick, s.ClientTick, s.AckTick = uint32(i), uint32(i-13), uint32(i-16)
		s.UpOWDMs, s.DownOWDMs = 30+40*rnd(), 30+40*rnd()
		s.RTTMs = s.UpOWDMs + s.DownOWDMs
		s.UpJitterMs += (abs(s.UpOWDMs-50) - s.UpJitterMs) / 16
		s.DownJitterMs += (abs(s.DownOWDMs-50) - s.DownJitterMs) / 16
		s.PDVMs = s.DownOWDMs - 30
		s.VisibleErrorM, s.VisibleSpeedMPS = 0.2+0.1*rnd(), 1.5+0.8*rnd()
		if err := w.Sample(&s); err != nil {
			t.Fatal(err)
		}
	}
	w.Close(End{At: sim.Time(time.Hour)})
	return buf.Bytes()
}

func abs(v float64) float64 { return max(v, -v) }

// BenchmarkDecodeHour reads an hour of noisy samples: the decode cost per
// simulated hour and the size.
func BenchmarkDecodeHour(b *testing.B) {
	rec := noisyHour(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := open(b, rec)
		if n := count(b, r); n != 72000 {
			b.Fatal(n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/sim-hour")
	b.ReportMetric(float64(len(rec))/1e6, "MB/sim-hour")
}

// FuzzMutatedFrames: frames of a session or a proxy recording edited
// behind good checksums either fail to read, or read within the bounds,
// and what they yield (samples, changes, packets) survives a round trip
// through the writer.
func FuzzMutatedFrames(f *testing.F) {
	base := write(f, 300, true)
	proxyBase, _ := writePackets(f, 300)
	f.Add(uint8(1), uint16(7), []byte{0xFF}, false)
	f.Add(uint8(2), uint16(3), []byte{recChange, 200, 1}, false)
	f.Add(uint8(3), uint16(0), []byte{}, false)
	f.Add(uint8(1), uint16(9), []byte{0x7F}, true)
	f.Add(uint8(2), uint16(0), []byte{recPackets, 3}, true)
	f.Fuzz(func(t *testing.T, frame uint8, pos uint16, patch []byte, proxy bool) {
		base := base
		if proxy {
			base = proxyBase
		}
		b, err := Patch(base, int(frame), int(pos), patch)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Open(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		var got []metrics.Sample
		var chs []Change
		var pkts []Packet
		if err := r.Scan(0, sim.Time(1<<62), func(s *metrics.Sample) error { got = append(got, *s); return nil },
			func(c Change) error { chs = append(chs, c); return nil }); err != nil {
			return
		}
		if err := r.ScanPackets(0, sim.Time(1<<62), func(p *Packet) error { pkts = append(pkts, *p); return nil }); err != nil {
			return
		}
		if len(chs) > MaxChanges {
			t.Fatalf("%d changes read", len(chs))
		}
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, r.Header)
		for i := range got {
			if err := w.Sample(&got[i]); err != nil {
				t.Fatal(err)
			}
		}
		for i := range pkts {
			if err := w.Packet(&pkts[i]); err != nil {
				t.Fatalf("packet %d as read is refused by the writer: %v", i, err)
			}
		}
		w.Close(End{At: r.Duration()})
		again := open(t, buf.Bytes())
		if back := readPackets(t, again, 0, sim.Time(1<<62)); len(back) != len(pkts) || len(pkts) > 0 && back[len(back)-1] != pkts[len(pkts)-1] {
			t.Fatalf("%d of %d packets after a round trip", len(back), len(pkts))
		}
		i := 0
		again.Scan(0, sim.Time(1<<62), func(s *metrics.Sample) error {
			if i >= len(got) || !Same(s, &got[i]) {
				t.Fatalf("sample %d changed in a round trip", i)
			}
			i++
			return nil
		}, nil)
		if i != len(got) {
			t.Fatalf("%d of %d samples after a round trip", i, len(got))
		}
	})
}

// One flipped bit or byte anywhere in a file never loses data silently, whole or
// in a seeked window: the file is refused, or the loss is reported
// (truncation, damage), or every sample reads as written.
func TestNoSilentDataLoss(t *testing.T) {
	b := write(t, 1200, true)
	windows := [][2]sim.Time{{0, 1 << 62}, {sim.Time(time.Second), sim.Time(2 * time.Second)}, {sim.Time(30 * time.Second), sim.Time(31 * time.Second)}}
	read := func(r *Reader, w [2]sim.Time) ([]metrics.Sample, error) {
		var got []metrics.Sample
		err := r.Scan(w[0], w[1], func(s *metrics.Sample) error { got = append(got, *s); return nil }, nil)
		return got, err
	}
	var want [][]metrics.Sample
	for _, w := range windows {
		got, _ := read(open(t, b), w)
		want = append(want, got)
	}
	for pos := 0; pos < len(b); pos += 3 {
		bad := append([]byte(nil), b...)
		flip := []byte{1 << (pos % 8), 0xFF}[pos/3%2]
		bad[pos] ^= flip
		for wi, w := range windows {
			r, err := Open(bytes.NewReader(bad), int64(len(bad)))
			if err != nil {
				break
			}
			reported := r.Truncated || len(r.Damage) > 0
			r.OnDamage = func(*DamageError) { reported = true }
			got, err := read(r, w)
			if err != nil || reported {
				continue
			}
			if len(got) != len(want[wi]) {
				t.Fatalf("byte %d ^ %#x: %d of %d samples read from %v to %v, and nothing said",
					pos, flip, len(got), len(want[wi]), w[0], w[1])
			}
			for i := range got {
				if !Same(&got[i], &want[wi][i]) {
					t.Fatalf("byte %d ^ %#x: sample %d reads %+v, written %+v, and nothing said", pos, flip, i, got[i], want[wi][i])
				}
			}
		}
	}
}

// A file of many damaged frames is not read for ever, warning by warning:
// past 100 damaged frames the read is an error.
func TestManyDamagedFramesEndTheRead(t *testing.T) {
	var frames []craftedFrame
	for i := range 1000 {
		at := sim.Time(i+1) * sim.Time(time.Second)
		frames = append(frames, craftedFrame{start: at, end: at}) // empty: no records
	}
	b := craft(t, frames...)
	r := open(t, b)
	warnings := 0
	r.OnDamage = func(*DamageError) { warnings++ }
	err := r.Scan(0, sim.Time(1<<62), func(*metrics.Sample) error { return nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "more than 100 damaged frames") || warnings != 100 {
		t.Fatalf("%d warnings, then %v", warnings, err)
	}
}
