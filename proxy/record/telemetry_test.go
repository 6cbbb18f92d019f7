package record

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/motion"
	"jitterlab/proxy"
	"jitterlab/recordings"
	"jitterlab/telemetry"
)

// A capture records the telemetry the proxy decodes through its Switch;
// replay prints its counts and the report card of its frames, and export
// writes it as CSV, one datagram a row (issue 25.2).
func TestRecordingCarriesTheGamesTelemetry(t *testing.T) {
	sw, origin := recordingSwitch(t)
	// 3 s at 50 fps at the commanded 2 m/s, logged in at once, and a tick
	// every 50 ms: a card with no deficit and a lag of 0.2 m.
	const frames = 150
	for i := range frames {
		at := origin.Add(time.Duration(i) * 20 * time.Millisecond)
		y := 2 * float64(i) / 50
		sw.Telemetry(at, &telemetry.Datagram{Kind: telemetry.KindFrame, Frame: telemetry.Frame{TS: float64(i) / 50, Frame: uint64(i),
			Input: motion.Input{Throttle: 1}, Visible: motion.Pose{Y: y}, Predicted: motion.Pose{Y: y + 0.2}, SendIntervalS: 0.05, AckTick: uint32(i), PendingInputs: 1}})
		if i%5 == 4 {
			sw.Telemetry(at, &telemetry.Datagram{Kind: telemetry.KindTick, Tick: telemetry.Tick{TS: float64(i) / 50, Tick: uint32(i / 5), Applied: uint64(i / 5), Starved: 1}})
		}
	}
	r := sw.stop(t, 3*time.Second)
	cfg := lab.DefaultConfig()
	a, err := ReadTelemetry(r, &cfg)
	if err != nil || a.Frames != frames || a.Ticks != frames/5 {
		t.Fatalf("%+v, %v: want %d frames, %d ticks", a, err, frames, frames/5)
	}
	if math.Abs(a.Card.ProgressDeficitMPS) > 1e-9 || math.Abs(a.Card.VisibleLagM.P50-0.2) > 1e-4 {
		t.Errorf("card: deficit %v, lag %v m: want 0 and 0.2", a.Card.ProgressDeficitMPS, a.Card.VisibleLagM.P50)
	}
	var out strings.Builder
	if err := WriteReplay(&out, r, "r.jlrec", ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\ntelemetry  150 frames and 30 server ticks (lab proxy --telemetry)\n",
		"\nserver     at tick 29: 29 steps applied an input, 0 inputs overwritten, 1 steps starved; depth 0\n", "report card\n",
		"  corrections  ", "no data", "p50 100.0 ms, p99 100.0 ms (p50 0.200 m"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("replay lacks %q:\n%s", want, out.String())
		}
	}
	var csvOut strings.Builder
	if err := WriteTelemetryCSV(&csvOut, r, 0, 1<<62); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(csvOut.String())).ReadAll()
	if err != nil || len(rows) != 1+frames+frames/5 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	if got := strings.Join(rows[1], ","); got != "0.000000000,frame,0,0,1,0,0,0,0,0,0.2,0,0,0.05,0,1,,,,," {
		t.Errorf("first row %s", got)
	}
	if got := strings.Join(rows[6], ","); got != "0.080000000,tick,0.08,,,,,,,,,,,,,,0,0,0,1,0" {
		t.Errorf("first tick row %s", got)
	}
}

// testSwitch is a Switch recording into memory from its origin.
type testSwitch struct {
	*Switch
	buf *bytes.Buffer
}

// recordingSwitch starts a proxy recording in memory; its origin is the
// relay's start.
func recordingSwitch(t *testing.T) (testSwitch, time.Time) {
	t.Helper()
	sw := testSwitch{Switch: &Switch{}, buf: &bytes.Buffer{}}
	rw, err := recordings.NewWriter(sw.buf, recordings.Header{Kind: recordings.KindProxy})
	if err != nil {
		t.Fatal(err)
	}
	origin := time.Unix(100, 0)
	sw.Started(origin)
	if err := sw.Start(New(Options{Recording: rw})); err != nil {
		t.Fatal(err)
	}
	return sw, origin
}

// stop closes the recording at wall and opens it to read.
func (sw testSwitch) stop(t *testing.T, wall time.Duration) *recordings.Reader {
	t.Helper()
	if _, err := sw.Stop(wall, proxy.Stats{}); err != nil {
		t.Fatal(err)
	}
	r, err := recordings.Open(bytes.NewReader(sw.buf.Bytes()), int64(sw.buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
