package lab

import (
	"math"
	"testing"
	"time"

	"jitterlab/netem"
	"jitterlab/sim"
)

func at(ms int) sim.Time { return sim.Time(time.Duration(ms) * time.Millisecond) }

// The meter's contract: "a downlink message sent, which takes the delay of
// the latest uplink packet sent strictly before it for its round trip".
func TestMeterRoundTripTakesTheLatestUplinkSentStrictlyBefore(t *testing.T) {
	var m meter
	m.reset(50 * time.Millisecond)
	if d, ok := m.upDelayBefore(0); ok || d != 0 {
		t.Fatalf("before any uplink packet: %v, %v; want none", d, ok)
	}
	m.sentUp(at(0), &netem.SendResult{Scheduled: 1, At: [2]sim.Time{at(30)}})
	m.sentUp(at(5), &netem.SendResult{Scheduled: 0}) // lost: no delay, not the latest
	// Two copies: the first to arrive (35 ms, sent at 10 ms) gives 25 ms.
	m.sentUp(at(10), &netem.SendResult{Scheduled: 2, At: [2]sim.Time{at(60), at(35)}})
	for _, c := range []struct {
		name string
		now  sim.Time
		want time.Duration
	}{
		{"sent at the same instant as an uplink packet: the one before", at(10), 30 * time.Millisecond},
		{"sent after both: the later, by send time, not by delay", at(11), 25 * time.Millisecond},
	} {
		if d, ok := m.upDelayBefore(c.now); !ok || d != c.want {
			t.Errorf("%s: %v, %v; want %v", c.name, d, ok, c.want)
		}
	}
}

// "A sample window's delays are means over the copies delivered in it";
// "the summary's one-way delays and round trips count every copy delivered
// from the start" (no login, no warm-up here).
func TestMeterWindowDelaysAreMeansOverTheCopiesDelivered(t *testing.T) {
	s, err := New(config(t, time.Second), 50*time.Millisecond) // its client, server and links, for the sample's counters
	if err != nil {
		t.Fatal(err)
	}
	var m meter
	m.reset(50 * time.Millisecond)
	deliver := func(up bool, sent, arrive int, upDelay time.Duration, hasUp bool) {
		m.delivered(up, &netem.Delivery{SentAt: at(sent), At: at(arrive)}, upDelay, hasUp)
	}
	deliver(true, 0, 30, 0, false)                    // up 30 ms
	deliver(true, 10, 50, 0, false)                   // up 40 ms
	deliver(false, 20, 40, 30*time.Millisecond, true) // down 20 ms, round trip 50 ms
	deliver(false, 25, 65, 0, false)                  // down 40 ms, no uplink before it
	deliver(false, 30, 60, 10*time.Millisecond, true) // down 30 ms, round trip 40 ms
	smp := m.endWindow(at(50), true, s.cl, s.sv, s.up, s.down)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"up", smp.UpOWDMs, 35}, {"down", smp.DownOWDMs, 30}, {"rtt", smp.RTTMs, 45}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("window mean %s: %v ms, want %v", c.name, c.got, c.want)
		}
	}
	// The next window has no copy: no data, not the last window's means.
	if smp := m.endWindow(at(100), true, s.cl, s.sv, s.up, s.down); !math.IsNaN(smp.UpOWDMs) || !math.IsNaN(smp.RTTMs) {
		t.Errorf("an empty window: up %v ms, rtt %v ms; want no data", smp.UpOWDMs, smp.RTTMs)
	}
	if smp := m.endWindow(at(150), false, s.cl, s.sv, s.up, s.down); smp != nil {
		t.Errorf("a window without a watcher built its sample")
	}
	var sum Summary
	m.summarize(&sum, &s.cfg, s.cl, s.sv)
	if n := m.rtt.Count(); n != 2 || sum.RTTMs.Max != 50 {
		t.Errorf("round trips: %d counted, max %v ms; want 2, 50", n, sum.RTTMs.Max)
	}
	if n := m.upOWD.Count() + m.downOWD.Count(); n != 5 || sum.UpOWDMs.Max != 40 || sum.DownOWDMs.Max != 40 {
		t.Errorf("one-way delays: %d counted, max up %v, down %v ms; want 5, 40, 40", n, sum.UpOWDMs.Max, sum.DownOWDMs.Max)
	}
	// Never warm (no frame saw a login): jitter and frames count nothing.
	if n := m.upJit.Count() + m.downJt.Count(); n != 0 || !math.IsNaN(sum.Card.JudderMPS) {
		t.Errorf("before warm-up: %d jitter values, judder %v; want none", n, sum.Card.JudderMPS)
	}
}

// "After reset(every) it is the meter of a new session, with the memory
// of its histograms, its report card and its input-sample rings kept."
func TestMeterResetKeepsItsMemoryAndForgetsItsFigures(t *testing.T) {
	var m meter
	m.reset(50 * time.Millisecond)
	m.delivered(false, &netem.Delivery{SentAt: at(0), At: at(20)}, 30*time.Millisecond, true)
	m.sentUp(at(0), &netem.SendResult{Scheduled: 1, At: [2]sim.Time{at(30)}})
	rtt, card, view := m.rtt, m.card, m.vars.viewDelay
	m.reset(20 * time.Millisecond)
	if m.rtt != rtt || m.card != card || m.vars.viewDelay != view || m.visErr != card.lag || m.inputDelay != card.delay {
		t.Error("reset did not keep the histograms and the report card")
	}
	if _, ok := m.upDelayBefore(at(10)); ok || m.rtt.Count() != 0 || m.winRTTN != 0 || m.everyS != 0.02 {
		t.Errorf("reset kept figures: rtt %d values, window %d round trips, every %v s", m.rtt.Count(), m.winRTTN, m.everyS)
	}
}

// raise keeps the builtin max's bits over runs that start at +0 with
// values that are never −0 (a NaN as a NaN): NaN sticks, +Inf wins, +0
// stays +0.
func TestRaiseIsMax(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, vs := range [][]float64{
		{0, 0.5, 0.25, 1},
		{0.3, nan, 0.7},
		{nan, 0.1},
		{0.2, inf, 0.4},
		{0},
		{1e-300, 5e-324, 0},
	} {
		m, want := 0.0, 0.0
		for _, v := range vs {
			raise(&m, v)
			want = max(want, v)
			if math.Float64bits(m) != math.Float64bits(want) && !(math.IsNaN(m) && math.IsNaN(want)) {
				t.Fatalf("%v: raise gives %v, max %v", vs, m, want)
			}
		}
	}
}
