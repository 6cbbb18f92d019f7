package lab

import (
	"testing"
	"time"

	"jitterlab/sim"
)

// benchCases are the link settings BenchmarkSessionHour and
// BenchmarkSessionHourBareLoop run: the default scenario (a perfect link)
// and 50 ± 20 ms uniform jitter with 1 % loss each way.
var benchCases = []struct {
	name string
	sets []string
}{{"perfect", nil}, {"jitter", []string{jittery, "link.jitter=20ms", "link.loss=1%"}}}

// variantBenchCases are the issue 11 variants, each on the jittery link
// (BenchmarkSessionHour only: the bare loop has no variants).
var variantBenchCases = []struct {
	name string
	sets []string
}{
	{"redundancy", []string{jittery, "link.jitter=20ms", "link.loss=1%", "client.redundancy=3"}},
	{"view", []string{jittery, "link.jitter=20ms", "link.loss=1%", "view.interp=adaptive"}},
	{"max_catchup", []string{jittery, "link.jitter=20ms", "link.loss=1%", "client.fps=20", "client.fixed_cost=15ms", "client.max_catchup=100ms"}},
	{"buffer+dilation", []string{jittery, "link.jitter=20ms", "link.loss=1%", "server.inputs=buffer", "server.buffer=3", "client.corrector=dilation", "client.sender=accumulator"}},
	{"unacked", []string{jittery, "link.jitter=20ms", "link.loss=1%", "server.inputs=buffer", "client.redundancy=unacked"}},
	{"auto+dilation", []string{jittery, "link.jitter=20ms", "link.loss=1%", "server.inputs=buffer", "server.buffer_mode=auto", "client.corrector=dilation", "client.sender=accumulator"}},
}

// realtime measures simulated hours per op against wall time
// (x-realtime) and against the process's CPU time (x-realtime-cpu, the
// figure issue 11 quotes: a loaded machine stretches wall time, not CPU
// time). Call start before the b.Loop and stop after it.
type realtime struct {
	cpu0 time.Duration
	ok   bool
}

func startRealtime() realtime {
	t, ok := cpuTime()
	return realtime{t, ok}
}

func (r realtime) stop(b *testing.B, simulated time.Duration) {
	b.ReportMetric(simulated.Seconds()*float64(b.N)/b.Elapsed().Seconds(), "x-realtime")
	if t, ok := cpuTime(); ok && r.ok && t > r.cpu0 {
		b.ReportMetric(simulated.Seconds()*float64(b.N)/(t-r.cpu0).Seconds(), "x-realtime-cpu")
	}
}

// BenchmarkSessionHourBareLoop is the floor BenchmarkSessionHour is
// compared with: one hour of the session's event mix through one typed
// queue of deliveries and the same timers (the session's deliveries wait
// in its links' queues instead), with every handler reduced to scheduling
// its successors. Per simulated second: 60 frames, every third of which sends
// an uplink packet; 20 server steps, each sending a downlink packet; 20
// samples; one clock-wander wake-up. A packet is lost with the link's loss
// probability, else delivered after the latency plus a uniform jitter.
func BenchmarkSessionHourBareLoop(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) {
			cfg := config(b, time.Hour, c.sets...)
			rt := startRealtime()
			var events int
			for b.Loop() {
				events = bareLoop(&cfg)
			}
			rt.stop(b, time.Hour)
			b.ReportMetric(float64(events), "events/op")
		})
	}
}

// The bare loop's queued events: a delivery due on the uplink or the
// downlink.
type evKind uint8

const (
	evUp evKind = iota
	evDown
)

type event struct {
	kind evKind
}

// bareLoop runs cfg's duration of the event mix and returns the number of
// events handled.
func bareLoop(cfg *Config) int {
	var (
		q      sim.Queue[event]
		order  sim.Order // the session's: one sequence for the queue and the timers
		timers [nTimers]sim.Timer
		frames int64
		n      int
	)
	r := sim.NewRand(cfg.Seed, "bare")
	q.Grow(64)
	send := func(now sim.Time, kind evKind, p float64, lat, jit time.Duration) {
		if p > 0 && r.Float64() < p {
			return
		}
		d := lat
		if jit > 0 {
			d += time.Duration(float64(2*r.Float64()-1) * float64(jit))
		}
		q.PushSeq(now.Add(max(d, 0)), order.Next(), event{kind: kind})
	}
	timers[tFrame].Set(0, &order)
	timers[tServer].Set(0, &order)
	timers[tSample].Set(sim.Time(50*time.Millisecond), &order)
	timers[tWander].Set(sim.Time(time.Second), &order)
	until := sim.Time(cfg.Duration)
	for {
		at, seq, ok := q.PeekKey()
		next := -1
		for i := range timers {
			t := &timers[i]
			if t.Armed && (!ok || t.Before(at, seq)) {
				at, seq, ok, next = t.At, t.Seq, true, i
			}
		}
		if !ok || at > until {
			return n
		}
		n++
		if next < 0 {
			q.Pop()
			continue
		}
		timers[next].Armed = false
		switch next {
		case tFrame:
			if frames%3 == 0 {
				send(at, evUp, cfg.Up.Loss, cfg.Up.Latency, cfg.Up.Jitter)
			}
			frames++
			timers[tFrame].Set(sim.GridTime(frames, 60), &order)
		case tServer:
			send(at, evDown, cfg.Down.Loss, cfg.Down.Latency, cfg.Down.Jitter)
			timers[tServer].Set(at.Add(cfg.Server.Tick), &order)
		case tSample:
			timers[tSample].Set(at.Add(50*time.Millisecond), &order)
		case tWander:
			timers[tWander].Set(at.Add(time.Second), &order)
		}
	}
}
