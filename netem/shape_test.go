package netem

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"jitterlab/sim"
)

// exactBucket is tbf in integers: tokens are kept in bit·ns (bytes·8·1e9),
// the bucket gains rate bit·ns per ns, and a packet that finds too few
// tokens leaves when they are there, the real time rounded down to a ns.
// It follows the same bookkeeping as rate.Limiter (tokens may go negative:
// the bytes reserved by packets still waiting).
type exactBucket struct {
	rate       int64 // bits/s
	capacity   int64 // burst in bit·ns
	tokens     int64 // bit·ns
	last       sim.Time
	perByteBNS int64
}

func newExactBucket(rateBits int64, burstBytes int) *exactBucket {
	return &exactBucket{rate: rateBits, capacity: int64(burstBytes) * 8e9, tokens: int64(burstBytes) * 8e9, perByteBNS: 8e9}
}

func (b *exactBucket) send(t sim.Time, bytes int) sim.Time {
	if dt := int64(t - b.last); dt > 0 {
		room := b.capacity - b.tokens
		if dt > room/b.rate+1 {
			b.tokens = b.capacity
		} else {
			b.tokens = min(b.capacity, b.tokens+b.rate*dt)
		}
	}
	b.last = t
	b.tokens -= int64(bytes) * b.perByteBNS
	if b.tokens >= 0 {
		return t
	}
	return t + sim.Time(-b.tokens/b.rate)
}

// The shaper is rate.Limiter driven with explicit times; over 200,000
// packets of random sizes arriving at random times near the rate, every
// departure stays within 1 ns of the exact integer bucket (the float
// arithmetic does not drift).
func TestShaperMatchesExactIntegerBucket(t *testing.T) {
	const n, rateBits, burst, overhead = 200000, 1_234_567, 3000, 28
	l := newLink(t, Params{ShapeRate: rateBits, ShapeBurst: burst, Overhead: overhead})
	ref := newExactBucket(rateBits, burst)
	r := rand.New(rand.NewPCG(1, 2))
	now := sim.Time(0)
	var worst time.Duration
	waited := 0
	for i := range n {
		size := 40 + r.IntN(1400)
		// Offered 85 % of the rate: the queue fills and drains, and idle
		// gaps refill the bucket.
		txMean := float64((40+1400/2+overhead)*8) / rateBits
		now += sim.Time(r.ExpFloat64() * txMean / 0.85 * 1e9)
		res := l.Send(now, Packet{ID: uint64(i), Size: size})
		if res.Scheduled != 1 {
			t.Fatalf("packet %d dropped: %+v", i, res)
		}
		want := ref.send(now, size+overhead)
		if want > now {
			waited++
		}
		d := res.At[0].Sub(want)
		if d < 0 {
			d = -d
		}
		worst = max(worst, d)
		if d > time.Nanosecond {
			t.Fatalf("packet %d (%d B at %v): shaper releases it at %v, the exact bucket at %v", i, size, now, res.At[0], want)
		}
	}
	if waited < n/10 || waited > 9*n/10 {
		t.Fatalf("%d of %d packets waited for tokens: the test does not exercise both the queue and the bucket", waited, n)
	}
	t.Logf("largest difference from the exact bucket over %d packets: %v (%d waited)", n, worst, waited)
}

// Offered twice the rate, the shaper delivers exactly the rate once the
// bucket is spent.
func TestShapedThroughputEqualsRate(t *testing.T) {
	const rateBits, size, overhead, burst = 1_000_000, 100, 28, 10000
	l := newLink(t, Params{Latency: 10 * ms, ShapeRate: rateBits, ShapeBurst: burst, Overhead: overhead})
	const n = 5000
	sends, _ := drive(t, l, n, 512*time.Microsecond, size)
	// From the first packet that waits for tokens on, the bucket is empty.
	k := 0
	for sends[k].At[0] == sim.Time(int64(k)*int64(512*time.Microsecond)).Add(10*ms) {
		k++
	}
	if k < burst/(size+overhead) {
		t.Fatalf("only %d packets passed before the bucket ran dry", k)
	}
	first, last := sends[k].At[0], sends[n-1].At[0]
	bits := float64((n - 1 - k) * (size + overhead) * 8)
	got := bits / last.Sub(first).Seconds()
	within(t, "shaped throughput (bit/s)", got, rateBits, 1e-6*rateBits)
	for i := 1; i < n; i++ {
		if sends[i].At[0] < sends[i-1].At[0] {
			t.Fatal("the shaper is FIFO")
		}
	}
}

// A full bucket lets exactly burst bytes through at once: the longest run
// of whole packets whose sizes sum to at most burst; after an idle time the
// bucket is full again, and never fuller.
func TestShaperBurstAdmittedEqualsBurst(t *testing.T) {
	const rateBits, burst, overhead = 2_000_000, 20000, 28
	r := rand.New(rand.NewPCG(3, 4))
	l := newLink(t, Params{ShapeRate: rateBits, ShapeBurst: burst, Overhead: overhead})
	for round, start := range []sim.Time{0, sim.Time(10 * time.Second), sim.Time(3600 * time.Second)} {
		bytes, admitted, want := 0, 0, -1
		for i := range 100 {
			size := 40 + r.IntN(1400)
			res := l.Send(start, Packet{ID: uint64(i), Size: size})
			if want < 0 && bytes+size+overhead > burst {
				want = i
			}
			bytes += size + overhead
			if res.At[0] == start {
				admitted++
			}
		}
		if admitted != want {
			t.Errorf("round %d: %d packets left at once, want %d (the bytes that fit in a %d B bucket)", round, admitted, want, burst)
		}
		for {
			if _, ok := l.Deliver(math.MaxInt64); !ok {
				break
			}
		}
		// The next round starts long after the queue drained.
	}
	// A packet larger than the bucket can never pass: tbf drops it.
	l = newLink(t, Params{ShapeRate: rateBits, ShapeBurst: 1500, Overhead: overhead})
	if res := l.Send(0, Packet{Size: 1500}); res.QueueDropped != 1 || l.Counters().ShapeDropped != 1 {
		t.Fatalf("a 1528 B packet passed a 1500 B bucket: %+v", res)
	}
}

// Overloaded, the shaper holds at most limit bytes: a packet is dropped
// exactly when the bytes waiting plus its own exceed the limit, and no
// packet waits longer than limit/rate. A limit given as time is tc's
// rate·latency + burst bytes.
func TestShaperQueueDelayBoundedByLimit(t *testing.T) {
	const rateBits, burst, overhead = 1_000_000, 1500, 28
	for _, c := range []struct {
		name      string
		p         Params
		wantLimit int64
	}{
		{"bytes", Params{ShapeRate: rateBits, ShapeBurst: burst, ShapeLimit: 20000, Overhead: overhead}, 20000},
		{"latency", Params{ShapeRate: rateBits, ShapeBurst: burst, ShapeLatency: 50 * ms, Overhead: overhead}, 125000*50/1000 + burst},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.p.shapeLimitBytes(); got != c.wantLimit {
				t.Fatalf("limit %d bytes, want %d", got, c.wantLimit)
			}
			bound := time.Duration(float64(c.wantLimit) / (rateBits / 8) * 1e9)
			l := newLink(t, c.p)
			r := rand.New(rand.NewPCG(5, 6))
			type waiting struct {
				at    sim.Time
				bytes int64
			}
			var queue []waiting // accepted packets, to recount the FIFO
			now := sim.Time(0)
			var worst time.Duration
			dropped := 0
			const n = 20000
			for i := range n {
				size := 40 + r.IntN(1000)
				// Three times the rate on average.
				now += sim.Time(r.ExpFloat64() * float64((size+overhead)*8) / rateBits / 3 * 1e9)
				var inQueue int64
				for _, q := range queue {
					if q.at > now {
						inQueue += q.bytes
					}
				}
				res := l.Send(now, Packet{ID: uint64(i), Size: size})
				fits := inQueue+int64(size+overhead) <= c.wantLimit
				if (res.Scheduled == 1) != fits {
					t.Fatalf("packet %d: %d B waiting + %d B, limit %d: scheduled=%v", i, inQueue, size+overhead, c.wantLimit, res.Scheduled == 1)
				}
				if res.Scheduled == 0 {
					dropped++
					continue
				}
				wait := res.At[0].Sub(now)
				worst = max(worst, wait)
				if wait > bound+time.Nanosecond {
					t.Fatalf("packet %d waited %v, more than limit/rate = %v", i, wait, bound)
				}
				queue = append(queue, waiting{res.At[0], int64(size + overhead)})
				if len(queue) > 200 {
					queue = queue[100:]
				}
			}
			if c := l.Counters(); c.ShapeDropped != uint64(dropped) || c.QueueDropped != uint64(dropped) || dropped < n/2 {
				t.Fatalf("counters %+v, dropped %d of %d", c, dropped, n)
			}
			if worst < bound*9/10 {
				t.Fatalf("the longest wait %v is far below the bound %v: the queue never filled", worst, bound)
			}
			t.Logf("longest wait %v, bound limit/rate %v, dropped %d of %d", worst, bound, dropped, n)
		})
	}
}

// A new shaper rate applies from the next packet on: offered twice the
// rate throughout, the departures are spaced by the old rate's transmit
// time before the change and by the new one's after the queue turns over.
func TestShaperRateChange(t *testing.T) {
	const size, overhead = 100, 28
	p := Params{ShapeRate: 1_000_000, ShapeBurst: 1500, Overhead: overhead}
	l := newLink(t, p)
	var at []sim.Time
	send := func(from, n int) {
		for i := range n {
			r := l.Send(sim.Time(int64(from+i)*int64(256*time.Microsecond)), Packet{Size: size})
			at = append(at, r.At[0])
		}
	}
	send(0, 2000) // 4 Mbit/s offered to 1 Mbit/s: 1.024 ms apart
	p.ShapeRate = 2_000_000
	if err := l.SetParams(p, "up"); err != nil {
		t.Fatal(err)
	}
	send(2000, 2000) // now 0.512 ms apart, once the backlog of the old rate is served
	if d := at[1999].Sub(at[1998]); d != 1024*time.Microsecond {
		t.Fatalf("spacing at the old rate %v, want 1.024ms", d)
	}
	if d := at[3999].Sub(at[3998]); d != 512*time.Microsecond {
		t.Fatalf("spacing at the new rate %v, want 512µs", d)
	}
	// The first packet after the change leaves one new transmit time after
	// the last packet queued at the old rate: the FIFO holds across the change.
	if d := at[2000].Sub(at[1999]); d != 512*time.Microsecond {
		t.Fatalf("first packet at the new rate leaves %v after the last old one, want 512µs", d)
	}
	for i := 1; i < len(at); i++ {
		if at[i] < at[i-1] {
			t.Fatalf("packet %d leaves at %v, before packet %d at %v", i, at[i], i-1, at[i-1])
		}
	}
}
