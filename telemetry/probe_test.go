package telemetry

import (
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"jitterlab/internal/testtool"
	"jitterlab/motion"
)

// probeFrame and probeTick are what testdata/ProbeCheck.cs sends for i,
// computed as it computes them.
func probeFrame(i int64) Frame {
	x := float64(i)
	return Frame{TS: x / 144, Frame: 1_000_000_000_000 + uint64(i),
		Input:   motion.Input{Throttle: float64(i%21-10) / 10, Turn: float64(i%7-3) / 3},
		Visible: motion.Pose{X: x * 0.1, Y: x / -3, Rot: x * 2.5}, Predicted: motion.Pose{X: x / 7, Y: x * -0.3, Rot: 1e6 / float64(i+1)},
		TickOffset: i%11 - 5, SendIntervalS: 1 / float64(30+i%100), AckTick: math.MaxUint32 - uint32(i), PendingInputs: i % 13}
}

func probeTick(i int64) Tick {
	return Tick{TS: float64(i) / 128, Tick: uint32(i / 4), Applied: uint64(i * 3), Overwritten: uint64(i / 5), Starved: uint64(i % 17), Depth: i % 9}
}

// The C# probe (sdk/csharp/JitterlabProbe.cs), compiled with Mono's mcs
// and run with mono: every frame and tick it sends decodes, every field to
// the bit the C# program set, and its NaN is refused naming the field.
func TestCSharpProbe(t *testing.T) {
	mcs := testtool.Need(t, "mcs", "mono-mcs")
	mono := testtool.Need(t, "mono", "mono-runtime")
	exe := filepath.Join(t.TempDir(), "probecheck.exe")
	if out, err := exec.Command(mcs, "-nologo", "-warn:4", "-warnaserror+", "-out:"+exe,
		filepath.Join("..", "sdk", "csharp", "JitterlabProbe.cs"), filepath.Join("testdata", "ProbeCheck.cs")).CombinedOutput(); err != nil {
		t.Fatalf("mcs: %v\n%s", err, out)
	}
	const n = 200 // and 50 ticks and a NaN: 251 datagrams, within a socket buffer of Linux's default cap
	l, reports, stop := listenLoopback(t, Options{})
	defer stop()
	out, err := exec.Command(mono, exe, "127.0.0.1", strconv.Itoa(l.Addr().Port), strconv.Itoa(n)).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "sent 251 failed 0" {
		t.Fatalf("mono: %v\n%s", err, out)
	}
	got := waitCounted(t, l, n+n/4+1)
	if got.Frames != n || got.Ticks != n/4 || got.Refused[ClassNotFinite] != 1 || got.RefusedTotal() != 1 {
		t.Fatalf("%s", got.Summary())
	}
	for _, f := range l.Frames(nil) {
		i := int64(f.D.Frame - 1_000_000_000_000)
		want := probeFrame(i)
		a, b := Datagram{Kind: KindFrame, Frame: f.D}, Datagram{Kind: KindFrame, Frame: want}
		if !sameBits(&a, &b) {
			t.Errorf("frame %d:\n got %+v\nwant %+v", i, f.D, want)
		}
	}
	for _, k := range l.Ticks(nil) {
		want := probeTick(int64(k.D.Tick) * 4)
		a, b := Datagram{Kind: KindTick, Tick: k.D}, Datagram{Kind: KindTick, Tick: want}
		if !sameBits(&a, &b) {
			t.Errorf("tick %d:\n got %+v\nwant %+v", k.D.Tick, k.D, want)
		}
	}
	if rep := reports(); rep[ClassNotFinite] != 1 {
		t.Errorf("reports %v", rep)
	}
}
