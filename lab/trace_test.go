package lab

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/recordings"
	"jitterlab/sim"
)

func TestTraceKeyPinsTheFilesBytes(t *testing.T) {
	// up.trace = FILE reads the capture; the value given back (what a
	// recording stores) names its SHA-256, and set again it refuses the
	// file once its bytes change.
	file := filepath.Join(t.TempDir(), "game.csv")
	capture := "dir,seq,send_ns,recv_ns\nup,1,0,20000000\nup,2,50000000,\nup,3,100000000,130000000\n"
	if err := os.WriteFile(file, []byte(capture), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	if err := Set(&cfg, "up.trace", file); err != nil {
		t.Fatal(err)
	}
	p, _ := Lookup("up.trace")
	got := p.Get(&cfg)
	if !strings.HasPrefix(got, file+"@sha256:") || cfg.Up.Trace.Len() != 3 {
		t.Fatalf("up.trace reads back %q with %d packets", got, cfg.Up.Trace.Len())
	}
	// A recording's header carries it, and a configuration rebuilt from
	// the header has the same trace.
	h := HeaderOf(cfg, "t", 50*time.Millisecond)
	back, err := ConfigFromHeader(h, OpenFiles)
	if err != nil || back.Up.Trace == nil || back.Up.Trace.Hash != cfg.Up.Trace.Hash {
		t.Fatalf("from the header: %v", err)
	}
	// Without a trace (or with a looping one) the header has no trace key
	// (older recordings' bytes); played once, it says so.
	for _, kv := range HeaderOf(DefaultConfig(), "t", 50*time.Millisecond).Params {
		if strings.Contains(kv[0], ".trace") {
			t.Errorf("header of a run without a trace has %s = %s", kv[0], kv[1])
		}
	}
	once := cfg
	if err := Set(&once, "up.trace_loop", "false"); err != nil || !once.Up.TraceOnce {
		t.Fatalf("up.trace_loop=false: %v", err)
	}
	if back, err := ConfigFromHeader(HeaderOf(once, "t", 50*time.Millisecond), OpenFiles); err != nil || !back.Up.TraceOnce {
		t.Errorf("trace_loop=false does not survive the header: %v", err)
	}
	if err := os.WriteFile(file, []byte(capture+"up,4,150000000,170000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Set(&cfg, "up.trace", got); err == nil || !strings.Contains(err.Error(), "has changed since") {
		t.Errorf("a changed trace file is accepted for %s: %v", got, err)
	}
	for _, c := range []struct{ v, want string }{
		{filepath.Join(t.TempDir(), "missing.csv"), "a capture file that exists"},
		{"none", ""},
	} {
		err := Set(&cfg, "down.trace", c.v)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("down.trace=%s: %v, want %q", c.v, err, c.want)
		}
	}
}

// A proxy recording of two clients as up.trace: the error names the
// clients and the way to replay one (lab fit's --csv), not a --flow flag
// that lab run does not have.
func TestTraceOfARecordingOfSeveralClientsSaysHowToPickOne(t *testing.T) {
	file := filepath.Join(t.TempDir(), "two.jlrec")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	w, err := recordings.NewWriter(f, recordings.Header{Kind: recordings.KindProxy, Scenario: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var end sim.Time
	for i := range 10 {
		in := sim.Time(int64(i) * 20e6)
		end = in + 30e6
		p := recordings.Packet{At: end, In: in, Out: end, Scheduled: 30e6, Flow: uint64(1 + i%2), Fate: recordings.PacketDelivered, Size: 20}
		if err := w.Packet(&p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recordings.End{At: end}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cfg := DefaultConfig()
	err = Set(&cfg, "up.trace", file)
	want := "the relay recorded 2 clients: flow 1 (5 packets), flow 2 (5 packets); trace mode replays one: write its packets with `lab fit " + file + " --flow N --csv FILE.csv` and replay FILE.csv"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// Issue 27.11 in trace mode: a proxy recording cut short (inside a frame,
// or after one with no end record) is refused, naming the cut and how to
// replay what it holds, instead of replaying part of the relay's session
// in silence. The whole recording loads.
func TestTraceOfARecordingCutShortIsRefused(t *testing.T) {
	var buf bytes.Buffer
	w, err := recordings.NewWriter(&buf, recordings.Header{Kind: recordings.KindProxy, Scenario: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var end sim.Time
	for i := range 1500 { // 30 s at 50 packets a second: frames of 10 s
		in := sim.Time(int64(i) * 20e6)
		end = in + 30e6
		p := recordings.Packet{At: end, In: in, Out: end, Scheduled: 30e6, Flow: 1, Fate: recordings.PacketDelivered, Size: 20}
		if err := w.Packet(&p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recordings.End{At: end}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	spans, _ := frames(b)
	if len(spans) < 4 {
		t.Fatalf("%d frames", len(spans))
	}
	last := spans[len(spans)-1]
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"whole", b, ""},
		{"cut inside its last frame", b[:last[0]+(last[1]-last[0])/2], "cut short at byte"},
		{"cut after a whole frame", b[:last[0]], "not closed"},
	} {
		file := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".jlrec")
		if err := os.WriteFile(file, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		err := Set(&cfg, "up.trace", file)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "lab fit "+file+" --csv")):
			t.Errorf("%s: %v; want a refusal with %q and lab fit's --csv", c.name, err, c.want)
		}
	}
}
