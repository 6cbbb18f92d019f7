package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/recordings"
	"jitterlab/sim"
)

// proxyRecording writes a proxy recording of d: one client's datagrams,
// one each way every 100 ms, each held 20 ms, and a change of the link.
func proxyRecording(t *testing.T, path string, d time.Duration) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := recordings.NewWriter(f, recordings.Header{Kind: recordings.KindProxy, Scenario: "relay", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for at := 100 * time.Millisecond; at <= d; at += 100 * time.Millisecond {
		if at == time.Second {
			if err := w.Change(recordings.Change{At: sim.Time(at), Key: "up.latency", Value: "20ms"}); err != nil {
				t.Fatal(err)
			}
		}
		for dir := range uint8(2) {
			p := recordings.Packet{At: sim.Time(at), In: sim.Time(at - 20*time.Millisecond), Out: sim.Time(at),
				Scheduled: 20 * time.Millisecond, Dir: dir, Fate: recordings.PacketDelivered, Flow: 1, Size: 40}
			if err := w.Packet(&p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(recordings.End{At: sim.Time(d)}); err != nil {
		t.Fatal(err)
	}
}

// Issue 27 item 11 and the LOW item on export's status, for a recording
// cut short: every reader of a recording cut inside a frame (a partial
// copy) or after a whole frame (no end record: the recorder killed) says
// on stderr where its data ends and that data was lost, writes what was
// readable and ends with exit status 5, not 0; verify fails with 5 too.
// Session and proxy recordings alike; lab fit of a proxy recording fits
// what it holds, with status 5.
func TestCutRecordingEndsWithStatus5(t *testing.T) {
	dir := t.TempDir()
	session := filepath.Join(dir, "session.jlrec")
	if code, _, errOut := runLab(t, "run", "--duration", "30s", "--record", session); code != 0 {
		t.Fatal(errOut)
	}
	proxy := filepath.Join(dir, "proxy.jlrec")
	proxyRecording(t, proxy, 30*time.Second)
	out := func(name string) string { return filepath.Join(dir, name) }
	readers := map[string][][]string{
		session: {
			{"replay"},
			{"replay", "--from", "1s", "--to", "5s"},
			{"replay", "--verify"},
			{"export", "--csv", out("s.csv")},
			{"export", "--changes", out("s-changes.csv")},
			{"plot", "--out", out("s.png")},
		},
		proxy: {
			{"replay"},
			{"replay", "--from", "1s", "--to", "5s"},
			{"export", "--packets", out("p.csv")},
			{"export", "--changes", out("p-changes.csv")},
			{"plot", "--out", out("p.png")},
			{"fit"},
		},
	}
	for whole, cmds := range readers {
		b, err := os.ReadFile(whole)
		if err != nil {
			t.Fatal(err)
		}
		spans := frameSpans(b)
		if len(spans) < 4 {
			t.Fatalf("%s: %d frames; want a header and three of data", whole, len(spans))
		}
		last := spans[len(spans)-1]
		for _, cut := range []struct {
			name string
			size int
			want string
		}{
			{"inside its last frame", last[0] + (last[1]-last[0])/2, "truncated at byte"},
			{"after a whole frame", last[0], "not closed"},
		} {
			path := strings.TrimSuffix(whole, ".jlrec") + "-cut.jlrec"
			if err := os.WriteFile(path, b[:cut.size], 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range cmds {
				args = append([]string{args[0], path}, args[1:]...)
				code, _, stderr := runLab(t, args...)
				if code != exitDataLost || !strings.Contains(stderr, "warning: "+path+": "+cut.want) ||
					!strings.Contains(stderr, "data ends at ") || !strings.Contains(stderr, "data lost in 1 place") {
					t.Errorf("lab %s, cut %s: exit %d, stderr %q; want exit 5, a warning %q, 'data lost in 1 place'",
						strings.Join(args, " "), cut.name, code, stderr, cut.want)
				}
				if args[len(args)-1] == "--verify" && !strings.Contains(stderr, "verify FAILED") {
					t.Errorf("lab %s, cut %s: %q; want verify FAILED", strings.Join(args, " "), cut.name, stderr)
				}
			}
		}
		for _, args := range cmds { // the whole recording: nothing lost
			args = append([]string{args[0], whole}, args[1:]...)
			if code, _, stderr := runLab(t, args...); code != 0 {
				t.Errorf("lab %s on the whole recording: exit %d, %s", strings.Join(args, " "), code, stderr)
			}
		}
	}
}
