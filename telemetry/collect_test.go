package telemetry

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// badOfEachClass is one datagram of every class Decode refuses in.
var badOfEachClass = map[Class]string{
	ClassTooLong:   strings.Repeat(" ", MaxSize+1),
	ClassNotJSON:   `{"v":1,`,
	ClassVersion:   strings.Replace(tickJSON, `"v":1`, `"v":2`, 1),
	ClassKind:      strings.Replace(tickJSON, `"tick",`, `"tock",`, 1),
	ClassMissing:   strings.Replace(tickJSON, `,"depth":2`, ``, 1),
	ClassDuplicate: strings.Replace(tickJSON, `"depth":2`, `"depth":2,"depth":2`, 1),
	ClassType:      strings.Replace(tickJSON, `"depth":2`, `"depth":"2"`, 1),
	ClassNotFinite: with(`"turn":-0.25`, `"turn":NaN`),
	ClassRange:     with(`"turn":-0.25`, `"turn":-2`),
}

// Every datagram is counted once, as a frame, a tick or in its class; the
// first refusal of a class is handed back, later ones of it are not.
func TestCollectorCountsEveryDatagramOnce(t *testing.T) {
	c := NewCollector(Options{})
	at := t0
	collect := func(s string) *Error {
		at = at.Add(time.Millisecond)
		return c.Collect(at, []byte(s))
	}
	for range 3 {
		if e := collect(frameJSON); e != nil {
			t.Fatal(e)
		}
	}
	for range 2 {
		collect(tickJSON)
	}
	for round := range 2 {
		for cl, s := range badOfEachClass {
			e := collect(s)
			switch {
			case round == 0 && (e == nil || e.Class != cl):
				t.Errorf("first %q: got %v", cl, e)
			case round == 1 && e != nil:
				t.Errorf("second %q reported again: %v", cl, e)
			}
		}
	}
	want := Counts{Frames: 3, Ticks: 2}
	for cl := range badOfEachClass {
		want.Refused[cl] = 2
	}
	if got := c.Counts(); got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
	if got := want.Summary(); got != "3 frames and 2 server ticks decoded; 18 datagrams refused: "+
		"2 too long, 2 not JSON, 2 version, 2 kind, 2 missing field, 2 field twice, 2 wrong type, 2 not finite, 2 out of range" {
		t.Errorf("summary %q", got)
	}
	if got := (&Counts{Frames: 1}).Summary(); got != "1 frame and 0 server ticks decoded; none refused" {
		t.Errorf("summary %q", got)
	}
}

// The rings keep the latest Keep frames and ticks, oldest first, with the
// time each arrived.
func TestCollectorKeepsTheLatest(t *testing.T) {
	c := NewCollector(Options{Keep: 4})
	for i := range 10 {
		f := frameWant
		f.Frame = uint64(i)
		b, _ := AppendFrame(nil, &f)
		c.Collect(t0.Add(time.Duration(i)*time.Second), b)
	}
	got := c.Frames(nil)
	if len(got) != 4 {
		t.Fatalf("kept %d frames, want 4", len(got))
	}
	for k, r := range got {
		if r.D.Frame != uint64(6+k) || !r.At.Equal(t0.Add(time.Duration(6+k)*time.Second)) {
			t.Errorf("kept[%d] = frame %d at %v, want frame %d", k, r.D.Frame, r.At, 6+k)
		}
	}
	if n := len(c.Ticks(nil)); n != 0 {
		t.Errorf("%d ticks kept of none", n)
	}
	c.Collect(t0.Add(time.Minute), []byte(tickJSON))
	if ticks := c.Ticks(nil); len(ticks) != 1 || ticks[0].D != tickWant {
		t.Errorf("ticks %+v", ticks)
	}
}

// FramesAfter hands each frame over once: those decoded after the count
// given, oldest first; past the ring, those it still holds.
func TestCollectorFramesAfterHandsEachFrameOnce(t *testing.T) {
	c := NewCollector(Options{Keep: 4})
	add := func(from, to int) {
		for i := from; i < to; i++ {
			f := frameWant
			f.Frame = uint64(i)
			b, _ := AppendFrame(nil, &f)
			c.Collect(t0.Add(time.Duration(i)*time.Second), b)
		}
	}
	numbers := func(rs []Received[Frame]) []uint64 {
		var out []uint64
		for _, r := range rs {
			out = append(out, r.D.Frame)
		}
		return out
	}
	got, n := c.FramesAfter(nil, 0)
	if len(got) != 0 || n != 0 {
		t.Fatalf("no frames yet: got %v, %d", numbers(got), n)
	}
	add(0, 3)
	got, n = c.FramesAfter(nil, n)
	if fmt.Sprint(numbers(got)) != "[0 1 2]" || n != 3 {
		t.Fatalf("first three: got %v, %d", numbers(got), n)
	}
	add(3, 5)
	got, n = c.FramesAfter(got, n) // appends to what dst holds
	if fmt.Sprint(numbers(got)) != "[0 1 2 3 4]" || n != 5 {
		t.Fatalf("two more: got %v, %d", numbers(got), n)
	}
	if got, n = c.FramesAfter(nil, n); len(got) != 0 || n != 5 {
		t.Fatalf("none since: got %v, %d", numbers(got), n)
	}
	add(5, 12) // seven more: the ring of four holds the last four
	if got, n = c.FramesAfter(nil, n); fmt.Sprint(numbers(got)) != "[8 9 10 11]" || n != 12 {
		t.Fatalf("past the ring: got %v, %d", numbers(got), n)
	}
}

// At most Rate datagrams a second are decoded, after a burst of Burst: the
// rest are counted over the rate, unread, and reported once.
func TestCollectorIsRateBounded(t *testing.T) {
	c := NewCollector(Options{Rate: 100, Burst: 10})
	reports := 0
	for range 50 { // all at once
		if e := c.Collect(t0, []byte(frameJSON)); e != nil {
			if e.Class != ClassOverRate || !strings.Contains(e.Error(), "more than 100 datagrams a second (bursts of 10)") {
				t.Fatal(e)
			}
			reports++
		}
	}
	if got := c.Counts(); got.Frames != 10 || got.Refused[ClassOverRate] != 40 || reports != 1 {
		t.Fatalf("50 at once: %+v, reported %d times", got, reports)
	}
	for i := range 50 { // a second later, at 50 a second: every one read
		c.Collect(t0.Add(time.Second+time.Duration(i)*20*time.Millisecond), []byte(frameJSON))
	}
	if got := c.Counts(); got.Frames != 60 || got.Refused[ClassOverRate] != 40 {
		t.Fatalf("then 50 at 50/s: %+v", got)
	}
}

// garbage is a flood's n-th datagram: random bytes, a valid datagram cut
// or with a byte changed, or one of each malformed class.
func garbage(r *rand.Rand, buf []byte) []byte {
	switch r.IntN(4) {
	case 0:
		buf = buf[:r.IntN(MaxSize+200)]
		for i := range buf {
			buf[i] = byte(r.Uint32())
		}
		return buf
	case 1:
		return append(buf[:0], frameJSON[:r.IntN(len(frameJSON))]...)
	case 2:
		buf = append(buf[:0], frameJSON...)
		buf[r.IntN(len(buf))] = byte(r.Uint32())
		return buf
	}
	return append(buf[:0], badOfEachClass[Class(r.IntN(int(ClassRange)+1))]...)
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A flood of 200,000 bad datagrams at 20,000 a second: every one counted
// (decoded, refused by class, or over the rate), each class reported once,
// and the heap no bigger after than before.
func TestCollectorFloodIsBoundedAndCounted(t *testing.T) {
	const n = 200_000
	c := NewCollector(Options{})
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 0, MaxSize+200)
	before := heapInUse()
	reported := map[Class]int{}
	for i := range n {
		if e := c.Collect(t0.Add(time.Duration(i)*50*time.Microsecond), garbage(r, buf)); e != nil {
			reported[e.Class]++
		}
	}
	grew := int64(heapInUse()) - int64(before)
	got := c.Counts()
	if got.Total() != n {
		t.Fatalf("counted %d of %d: %+v", got.Total(), n, got)
	}
	for cl, k := range got.Refused {
		if (k > 0) != (reported[Class(cl)] == 1) || reported[Class(cl)] > 1 {
			t.Errorf("class %q: %d refused, reported %d times", Class(cl), k, reported[Class(cl)])
		}
	}
	// 20,000/s offered for 10 s: read are the burst and 5,000 a second.
	if read := n - got.Refused[ClassOverRate]; read < 1000+49_990 || read > 1000+50_000 {
		t.Errorf("read %d of %d offered at 4× the rate; want 51,000 (the burst + 10 s × 5,000/s)", read, n)
	}
	if grew > 64<<10 {
		t.Errorf("the heap grew by %d bytes over the flood", grew)
	}
	t.Logf("%s; heap grew by %d bytes", got.Summary(), grew)
}
