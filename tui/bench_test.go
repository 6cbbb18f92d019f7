package tui

import (
	"testing"
	"time"
)

// BenchmarkFrame is one frame of the live lab at 1× on a 200×50 screen:
// 1/30 s of simulation, the views refreshed and the whole screen drawn.
func BenchmarkFrame(b *testing.B) {
	a, _ := labAt(b, 200, 50)
	for range 30 * 30 {
		a.advance(time.Second / 30)
	}
	b.ReportAllocs()
	for b.Loop() {
		a.advance(time.Second / 30)
		a.app.ForceDraw()
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)*30/float64(time.Second)*100, "%core@30fps")
}
