package telemetry

import (
	"testing"
	"time"
)

// coreShare reports what decoding 10,000 datagrams a second costs, as a
// percentage of one core (the goal: under 5 %).
func coreShare(b *testing.B) {
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp*10_000/1e9*100, "%core@10k/s")
}

func BenchmarkDecodeFrame(b *testing.B) {
	in := []byte(frameJSON)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	var d Datagram
	for b.Loop() {
		if err := Decode(in, &d); err != nil {
			b.Fatal(err)
		}
	}
	coreShare(b)
}

// The whole receiver's work per datagram: the rate check, the decoding and
// the ring, on a full-precision frame as the C# probe writes it.
func BenchmarkCollectFrame(b *testing.B) {
	f := Frame{TS: 1234.5678901234567, Frame: 177777, Visible: frameWant.Visible, Predicted: frameWant.Predicted, AckTick: 88888, PendingInputs: 7, TickOffset: 3, SendIntervalS: 1.0 / 60}
	f.Visible.X, f.Predicted.Y = 0.1+0.2, -12.345678901234567
	in, err := AppendFrame(nil, &f)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	c := NewCollector(Options{Rate: 1e12, Burst: 1 << 30})
	at := t0
	for b.Loop() {
		at = at.Add(time.Microsecond)
		if e := c.Collect(at, in); e != nil {
			b.Fatal(e)
		}
	}
	coreShare(b)
}

func BenchmarkDecodeRefused(b *testing.B) {
	in := []byte(badOfEachClass[ClassRange])
	b.ReportAllocs()
	var d Datagram
	for b.Loop() {
		Decode(in, &d)
	}
	coreShare(b)
}
