package netem

import (
	"testing"
	"time"

	"jitterlab/sim"
)

func TestTraceModeReplaysTheTraceBySendTime(t *testing.T) {
	// Trace: packets at 0, 10, 20 ms with delays 30 ms, lost, 5 ms; the loop
	// period is 30 ms. A packet sent t after the first takes the fate of the
	// trace's packet with the latest send offset ≤ t mod 30 ms; jitter and
	// loss settings do not apply, and the trace's order is the delivery
	// order (the 5 ms packet overtakes).
	ms := time.Millisecond
	tr, err := NewTrace("t.csv", "sha256:x", []time.Duration{0, 10 * ms, 20 * ms}, []time.Duration{30 * ms, -1, 5 * ms})
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(1, "up", Params{Latency: time.Second, Jitter: time.Second, Loss: 0.5, Trace: tr})
	if err != nil {
		t.Fatal(err)
	}
	start := sim.Time(time.Hour)
	for _, c := range []struct {
		sent      time.Duration
		lost      bool
		delivered time.Duration
	}{
		{0, false, 30 * ms},
		{5 * ms, false, 35 * ms},
		{10 * ms, true, 0},
		{25 * ms, false, 30 * ms},
		{31 * ms, false, 61 * ms}, // looped: 1 ms into the trace
		{52 * ms, false, 57 * ms}, // 22 ms into the trace
	} {
		res := l.Send(start.Add(c.sent), Packet{})
		if got := res.Lost == 1; got != c.lost {
			t.Errorf("sent at +%v: lost %v, want %v", c.sent, got, c.lost)
		}
		if !c.lost && (res.Scheduled != 1 || res.At[0] != start.Add(c.delivered)) {
			t.Errorf("sent at +%v: delivered at +%v, want +%v", c.sent, res.At[0].Sub(start), c.delivered)
		}
	}
	// Back to the model: the parametric stages apply again.
	p := l.Params()
	p.Trace, p.Loss, p.Jitter = nil, 0, 0
	if err := l.SetParams(p, "up"); err != nil {
		t.Fatal(err)
	}
	if res := l.Send(start.Add(time.Second), Packet{}); res.At[0] != start.Add(2*time.Second) {
		t.Errorf("after the trace: delivered at +%v, want the latency", res.At[0].Sub(start))
	}
}

func TestTraceOnceHandsBackToTheModel(t *testing.T) {
	// Played once, a trace of 20 ms (period 20 ms: two packets 10 ms apart)
	// gives its delays to the packets sent in its first 20 ms, and the
	// link's latency to every packet after.
	ms := time.Millisecond
	tr, err := NewTrace("t.csv", "", []time.Duration{0, 10 * ms}, []time.Duration{3 * ms, 4 * ms})
	if err != nil {
		t.Fatal(err)
	}
	l, err := New(1, "up", Params{Latency: 50 * ms, Trace: tr, TraceOnce: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sent, delay time.Duration }{{0, 3 * ms}, {15 * ms, 4 * ms}, {20 * ms, 50 * ms}, {95 * ms, 50 * ms}} {
		if res := l.Send(sim.Time(c.sent), Packet{}); res.At[0] != sim.Time(c.sent+c.delay) {
			t.Errorf("sent at %v: delivered at %v, want %v", c.sent, res.At[0], c.sent+c.delay)
		}
	}
}

func TestNewTraceRefusesBadTraces(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		at, delay []time.Duration
		want      string
	}{
		{nil, nil, "t.csv: a trace needs packets (0 send times, 0 delays)"},
		{[]time.Duration{10 * ms, 5 * ms}, []time.Duration{1, 1}, "t.csv: packet 2: send offset 5ms: want offsets from 0, non-decreasing"},
		{[]time.Duration{0}, []time.Duration{time.Hour}, "t.csv: packet 1: one-way delay 1h0m0s: want at most 10m0s"},
	} {
		if _, err := NewTrace("t.csv", "", c.at, c.delay); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %s", err, c.want)
		}
	}
}
