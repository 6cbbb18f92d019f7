package tui

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"jitterlab/internal/golden"
	"jitterlab/internal/testmem"
	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/tui/widget"
)

// latencySpikeRecording records the latency-spike scenario (25 ms, 300 ms
// from 20 s to 22 s) for 30 s.
func latencySpikeRecording(t *testing.T) *recordings.Reader {
	t.Helper()
	cfg, sc := scenarioConfig(t, "latency-spike")
	cfg.Duration = 30 * time.Second
	s, _ := lab.New(cfg, 0)
	s.ScheduleTimeline(sc)
	var buf bytes.Buffer
	w, _ := recordings.NewWriter(&buf, lab.HeaderOf(cfg, "latency-spike", s.Every()))
	rec := lab.Record(s, w, nil)
	s.OnSample, s.OnChange = rec.Sample, rec.Change
	s.Run(sim.Time(cfg.Duration))
	rec.Close()
	r, err := recordings.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReplayViewerSeeksAndShowsParametersAtTheCursor(t *testing.T) {
	v, err := NewReplay(latencySpikeRecording(t), "spike.jlrec", lab.Untrusted)
	if err != nil {
		t.Fatal(err)
	}
	screen := tcell.NewSimulationScreen("UTF-8")
	v.app.SetScreen(screen)
	screen.SetSize(130, 40)
	show := func() string { v.refresh(); v.app.ForceDraw(); return widget.ScreenText(screen) }
	key := func(k tcell.Key) { v.onKey(tcell.NewEventKey(k, 0, 0)) }

	v.onKey(tcell.NewEventKey(tcell.KeyRune, ' ', 0)) // pause
	key(tcell.KeyRight)                               // +10 s
	out := show()
	if !strings.Contains(out, "t 00:00:10.050 / 00:00:30.000") || !strings.Contains(out, "latency       25ms") {
		t.Fatalf("at 10 s:\n%s", out)
	}
	v.seekTo(sim.Time(21 * time.Second))
	out = show()
	if !strings.Contains(out, "latency       300ms        300ms") || !strings.Contains(out, "✓ 00:00:20.000 link.latency=300ms") {
		t.Fatalf("at 21 s the spike's parameters should be in force:\n%s", out)
	}
	key(tcell.KeyHome)
	if v.pos != v.first {
		t.Fatal("home did not seek to the start")
	}
	// Playing at 1× advances the cursor by the wall time.
	v.onKey(tcell.NewEventKey(tcell.KeyRune, ' ', 0))
	v.advance(2 * time.Second)
	if v.pos != v.first+sim.Time(2*time.Second) {
		t.Fatalf("cursor at %v after 2 s of play", v.pos)
	}
	v.seekTo(sim.Time(time.Hour))
	v.advance(time.Second)
	if !v.paused || v.pos != v.end() {
		t.Fatal("playing past the end should stop at the end")
	}
	if err := v.editor.Step(1); err == nil {
		t.Fatal("a recording's parameters were editable")
	}
}

func replayAt(t *testing.T, w, h int) (*Replay, tcell.SimulationScreen) {
	t.Helper()
	v, err := NewReplay(latencySpikeRecording(t), "/some/long/folder/latency-spike-seed1-000030.jlrec", lab.Untrusted)
	if err != nil {
		t.Fatal(err)
	}
	v.Dir = t.TempDir()
	screen := tcell.NewSimulationScreen("UTF-8")
	v.app.SetScreen(screen)
	screen.SetSize(w, h)
	return v, screen
}

// At 80 columns the header keeps the cursor's time, the end and the state.
func TestReplayHeaderFitsAt80(t *testing.T) {
	v, screen := replayAt(t, 80, 24)
	v.onKey(tcell.NewEventKey(tcell.KeyRune, ' ', 0)) // pause
	v.seekTo(sim.Time(10 * time.Second))
	v.refresh()
	v.app.ForceDraw()
	header := strings.Split(widget.ScreenText(screen), "\n")[0]
	for _, want := range []string{"t 00:00:10.000 / 00:00:30.000", "paused", "latency-spike"} {
		if !strings.Contains(header, want) {
			t.Errorf("header %q lacks %q", header, want)
		}
	}
	golden.Check(t, filepath.Join("testdata", "replay-80x24.txt"), []byte(widget.ScreenText(screen)))
}

func TestReplayHelpAndExport(t *testing.T) {
	v, screen := replayAt(t, 80, 24)
	v.onKey(tcell.NewEventKey(tcell.KeyRune, '?', 0))
	v.app.ForceDraw()
	if out := widget.ScreenText(screen); !strings.Contains(out, "seek") || !strings.Contains(out, "export") {
		t.Fatalf("replay help:\n%s", out)
	}
	v.closeHelp()
	v.onKey(tcell.NewEventKey(tcell.KeyRune, 'e', 0))
	files, _ := filepath.Glob(filepath.Join(v.Dir, "*.csv"))
	if len(files) != 1 {
		t.Fatalf("export wrote %v (status %q)", files, v.status)
	}
	if !strings.Contains(v.status, "wrote "+files[0]) {
		t.Fatalf("the status line does not name the export %s: %q", files[0], v.status)
	}
	data, _ := os.ReadFile(files[0])
	if n := strings.Count(string(data), "\n") - 1; n != v.count {
		t.Fatalf("export holds %d rows of %d samples", n, v.count)
	}
}

// A paused replay is idle (its clock takes no ticks); playing, it is not.
func TestPausedReplayIsIdle(t *testing.T) {
	v, _ := replayAt(t, 80, 24)
	if v.clock.Idle() {
		t.Fatal("a playing replay is idle")
	}
	v.onKey(tcell.NewEventKey(tcell.KeyRune, ' ', 0))
	if !v.clock.Idle() {
		t.Fatal("a paused replay still takes ticks")
	}
}

// Issue 27 item 12: the viewer of a 6-hour recording (432,000 samples)
// reads the charts' window as the cursor moves instead of keeping every
// sample: its peak RSS stays under 96 MB while it seeks and exports (it
// was 416 MB on a 24-hour one).
func TestReplayOfALongRecordingInBoundedMemory(t *testing.T) {
	if !testmem.InChild(t, 2<<30, 96<<20) {
		return
	}
	path := filepath.Join(t.TempDir(), "long.jlrec")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := recordings.NewWriter(f, lab.HeaderOf(lab.DefaultConfig(), "long", 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	const n = 6 * 3600 * 20
	for i := 1; i <= n; i++ {
		x := metrics.Sample{TS: float64(i) * 0.05, RTTMs: float64(40 + i%17), TickOffset: i % 5}
		if err := w.Sample(&x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recordings.End{At: sim.Time(n) * sim.Time(50*time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, rf, err := recordings.OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	v, err := NewReplay(r, path, lab.Untrusted)
	if err != nil {
		t.Fatal(err)
	}
	v.Dir = t.TempDir()
	screen := tcell.NewSimulationScreen("UTF-8")
	v.app.SetScreen(screen)
	screen.SetSize(120, 40)
	for _, at := range []time.Duration{time.Hour, 3 * time.Hour, 5*time.Hour + 59*time.Minute} {
		v.seekTo(sim.Time(at))
		v.refresh()
		shown, err := v.upTo(v.pos, 600, 50*time.Millisecond)
		if err != nil || len(shown) != 600 || sampleTime(&shown[len(shown)-1]) != v.pos {
			t.Fatalf("at %v: %d samples shown ending at %v, %v", at, len(shown), v.pos, err)
		}
	}
	v.export()
	if !strings.Contains(v.status, "(432000 samples)") {
		t.Fatalf("export: %q", v.status)
	}
}

// The replay viewer whose terminal went away returns io.EOF (the command
// then exits as a hangup), not the read's error.
func TestReplayViewerWhoseTerminalWentAwayReturnsEOF(t *testing.T) {
	for _, gone := range []error{io.EOF, &os.PathError{Op: "read", Path: "/dev/tty", Err: syscall.EIO}} {
		v, err := NewReplay(latencySpikeRecording(t), "spike.jlrec", lab.Untrusted)
		if err != nil {
			t.Fatal(err)
		}
		screen := tcell.NewSimulationScreen("UTF-8")
		v.app.SetScreen(screen) // initialises it: Run(nil) then runs on it
		if err := screen.PostEvent(tcell.NewEventError(gone)); err != nil {
			t.Fatal(err)
		}
		done := make(chan error)
		go func() { done <- v.Run(nil) }()
		if err := <-done; err != io.EOF {
			t.Fatalf("%v: Run returned %v, want io.EOF", gone, err)
		}
	}
}
