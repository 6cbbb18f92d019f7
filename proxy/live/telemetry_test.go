package live

import (
	"math"
	"net"
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/telemetry"
)

// The proxy's screen gets the telemetry's frames (issue 25.2): each
// snapshot hands over those decoded since the previous one, once, with
// the visible error of each, and the counts so far.
func TestProxyScreenSourceHandsTheGameFramesOver(t *testing.T) {
	log := newChangeLog(16, System)
	tel, err := startTelemetry("127.0.0.1:0", log)
	if err != nil {
		t.Fatal(err)
	}
	defer tel.stop()
	src := &Source{tel: tel, start: time.Now()}
	if g := src.game(); g == nil || g.Frames != 0 || len(g.Points) != 0 {
		t.Fatalf("no frame sent yet: %+v", g)
	}
	conn, err := net.DialUDP("udp", nil, tel.l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i := range 3 {
		b, err := telemetry.AppendFrame(nil, &telemetry.Frame{TS: float64(i), Frame: uint64(i), TickOffset: int64(i) - 1, SendIntervalS: 0.05,
			Visible: motion.Pose{X: 1, Y: 2}, Predicted: motion.Pose{X: 4, Y: 2 + 4*float64(i)}})
		if err != nil {
			t.Fatal(err)
		}
		conn.Write(b)
	}
	conn.Write([]byte("{not json"))
	for deadline := time.Now().Add(5 * time.Second); tel.l.Counts().Total() < 4 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond) // loopback: delivered at once, read by the listener's goroutine
	}
	g := src.game()
	if g == nil || g.Frames != 3 || g.Refused != 1 || len(g.Points) != 3 {
		t.Fatalf("after 3 frames and a bad datagram: %+v", g)
	}
	for i, p := range g.Points { // |(1,2) − (4, 2+4i)| = 3, 5, √73
		want := math.Sqrt(9 + 16*float64(i*i))
		if p.TickOffset != int64(i)-1 || p.SendIntervalS != 0.05 || p.VisibleErrorM != want || p.At < 0 {
			t.Errorf("point %d: %+v, want offset %d, interval 0.05, visible error %v", i, p, i-1, want)
		}
	}
	if g := src.game(); g.Frames != 3 || len(g.Points) != 0 {
		t.Fatalf("the same frames handed over again: %+v", g)
	}
	if (&Source{}).game() != nil {
		t.Fatal("no telemetry: a Game")
	}
}
