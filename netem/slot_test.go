package netem

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"jitterlab/param"
	"jitterlab/sim"
)

// bursts groups deliveries by arrival time: the sizes of the groups in
// time order and the times.
func bursts(dels []Delivery) (sizes []int, at []sim.Time) {
	for i, d := range dels {
		if i == 0 || d.At != dels[i-1].At {
			sizes, at = append(sizes, 0), append(at, d.At)
		}
		sizes[len(sizes)-1]++
	}
	return sizes, at
}

// With slots of a fixed 10 ms passing 4 packets each and a packet every
// 1 ms, packets leave 4 at a time, exactly 10 ms apart.
func TestSlotBurstsOfPackets(t *testing.T) {
	l := newLink(t, Params{Latency: 20 * ms, Slot: Slot{Min: 10 * ms, Max: 10 * ms, Packets: 4}})
	_, dels := drive(t, l, 4000, ms, 100)
	sizes, at := bursts(dels)
	for i := range sizes {
		if sizes[i] != 4 {
			t.Fatalf("burst %d at %v has %d packets, want 4", i, at[i], sizes[i])
		}
		if i > 0 && at[i].Sub(at[i-1]) != 10*ms {
			t.Fatalf("bursts %d and %d are %v apart, want the 10ms slot", i-1, i, at[i].Sub(at[i-1]))
		}
	}
	// The first slot opens 10 ms after the first packet is ready.
	if at[0] != sim.Time(30*ms) {
		t.Fatalf("first slot at %v, want 30ms", at[0])
	}
	// 4 packets per 10 ms against 10 offered: the backlog reaches MaxBacklog
	// only after the run, so nothing is dropped yet.
	if c := l.Counters(); c.Delivered != 4000 {
		t.Fatalf("%+v", c)
	}
}

// A byte budget passes packets until it is spent; the packet that crosses
// it still leaves (netem decrements bytes_left after sending).
func TestSlotByteBudget(t *testing.T) {
	const size, overhead, budget = 100, 28, 1000
	l := newLink(t, Params{Overhead: overhead, Slot: Slot{Min: 10 * ms, Max: 10 * ms, Bytes: budget}})
	_, dels := drive(t, l, 3000, ms/2, size)
	sizes, _ := bursts(dels)
	want := (budget + size + overhead - 1) / (size + overhead) // ceil: 8
	for i, n := range sizes[:len(sizes)-1] {
		if n != want {
			t.Fatalf("burst %d has %d packets, want %d (%d B budget, %d B packets)", i, n, want, budget, size+overhead)
		}
	}
}

// With no budget, a slot passes every packet ready when it opens, and the
// next slot is drawn when the next packet is ready: a burst is that packet
// plus those arriving within U ~ uniform[min, max). For Poisson arrivals of
// rate λ the mean burst is 1 + λ·(min+max)/2, the variance λ·E[U] + λ²·Var(U).
func TestSlotBurstSizeMatchesFormula(t *testing.T) {
	const lambda = 1.0 // packets per ms
	slot := Slot{Min: 5 * ms, Max: 15 * ms}
	l := newLink(t, Params{Latency: 20 * ms, Slot: slot})
	r := rand.New(rand.NewPCG(9, 9))
	now := sim.Time(0)
	var dels []Delivery
	for i := range 200000 {
		now += sim.Time(r.ExpFloat64() / lambda * float64(ms))
		for {
			at, ok := l.NextDelivery()
			if !ok || at >= now {
				break
			}
			d, _ := l.Deliver(at)
			dels = append(dels, d)
		}
		l.Send(now, Packet{ID: uint64(i), Size: 100})
	}
	sizes, _ := bursts(dels)
	sum := 0
	for _, n := range sizes {
		sum += n
	}
	mean := float64(sum) / float64(len(sizes))
	eu, varU := 10.0, 10.0*10/12 // ms
	want := 1 + lambda*eu
	sd := math.Sqrt((lambda*eu + lambda*lambda*varU) / float64(len(sizes)))
	within(t, "mean slot burst (packets)", mean, want, 5*sd)
}

func TestParseSlot(t *testing.T) {
	for in, want := range map[string]Slot{
		"0":                             {},
		"20ms":                          {Min: 20 * ms, Max: 20 * ms},
		"5ms 15ms packets 8":            {Min: 5 * ms, Max: 15 * ms, Packets: 8},
		"1ms 2ms bytes 3000 packets 64": {Min: ms, Max: 2 * ms, Packets: 64, Bytes: 3000},
	} {
		got, err := ParseSlot("up.slot", in)
		if err != nil || got != want {
			t.Errorf("%q: got %+v, %v; want %+v", in, got, err, want)
		}
		if back, err := ParseSlot("up.slot", got.String()); err != nil || back != got {
			t.Errorf("%q: String %q reads back as %+v, %v", in, got.String(), back, err)
		}
	}
	for _, in := range []string{"", "15ms 5ms", "5ms packets", "5ms packets -1", "5ms frames 3", "11s", "0ms", "5", "5ms 6ms 7ms"} {
		_, err := ParseSlot("up.slot", in)
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Key != "up.slot" || pe.Allowed == "" {
			t.Errorf("%q: error %v, want a param.Error naming up.slot", in, err)
		}
	}
	if err := (Params{Slot: Slot{Min: 2 * ms, Max: ms}}).Validate("down"); err == nil {
		t.Fatal("Validate accepted MAX < MIN")
	}
}

// New slot parameters apply to packets sent after the change; the packets
// already held keep their slot and leave first.
func TestSlotChangeKeepsOrder(t *testing.T) {
	p := Params{Slot: Slot{Min: 100 * ms, Max: 100 * ms}}
	l := newLink(t, p)
	first := l.Send(0, Packet{ID: 1}) // waits for the slot at 100 ms
	p.Slot = Slot{Min: 5 * ms, Max: 5 * ms}
	if err := l.SetParams(p, "up"); err != nil {
		t.Fatal(err)
	}
	second := l.Send(sim.Time(ms), Packet{ID: 2})
	if first.At[0] != sim.Time(100*ms) || second.At[0] != sim.Time(105*ms) {
		t.Fatalf("slots at %v and %v, want 100ms and then a 5 ms slot after it, 105ms", first.At[0], second.At[0])
	}
}
