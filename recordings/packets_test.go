package recordings

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"jitterlab/metrics"
	"jitterlab/sim"
)

// packetAt is the i-th packet of a proxy recording: 10 a second, each
// kind of fate in turn, up and down, two flows.
func packetAt(i int) Packet {
	in := sim.Time(i) * sim.Time(100*time.Millisecond)
	p := Packet{At: in, In: in, Dir: uint8(i % 2), Flow: uint64(1 + i%3/2), Size: 20 + i%50, Fate: PacketFate(1 + i%int(numFates-1))}
	if p.Fate.Out() {
		p.Scheduled = 20*time.Millisecond + time.Duration(i%7)*time.Millisecond
		p.Out = in + sim.Time(p.Scheduled) + sim.Time(i%13)*sim.Time(time.Microsecond)
		p.At = p.Out
		p.Copy, p.Reordered = uint8(i%11/10), i%17 == 0
	}
	return p
}

// writePackets records n packets as a proxy recording; the packets are
// recorded in At order, as the relay accounts for them.
func writePackets(t testing.TB, n int) ([]byte, []Packet) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Kind: KindProxy, Scenario: "mobile-4g", Seed: 3, Params: [][2]string{{"up.latency", "20ms"}}})
	if err != nil {
		t.Fatal(err)
	}
	var ps []Packet
	for i := range n {
		ps = append(ps, packetAt(i))
	}
	// The relay accounts in time order: sort by At (stable, as it is
	// nearly sorted already).
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && ps[j].At < ps[j-1].At; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	for i := range ps {
		if err := w.Packet(&ps[i]); err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
	}
	if err := w.Close(End{At: ps[len(ps)-1].At}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), ps
}

func readPackets(t testing.TB, r *Reader, from, to sim.Time) []Packet {
	t.Helper()
	var got []Packet
	if err := r.ScanPackets(from, to, func(p *Packet) error { got = append(got, *p); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// A proxy recording gives back every packet as written, whole and in a
// seeked window, across frames; its end counts them; it holds no samples.
func TestPacketsRoundTripAndSeek(t *testing.T) {
	b, want := writePackets(t, 600) // 60 s: 6 frames and the header
	r := open(t, b)
	if r.Header.Kind != KindProxy || r.Frames() < 7 {
		t.Fatalf("kind %q, %d frames", r.Header.Kind, r.Frames())
	}
	got := readPackets(t, r, 0, sim.Time(time.Hour))
	if len(got) != len(want) {
		t.Fatalf("%d of %d packets read back", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("packet %d reads %+v, written %+v", i, got[i], want[i])
		}
	}
	from, to := sim.Time(31*time.Second), sim.Time(32*time.Second)
	var inWindow []Packet
	for _, p := range want {
		if p.At >= from && p.At <= to {
			inWindow = append(inWindow, p)
		}
	}
	if w := readPackets(t, open(t, b), from, to); len(w) != len(inWindow) || w[0] != inWindow[0] {
		t.Fatalf("window: %d packets, want %d", len(w), len(inWindow))
	}
	end, err := r.End()
	if err != nil || end == nil || end.Packets != int64(len(want)) || end.Samples != 0 {
		t.Fatalf("end %+v, %v", end, err)
	}
	samples := 0
	r.Scan(0, sim.Time(time.Hour), func(*metrics.Sample) error { samples++; return nil }, nil)
	if samples != 0 {
		t.Fatalf("%d samples in a proxy recording", samples)
	}
	if b2, _ := writePackets(t, 600); !bytes.Equal(b, b2) {
		t.Fatal("the same packets gave different files")
	}
}

// The writer refuses a packet no relay makes, naming what is wrong, and
// a packet back in time.
func TestWriterRefusesImpossiblePackets(t *testing.T) {
	ok := Packet{At: sim.Time(time.Second), In: sim.Time(time.Second - 20*time.Millisecond), Out: sim.Time(time.Second),
		Scheduled: 20 * time.Millisecond, Fate: PacketDelivered, Size: 100, Flow: 1}
	cases := []struct {
		name string
		edit func(*Packet)
		want string
	}{
		{"read after its record", func(p *Packet) { p.In = p.At + 1 }, "read between 0"},
		{"written before read", func(p *Packet) { p.Out = p.In - 1 }, "written between"},
		{"written after its record", func(p *Packet) { p.Out = p.At + 1 }, "written between"},
		{"no fate", func(p *Packet) { p.Fate = 0 }, "no such fate"},
		{"unknown fate", func(p *Packet) { p.Fate = numFates }, "no such fate"},
		{"lost with a delay", func(p *Packet) { p.Fate = PacketLost }, "only released packets"},
		{"oversize", func(p *Packet) { p.Size = 65536 }, "size 65536"},
		{"direction 2", func(p *Packet) { p.Dir = 2 }, "direction 2"},
		{"beyond the format's time", func(p *Packet) { p.At, p.Out = maxAt, maxAt }, "out of range"},
		{"negative time", func(p *Packet) { p.In = -1 }, "read between 0"},
		{"negative scheduled delay", func(p *Packet) { p.Scheduled = -1 << 63 }, "scheduled after"},
		{"scheduled beyond the format's time", func(p *Packet) { p.Scheduled = time.Duration(maxAt) }, "scheduled after"},
	}
	for _, c := range cases {
		w, _ := NewWriter(&bytes.Buffer{}, Header{Kind: KindProxy})
		p := ok
		c.edit(&p)
		if err := w.Packet(&p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want an error saying %q", c.name, err, c.want)
		}
		if err := w.Packet(&ok); err != nil {
			t.Errorf("%s: then a good packet: %v", c.name, err)
		}
	}
	w, _ := NewWriter(&bytes.Buffer{}, Header{Kind: KindProxy})
	w.Packet(&ok)
	back := ok
	back.At, back.Out = ok.At-1, ok.At-1
	if err := w.Packet(&back); err == nil || !strings.Contains(err.Error(), "forward in time") {
		t.Fatalf("a packet back in time: %v", err)
	}
}

// Version 2 session recordings written before packets existed still read
// and still verify (lab's tests verify the example); a session recording
// is written as before: no kind, no packet count.
func TestSessionRecordingsAreUnchanged(t *testing.T) {
	b, err := os.ReadFile("examples/jitter-fix.jlrec")
	if err != nil {
		t.Fatal(err)
	}
	r := open(t, b)
	if r.Header.Kind != "" || count(t, r) == 0 {
		t.Fatalf("the example: kind %q", r.Header.Kind)
	}
	if bytes.Contains(write(t, 30, true), []byte(`"packets"`)) {
		t.Fatal("a session recording's end names packets")
	}
}

// A recording of an unknown kind is a clear error.
func TestUnknownRecordingKindIsAnError(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Kind: "holodeck"})
	w.Close(End{})
	if _, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err == nil || !strings.Contains(err.Error(), `kind "holodeck"`) {
		t.Fatalf("%v", err)
	}
}

// FuzzPacketBlock: a packet block that decodes re-encodes to the same
// rows (a round trip, through the writer's checks), never more rows than
// the bound.
func FuzzPacketBlock(f *testing.F) {
	var bw packetBlockWriter
	for i := range 5 {
		p := packetAt(i)
		r := p.row()
		bw.add(&r)
	}
	f.Add(bw.appendTo(nil))
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1, 2, 0, 0, 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		br, err := newPacketBlockReader(b)
		if err != nil {
			return
		}
		var rows []packetRow
		for {
			r, ok, err := br.next()
			if err != nil || !ok {
				break
			}
			if rows = append(rows, r); len(rows) > maxFrameRecords {
				t.Fatalf("more than %d rows", maxFrameRecords)
			}
		}
		for i := range rows {
			p := rows[i].packet()
			if err := checkPacket(&p); err != nil {
				t.Fatalf("row %d reads as a packet the writer refuses: %v", i, err)
			}
			if r := p.row(); r != rows[i] {
				t.Fatalf("row %d does not survive a round trip: %v then %v", i, rows[i], r)
			}
		}
	})
}

// The writer closes a frame before it holds more packets than the reader
// takes: 300,000 packets in 10 s (30,000 a second) all read back.
func TestWriterKeepsTheReadersBoundsForPackets(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Kind: KindProxy})
	const n = 300_000
	for i := range n {
		at := sim.Time(i) * sim.Time(10*time.Second) / n
		p := Packet{At: at, In: at, Fate: PacketLost, Size: 1200, Flow: 1}
		if err := w.Packet(&p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(End{At: sim.Time(10 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	if got := readPackets(t, open(t, buf.Bytes()), 0, sim.Time(time.Hour)); len(got) != n {
		t.Fatalf("%d of %d packets", len(got), n)
	}
}

// One flipped bit or byte anywhere in a proxy recording never loses
// packets silently: the file is refused, or the loss is reported, or
// every packet reads as written.
func TestNoSilentPacketLoss(t *testing.T) {
	b, want := writePackets(t, 300)
	for pos := 0; pos < len(b); pos++ {
		bad := append([]byte(nil), b...)
		flip := []byte{1 << (pos % 8), 0xFF}[pos%2]
		bad[pos] ^= flip
		r, err := Open(bytes.NewReader(bad), int64(len(bad)))
		if err != nil {
			continue
		}
		reported := r.Truncated || len(r.Damage) > 0
		r.OnDamage = func(*DamageError) { reported = true }
		var got []Packet
		if err := r.ScanPackets(0, sim.Time(time.Hour), func(p *Packet) error { got = append(got, *p); return nil }); err != nil || reported {
			continue
		}
		if len(got) != len(want) {
			t.Fatalf("byte %d ^ %#x: %d of %d packets read, and nothing said", pos, flip, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("byte %d ^ %#x: packet %d reads %+v, written %+v, and nothing said", pos, flip, i, got[i], want[i])
			}
		}
	}
}

// BenchmarkRecordPackets records a minute of a relay at 1,000 datagrams a
// second each way, 20 ± 5 ms added, 2 % lost: the cost per packet and
// the file's bytes per packet.
func BenchmarkRecordPackets(b *testing.B) {
	x := uint64(1)
	rnd := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	const n = 120_000
	ps := make([]Packet, 0, n)
	for i := range n {
		in := sim.Time(i) * sim.Time(500*time.Microsecond)
		p := Packet{In: in, Dir: uint8(i % 2), Flow: 1, Size: 60 + int(rnd()%40), Fate: PacketDelivered}
		if rnd()%50 == 0 {
			p.Fate, p.At = PacketLost, in
		} else {
			p.Scheduled = 15*time.Millisecond + time.Duration(rnd()%uint64(10*time.Millisecond))
			p.Out = in + sim.Time(p.Scheduled) + sim.Time(rnd()%uint64(300*time.Microsecond))
			p.At = p.Out
		}
		ps = append(ps, p)
	}
	for i := 1; i < n; i++ { // accounted in time order
		for j := i; j > 0 && ps[j].At < ps[j-1].At; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
	var size int
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, Header{Kind: KindProxy})
		for i := range ps {
			if err := w.Packet(&ps[i]); err != nil {
				b.Fatal(err)
			}
		}
		w.Close(End{At: ps[n-1].At})
		size = buf.Len()
	}
	b.ReportMetric(float64(size)/n, "file-B/packet")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/packet")
}

// Each kind of record goes forward in time on its own, so a frame may
// hold a change and then a packet from before it: the writer's index
// entry must span from the earliest record of the frame, or the file it
// wrote does not read (its own reader called the frame damaged and lost
// its packets).
func TestFrameSpansItsEarliestRecord(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Kind: KindProxy})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Change(Change{At: sim.Time(time.Second), Key: "up.latency", Value: "20ms"}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 30; i++ {
		at := sim.Time(i) * sim.Time(100*time.Millisecond)
		if err := w.Packet(&Packet{At: at, In: at, Fate: PacketLost, Flow: 1, Size: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(End{At: sim.Time(3 * time.Second)}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var damage []*DamageError
	r.OnDamage = func(d *DamageError) { damage = append(damage, d) }
	n := 0
	if err := r.ScanPackets(0, sim.Time(time.Hour), func(*Packet) error { n++; return nil }); err != nil || n != 30 || len(damage) > 0 {
		t.Fatalf("read %d of 30 packets, %v, damage %v", n, err, damage)
	}
}
