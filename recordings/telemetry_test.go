package recordings

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// telemetryAt is the i-th telemetry datagram of a test recording: a frame
// every 10 ms, and a tick with every fifth.
func telemetryAt(i int) (sim.Time, telemetry.Datagram) {
	at := sim.Time(i) * sim.Time(10*time.Millisecond)
	if i%5 == 4 {
		return at, telemetry.Datagram{Kind: telemetry.KindTick, Tick: telemetry.Tick{TS: float64(i) / 100, Tick: uint32(i / 5), Applied: uint64(i / 5), Starved: 1, Depth: 2}}
	}
	return at, telemetry.Datagram{Kind: telemetry.KindFrame, Frame: telemetry.Frame{TS: float64(i) / 100, Frame: uint64(i), Input: motion.Input{Throttle: 1, Turn: -0.25},
		Visible: motion.Pose{X: 0.5, Y: float64(i) * 0.02, Rot: 3}, Predicted: motion.Pose{Y: float64(i)*0.02 + 0.2}, TickOffset: -2, SendIntervalS: 0.048, AckTick: uint32(i / 5), PendingInputs: 3}}
}

// A proxy recording carries the telemetry beside the packets, over
// several frames of the file: read back datagram for datagram, at the
// time each arrived, and counted in the end record.
func TestRecordingCarriesTelemetry(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Kind: KindProxy})
	if err != nil {
		t.Fatal(err)
	}
	const n = 2500 // 25 s: three frames of the file
	for i := range n {
		// A packet after every tenth datagram: at a frame's end the
		// telemetry closes the frame that holds packets.
		at, d := telemetryAt(i)
		if err := w.Telemetry(at, &d); err != nil {
			t.Fatalf("%d: %v", i, err)
		}
		if p := packetAt(i / 10); i%10 == 0 && p.At >= at {
			if err := w.Packet(&p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Telemetry(0, &telemetry.Datagram{Kind: telemetry.KindFrame}); err == nil || !strings.Contains(err.Error(), "telemetry goes forward in time") {
		t.Errorf("telemetry back in time: %v", err)
	}
	last, _ := telemetryAt(n - 1)
	if err := w.Close(End{At: last}); err != nil {
		t.Fatal(err)
	}
	r, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if r.Frames() < 3 {
		t.Errorf("%d frames: want the telemetry over several", r.Frames())
	}
	i := 0
	err = r.ScanTelemetry(0, last, func(at sim.Time, d *telemetry.Datagram) error {
		wantAt, want := telemetryAt(i)
		if at != wantAt || *d != want {
			t.Fatalf("datagram %d: %v %+v, want %v %+v", i, at, *d, wantAt, want)
		}
		i++
		return nil
	})
	if err != nil || i != n {
		t.Fatalf("read %d of %d: %v", i, n, err)
	}
	// A window reads only its own, and the packets are still there.
	k := 0
	r.ScanTelemetry(sim.Time(time.Second), sim.Time(2*time.Second), func(sim.Time, *telemetry.Datagram) error { k++; return nil })
	if k != 101 {
		t.Errorf("%d datagrams in [1 s, 2 s], want 101", k)
	}
	if ps := readPackets(t, r, 0, last); len(ps) == 0 {
		t.Error("no packets beside the telemetry")
	}
	if e, err := r.End(); err != nil || e.Telemetry != n {
		t.Errorf("end %+v, %v: want %d telemetry datagrams counted", e, err, n)
	}
}

// The writer refuses a datagram the protocol refuses, with nothing
// written; the reader refuses a record that does not decode as damage.
func TestTelemetryRecordRefusals(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Kind: KindProxy})
	bad := telemetry.Datagram{Kind: telemetry.KindFrame, Frame: telemetry.Frame{SendIntervalS: -1}}
	if err := w.Telemetry(0, &bad); err == nil || !strings.Contains(err.Error(), "send_interval_s") {
		t.Errorf("a bad frame: %v", err)
	}
	if err := w.Telemetry(-1, &telemetry.Datagram{Kind: telemetry.KindFrame}); err == nil {
		t.Error("telemetry before the start taken")
	}
	var d telemetry.Datagram
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{[]byte{1, 2}, "short telemetry record"},
		{append(make([]byte, 8), "{not json"...), "telemetry record: "},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 0x80, '{', '}'}, "time out of range"},
	} {
		if _, err := decodeTelemetry(c.b, &d); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.b, err, c.want)
		}
	}
}

// writeTelemetry is a proxy recording of n telemetry datagrams.
func writeTelemetry(t testing.TB, n int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Kind: KindProxy})
	if err != nil {
		t.Fatal(err)
	}
	var last sim.Time
	for i := range n {
		at, d := telemetryAt(i)
		if err := w.Telemetry(at, &d); err != nil {
			t.Fatal(err)
		}
		last = at
	}
	if err := w.Close(End{At: last}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
