package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

func TestGridTimeIsExact(t *testing.T) {
	// Three frames of a 60 fps grid are exactly 50 ms; frame k is k·1s/60
	// rounded, never an accumulated 16.666 ms.
	if got := GridTime(3, 60); got != Time(50*time.Millisecond) {
		t.Fatalf("GridTime(3,60) = %d, want 50ms", got)
	}
	if got := GridTime(1, 60); got != 16666667 {
		t.Fatalf("GridTime(1,60) = %d, want 16666667", got)
	}
	hour := int64(60 * 3600)
	if got := GridTime(hour, 60); got != Time(time.Hour) {
		t.Fatalf("GridTime(%d,60) = %d, want 1h", hour, got)
	}
	if got := GridTime(-1, 60); got != -16666667 {
		t.Fatalf("GridTime(-1,60) = %d", got)
	}
}

func TestQueueOrdersByTimeThenPushOrder(t *testing.T) {
	var q Queue[int]
	r := rand.New(rand.NewPCG(1, 2))
	type ev struct {
		at  Time
		seq int
	}
	var want []ev
	for i := range 5000 {
		at := Time(r.IntN(300)) // many ties
		q.Push(at, i)
		want = append(want, ev{at, i})
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].at < want[j].at })
	for i, w := range want {
		at, v, ok := q.Pop()
		if !ok || at != w.at || v != w.seq {
			t.Fatalf("pop %d = (%d,%d,%v), want (%d,%d)", i, at, v, ok, w.at, w.seq)
		}
	}
	if _, _, ok := q.Pop(); ok {
		t.Fatal("pop from empty queue reported ok")
	}
}

func TestQueueInterleavedPushPop(t *testing.T) {
	// Events scheduled while others run keep (time, push order).
	var q Queue[string]
	q.Push(10, "a")
	q.Push(5, "b")
	at, v, _ := q.Pop()
	if at != 5 || v != "b" {
		t.Fatalf("got %d %s", at, v)
	}
	q.Push(10, "c") // same time as a, pushed later
	q.Push(7, "d")
	var got []string
	for q.Len() > 0 {
		_, v, _ := q.Pop()
		got = append(got, v)
	}
	if want := "d a c"; join(got) != want {
		t.Fatalf("order %q, want %q", join(got), want)
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func TestQueueSteadyStateDoesNotAllocate(t *testing.T) {
	var q Queue[int]
	q.Grow(64)
	for i := range 64 {
		q.Push(Time(i), i)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		at, v, _ := q.Pop()
		q.Push(at+64, v)
	})
	if allocs != 0 {
		t.Fatalf("steady-state pop+push allocates %v per event", allocs)
	}
}

func TestClockDriftGains360msPerHour(t *testing.T) {
	c, err := NewClock(0, 100)
	if err != nil {
		t.Fatal(err)
	}
	hour := Time(time.Hour)
	if got := c.Local(hour) - hour; got != Time(360*time.Millisecond) {
		t.Fatalf("+100 ppm gained %v in an hour, want exactly 360ms", time.Duration(got))
	}
	c, _ = NewClock(0, -100)
	if got := hour - c.Local(hour); got != Time(360*time.Millisecond) {
		t.Fatalf("-100 ppm lost %v in an hour, want exactly 360ms", time.Duration(got))
	}
}

func TestClockOffsetAndInverse(t *testing.T) {
	for _, ppm := range []float64{0, 100, -100, 40, 20000, -333.333, 0.001} {
		c, err := NewClock(-7*time.Millisecond, ppm)
		if err != nil {
			t.Fatal(err)
		}
		if c.Local(0) != Time(-7*time.Millisecond) {
			t.Fatalf("ppm %v: local(0) = %d, want offset", ppm, c.Local(0))
		}
		r := rand.New(rand.NewPCG(3, uint64(ppm*1000)))
		for range 2000 {
			l := Time(r.Int64N(int64(10 * time.Hour)))
			tt := c.True(l)
			// True(l) is the first true instant whose local reading is ≥ l.
			if c.Local(tt) < l || c.Local(tt-1) >= l {
				t.Fatalf("ppm %v: True(%d)=%d but Local(t)=%d Local(t-1)=%d", ppm, l, tt, c.Local(tt), c.Local(tt-1))
			}
		}
	}
}

func TestClockSetDriftIsContinuous(t *testing.T) {
	c, _ := NewClock(0, 0)
	at := Time(10 * time.Second)
	before := c.Local(at)
	if err := c.SetDrift(at, 1000); err != nil {
		t.Fatal(err)
	}
	if c.Local(at) != before {
		t.Fatalf("local jumped at the drift change: %d → %d", before, c.Local(at))
	}
	if got := c.Local(at+Time(time.Second)) - c.Local(at); got != Time(time.Second+time.Millisecond) {
		t.Fatalf("+1000 ppm over 1s: %d", got)
	}
	if err := c.SetDrift(at-1, 0); err == nil {
		t.Fatal("drift change in the past accepted")
	}
	if _, err := NewClock(0, 600000); err == nil {
		t.Fatal("drift 600000 ppm accepted")
	}
}

func TestClockWalkIsSeededAndBounded(t *testing.T) {
	run := func() []float64 {
		c, _ := NewClock(0, 0)
		r := NewRand(9, "client.clock")
		var out []float64
		for i := 1; i <= 100; i++ {
			if err := c.Walk(Time(i)*Time(time.Second), r, 5); err != nil {
				t.Fatal(err)
			}
			out = append(out, c.DriftPPM())
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("walk not repeatable at %d: %v vs %v", i, a[i], b[i])
		}
	}
	if a[len(a)-1] == 0 {
		t.Fatal("walk did not move the drift")
	}
}

func TestNewRandStreamsAreIndependentAndRepeatable(t *testing.T) {
	a1, a2 := NewRand(42, "up.loss"), NewRand(42, "up.loss")
	b := NewRand(42, "up.jitter")
	c := NewRand(43, "up.loss")
	same, diffB, diffC := true, 0, 0
	for range 100 {
		x, y := a1.Uint64(), a2.Uint64()
		if x != y {
			same = false
		}
		if b.Uint64() != x {
			diffB++
		}
		if c.Uint64() != x {
			diffC++
		}
	}
	if !same || diffB < 99 || diffC < 99 {
		t.Fatalf("same=%v diff(other stream)=%d diff(other seed)=%d", same, diffB, diffC)
	}
}

func TestTimeString(t *testing.T) {
	if s := Time(83*time.Second + 450*time.Millisecond).String(); s != "00:01:23.450" {
		t.Fatal(s)
	}
}

// BenchmarkQueue measures one pop and one push per event in steady state, as
// the session loop does, for a session-sized queue (16 pending events) and a
// large one.
func BenchmarkQueue(b *testing.B) {
	for _, pending := range []int{16, 1000} {
		b.Run(fmt.Sprintf("pending=%d", pending), func(b *testing.B) {
			var q Queue[uint32]
			r := rand.New(rand.NewPCG(1, 1))
			for i := range pending {
				q.Push(Time(r.Int64N(1e9)), uint32(i))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				at, v, _ := q.Pop()
				q.Push(at+Time(1+i%97*1e6), v)
			}
		})
	}
}

func TestTimerOrdersWithQueuedEvents(t *testing.T) {
	// A timer set between two pushes at the same time, from the Order the
	// queue is pushed with, fires between them.
	var q Queue[string]
	var o Order
	var tm Timer
	q.PushSeq(10, o.Next(), "first")
	tm.Set(10, &o)
	q.PushSeq(10, o.Next(), "second")
	at, seq, _ := q.PeekKey()
	if tm.Before(at, seq) {
		t.Fatal("timer set after 'first' fires before it")
	}
	q.Pop()
	at, seq, _ = q.PeekKey()
	if !tm.Before(at, seq) {
		t.Fatal("timer set before 'second' fires after it")
	}
	tm.Set(9, &o)
	if !tm.Before(at, seq) {
		t.Fatal("an earlier timer fires after a later event")
	}
}

// Top then Drop takes events in the same order as Pop, and Top reads the
// event Pop would return.
func TestQueueTopAndDropActAsPop(t *testing.T) {
	var a, b Queue[int]
	r := rand.New(rand.NewPCG(3, 3))
	for i := range 500 {
		at := Time(r.Int64N(50))
		a.Push(at, i)
		b.Push(at, i)
		if r.IntN(3) == 0 {
			wantAt, want, _ := a.Pop()
			gotAt, got, ok := b.Top()
			if !ok || gotAt != wantAt || *got != want {
				t.Fatalf("Top gave (%v, %v), Pop (%v, %v)", gotAt, *got, wantAt, want)
			}
			b.Drop()
		}
	}
	for a.Len() > 0 {
		wantAt, want, _ := a.Pop()
		gotAt, got, _ := b.Top()
		if gotAt != wantAt || *got != want {
			t.Fatalf("Top gave (%v, %v), Pop (%v, %v)", gotAt, *got, wantAt, want)
		}
		b.Drop()
	}
	if _, _, ok := b.Top(); ok || b.Len() != 0 {
		t.Fatal("Top of an empty queue reports an event")
	}
	b.Drop() // dropping from an empty queue is a no-op
}

// A stream is PCG seeded from splitmix64 of the seed and the FNV-1a hash
// (hash/fnv) of its name, as it always was (recordings and goldens depend
// on it); Seed(p, seed, prefix, suffix) is NewRand(seed, prefix+suffix)
// in place.
func TestStreamsAreFNVOfTheirName(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, 1<<64 - 1} {
		for _, c := range []struct{ prefix, suffix string }{{"up", ".loss"}, {"down.jitter", ""}, {"", ""}, {"client", ".clock"}, {"é", "\x00"}} {
			h := fnv.New64a()
			h.Write([]byte(c.prefix + c.suffix))
			s := splitmix64(seed ^ splitmix64(h.Sum64()))
			ref := rand.New(rand.NewPCG(s, splitmix64(s)))
			var p rand.PCG
			p.Seed(1, 2) // a stream already in use
			p.Uint64()
			Seed(&p, seed, c.prefix, c.suffix)
			r := NewRand(seed, c.prefix+c.suffix)
			for range 5 {
				want := ref.Uint64()
				if a, b := r.Uint64(), p.Uint64(); a != want || b != want {
					t.Fatalf("seed %d stream %q: NewRand %x, Seed %x, reference %x", seed, c.prefix+c.suffix, a, b, want)
				}
			}
		}
	}
}

func TestSecondsIsDurationSeconds(t *testing.T) {
	for _, d := range []time.Duration{0, 1, -1, 16666667, -16666667, time.Second - 1, -time.Second + 1, time.Second, -time.Second, 1<<62 + 12345, -1 << 63, 1<<63 - 1, 33333333} {
		if got, want := Seconds(d), d.Seconds(); math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("Seconds(%d) = %v, d.Seconds() = %v", int64(d), got, want)
		}
	}
}

// A Grid gives GridTime's instants bit for bit, whether k counts up by
// one (the carried remainder), repeats, jumps, goes back or is negative,
// and when the rate changes.
func TestGridIsGridTime(t *testing.T) {
	var g Grid
	check := func(k, n int64) {
		t.Helper()
		if got, want := g.Time(k, n), GridTime(k, n); got != want {
			t.Fatalf("Grid.Time(%d, %d) = %d, GridTime %d", k, n, got, want)
		}
	}
	for _, n := range []int64{1, 3, 7, 30, 60, 144, 1000, 999_999_937, 2_000_000_000, 3_000_000_001} {
		for k := int64(0); k < 5000; k++ {
			check(k, n)
		}
		check(4999, n)            // the same k again
		check(1<<30, n)           // a jump
		check(1<<30+1, n)         // and on by one from there
		check(17, n)              // back
		check(-5, n)              // negative
		check(-4, n)              // on from a negative
		check(3600*24*365*100, n) // a century of ticks
	}
	check(5, 60)
	check(6, 61) // the rate changes between two consecutive k
}
