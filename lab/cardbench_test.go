package lab

import "testing"

// BenchmarkCardMeterFrame is the report card's cost per frame: 60 fps at
// full throttle with a small wobble, a reconciliation every third frame.
func BenchmarkCardMeterFrame(b *testing.B) {
	m := NewCardMeter(DefaultCardThresholds)
	var f CardFrame
	y := 0.0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		dy := 2.0/60 + 0.001*float64(i%3)
		f = CardFrame{Dt: 1.0 / 60, PrevY: y, Y: y + dy, Throttle: 1, MoveSpeed: 2, PredSpeed: 2, VisibleErrM: 0.2 + 0.01*float64(i%5),
			CorrectionM: 0.05, Reconciled: i % 3 / 2}
		y += dy
		m.Frame(&f)
		if i%3 == 0 {
			m.ServerInputDelay(80 + float64(i%7))
		}
	}
}
