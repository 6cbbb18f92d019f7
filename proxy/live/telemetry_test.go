package live

import (
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/check"
	"jitterlab/internal/testtool"
	"jitterlab/lab"
	"jitterlab/motion"
	"jitterlab/telemetry"
)

// The proxy's screen gets the telemetry's frames (issue 25.2): each
// snapshot hands over those decoded since the previous one, once, with
// the visible error of each, and the counts so far.
func TestProxyScreenSourceHandsTheGameFramesOver(t *testing.T) {
	log := newChangeLog(16, System)
	cfg := lab.DefaultConfig()
	tel, err := startTelemetry("127.0.0.1:0", log, &cfg, nil)
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

// The closing account carries the game's report card, computed as the
// frames come by the lab's own rules: the same card lab.TelemetryCard
// gives of the same frames, and every datagram also goes to the
// recording's hook (issue 25.2). The frames go straight to the
// listener's hook, as its goroutine hands them over: no socket, so none
// is lost.
func TestTheAccountCarriesTheGamesReportCard(t *testing.T) {
	cfg := lab.DefaultConfig()
	var frames []telemetry.Frame
	x := 0.0
	for i := range 600 { // 10 s at 60 frames/s, a tick sent every third frame, the tank at 1.8 m/s of 2
		x += 1.8 / 60
		frames = append(frames, telemetry.Frame{TS: float64(i) / 60, Frame: uint64(i), AckTick: uint32(i / 3), PendingInputs: 1,
			Input: motion.Input{Throttle: 1}, Visible: motion.Pose{Y: x}, Predicted: motion.Pose{Y: x + 0.1}, SendIntervalS: 0.05}) // forward is +Y at heading 0
	}
	recorded := 0
	tel, err := startTelemetry("127.0.0.1:0", newChangeLog(16, System), &cfg, func(time.Time, *telemetry.Datagram) { recorded++ })
	if err != nil {
		t.Fatal(err)
	}
	for i := range frames {
		tel.l.OnDatagram(time.Now(), &telemetry.Datagram{Kind: telemetry.KindFrame, Frame: frames[i]})
	}
	tel.l.OnDatagram(time.Now(), &telemetry.Datagram{Kind: telemetry.KindTick})
	tel.stop()
	if recorded != len(frames)+1 {
		t.Errorf("the recording's hook got %d datagrams of %d", recorded, len(frames)+1)
	}
	var out, want strings.Builder
	tel.writeAccount(&out)
	card := lab.TelemetryCard(&cfg, frames)
	card.WriteText(&want)
	if !strings.Contains(out.String(), "the game's report card from ") || !strings.HasSuffix(out.String(), want.String()) {
		t.Errorf("the account:\n%s\nwant it to end with the card of the same frames:\n%s", out.String(), want.String())
	}
	if got, n := tel.card(); n == 0 || n >= uint64(len(frames)) || !(got.ProgressDeficitMPS > 0.19 && got.ProgressDeficitMPS < 0.21) {
		t.Errorf("the card counts %d frames of %d (want those after the warm-up), deficit %v m/s (want 2 − 1.8)", n, len(frames), got.ProgressDeficitMPS)
	}
	// --check judges the same card at the end of the run: the deficit
	// 0.2 m/s past max 0.1 fails, within max 0.25 passes.
	gate := filepath.Join(t.TempDir(), "gate.toml")
	os.WriteFile(gate, []byte("[[assert]]\nmetric = \"progress_deficit_mps\"\nmax = 0.1\n\n[[assert]]\nmetric = \"progress_deficit_mps\"\nmax = 0.25\n"), 0o644)
	g, err := check.LoadGame(gate)
	if err != nil {
		t.Fatal(err)
	}
	res := Result{tel: tel, Wall: 10 * time.Second}
	rep := res.Check(g, false, "test")
	if rep == nil || len(rep.Results) != 2 || rep.Results[0].Status != check.Fail || rep.Results[1].Status != check.Pass {
		t.Fatalf("the check on the run's card: %+v; want fail then pass", rep)
	}
	if _, n := tel.card(); g.Game.Frames != n || g.Game.Wall != 10*time.Second {
		t.Errorf("the gate judged %+v; want the card's %d frames over 10s", g.Game, n)
	}
	if (&Result{}).Check(g, false, "test") != nil {
		t.Error("a run without telemetry: a report")
	}
}

// The screen's snapshot carries the game's report card (issue 25.2): the
// card lab.TelemetryCard gives of the same frames, figure by figure, and
// how many frames it counts; before any frame, none and every figure NaN.
func TestTheScreenGetsTheGamesReportCard(t *testing.T) {
	cfg := lab.DefaultConfig()
	tel, err := startTelemetry("127.0.0.1:0", newChangeLog(16, System), &cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tel.stop()
	src := &Source{tel: tel, start: time.Now()}
	if g := src.game(); g.CardFrames != 0 || !math.IsNaN(g.Card.JudderMPS) {
		t.Fatalf("no frame yet: the card counts %d frames, judder %v", g.CardFrames, g.Card.JudderMPS)
	}
	var frames []telemetry.Frame
	x := 0.0
	for i := range 600 { // 10 s at 60 frames/s, the tank at 1.5 m/s of 2, a tick sent every other frame
		x += 1.5 / 60
		frames = append(frames, telemetry.Frame{TS: float64(i) / 60, Frame: uint64(i), AckTick: uint32(i / 2), PendingInputs: 1,
			Input: motion.Input{Throttle: 1}, Visible: motion.Pose{Y: x}, Predicted: motion.Pose{Y: x + 0.2}})
		tel.l.OnDatagram(time.Now(), &telemetry.Datagram{Kind: telemetry.KindFrame, Frame: frames[i]})
	}
	g := src.game()
	want := lab.TelemetryCard(&cfg, frames)
	for _, m := range lab.CardMetrics {
		if a, b := m.Get(&g.Card), m.Get(&want); a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
			t.Errorf("%s: %v on the screen, %v by lab.TelemetryCard", m.Name, a, b)
		}
	}
	if _, n := tel.card(); g.CardFrames != n || n == 0 {
		t.Errorf("the screen's card counts %d frames, the meter %d", g.CardFrames, n)
	}
}

// The telemetry listens only once the recording is open: it reads on its
// own goroutine from the moment it binds, and a datagram it decoded
// before the recording started was missing from it (a game test's replay
// counted 149 frames of the 150 the proxy decoded).
func TestTelemetryListensAfterTheRecordingOpens(t *testing.T) {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	port := c.LocalAddr().(*net.UDPAddr).Port
	c.Close()
	o := testOptions(t, System, io.Discard, io.Discard)
	o.Telemetry = fmt.Sprintf("127.0.0.1:%d", port)
	o.Record = filepath.Join(t.TempDir(), "relay.jlrec")
	var boundAtOpen, known bool
	o.Open = func(_, path string) (File, error) {
		boundAtOpen, known = testtool.UDPBound(port)
		f, err := os.Create(path)
		return testFile{f}, err
	}
	run := startCounterRun(t, o)
	run.stop()
	if !known {
		t.Skip("no /proc/net/udp here: cannot tell when the telemetry bound")
	}
	if boundAtOpen {
		t.Errorf("the telemetry port %d was listening when the recording opened: what it decoded until then is not recorded", port)
	}
}
