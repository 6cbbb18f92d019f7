package lab

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testmem"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/trace"
)

// Issue 27 item 1: a trace is refused from its size and its first bytes,
// before it is read: a 2 GB file, a 1 GB file of zeros and a gzip bomb
// each cost a few kilobytes, measured as the RSS of a child process under
// a 2 GB address-space limit.
func TestTraceRefusedBeforeItIsRead(t *testing.T) {
	if !testmem.InChild(t, 2<<30, 48<<20) {
		return
	}
	dir := t.TempDir()
	sparse := func(name string, size int64) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err == nil {
			err = f.Truncate(size)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		return path
	}
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zeros := make([]byte, 1<<20)
	for range 256 {
		zw.Write(zeros)
	}
	zw.Close()
	gz := filepath.Join(dir, "bomb.csv.gz")
	if err := os.WriteFile(gz, bomb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{sparse("big.csv", 2<<30), "a capture of at most 1073741824 bytes"},
		{sparse("zeros.csv", 1<<30-1), "binary data"},
		{gz, "binary data"},
	} {
		cfg := DefaultConfig()
		err := Set(&cfg, "up.trace", c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("up.trace=%s: %v; want an error naming the file and %q", filepath.Base(c.path), err, c.want)
		}
	}
}

// Issue 27 items 1 and 6: a recording whose header or change names a file
// is refused without opening it, unless the user allows it; allowed, what
// the lab says of a file that is no capture does not show its content.
func TestRecordingNamingAFileIsRefusedUnopened(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "not-there.csv")
	h := recordings.Header{Params: [][2]string{{"up.trace", missing}}, EveryNs: int64(50 * time.Millisecond)}
	_, err := ConfigFromHeader(h, Untrusted)
	if err == nil || !strings.Contains(err.Error(), "up.trace names a file") || !strings.Contains(err.Error(), OpenFilesFlag) {
		t.Fatalf("a header naming %s: %v; want it refused before the file is opened, naming %s", missing, err, OpenFilesFlag)
	}
	if _, err := ConfigFromHeader(h, OpenFiles); err == nil || !strings.Contains(err.Error(), "a capture file that exists") {
		t.Fatalf("allowed, the missing file is looked for: %v", err)
	}

	secret := filepath.Join(dir, "passwd")
	if err := os.WriteFile(secret, []byte("root:x:0:0:SECRET-LINE:/root:/bin/sh\nbin:x:1:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.Params[0][1] = secret
	_, err = ConfigFromHeader(h, OpenFiles)
	if err == nil || strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), "root:") || !strings.Contains(err.Error(), secret+":1") {
		t.Fatalf("a header naming a file that is no capture: %v; want the file and line named, its content not shown", err)
	}
	cfg := DefaultConfig()
	if err := Set(&cfg, "up.trace", secret); err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Fatalf("--set naming a file that is no capture: %v; want its content not shown", err)
	}
}

// A recorded change naming a trace: verify refuses it unless allowed, and
// allowed, the recording verifies.
func TestVerifyOpensARecordedTraceOnlyWhenAllowed(t *testing.T) {
	file := filepath.Join(t.TempDir(), "game.csv")
	if err := os.WriteFile(file, []byte("dir,seq,send_ns,recv_ns\nup,1,0,20000000\nup,2,50000000,\nup,3,100000000,130000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Duration = 3 * time.Second
	s, _ := New(cfg, 50*time.Millisecond)
	if err := s.Schedule(sim.Time(time.Second), "up.trace", file); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := recordings.NewWriter(&buf, HeaderOf(cfg, "t", s.Every()))
	if err != nil {
		t.Fatal(err)
	}
	rec := Record(s, w, nil)
	s.OnSample, s.OnChange = rec.Sample, rec.Change
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	if _, err := Verify(openBytes(t, b), Untrusted); err == nil || !strings.Contains(err.Error(), "recorded change at") || !strings.Contains(err.Error(), "up.trace names a file") {
		t.Fatalf("untrusted: %v; want the recorded change refused", err)
	}
	if v, err := Verify(openBytes(t, b), OpenFiles); err != nil || v.Changes != 1 {
		t.Fatalf("allowed: %+v %v", v, err)
	}
}

// FuzzLoadTrace: whatever a trace file holds, up.trace either loads it or
// says why in one line naming the key and the file, never showing a line
// of the file (the marker the fuzzer's bytes carry) and never panicking; a
// trace it loads holds at most one packet per 4 bytes of the file, and
// loads again, pinned to the hash it reports, to the same trace.
func FuzzLoadTrace(f *testing.F) {
	f.Add([]byte("dir,seq,send_ns,recv_ns\nup,1,0,20000000\nup,2,50000000,\ndown,1,5,unknown\n"))
	f.Add([]byte("seq,send_ns,recv_ns\n3,100,lost\n1,0,1000\n"))
	f.Add([]byte(trace.PacketsHeader + "\nup,1,tick,0.000,delivered,0.020,20.000,0,false\n"))
	f.Add([]byte(`{"round_trips":[{"seqno":0,"lost":"false","timestamps":{"client":{"send":{"wall":1},"receive":{"wall":9}},"server":{"receive":{"wall":4},"send":{"wall":5}}}}]}`))
	f.Add([]byte("SECRET,seq\nup,1,0,SECRET\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "fuzz.csv")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		err := Set(&cfg, "up.trace", file)
		if err != nil {
			msg := err.Error()
			if !strings.Contains(msg, "up.trace") || !strings.Contains(msg, file) || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: want one line naming up.trace and the file", msg)
			}
			if bytes.Contains(data, []byte("SECRET")) && strings.Contains(msg, "SECRET") {
				t.Fatalf("error %q shows the file's content", msg)
			}
			return
		}
		tr := cfg.Up.Trace
		if tr == nil || tr.Len() > len(data)/4+1 {
			t.Fatalf("%d bytes loaded as a trace of %v packets", len(data), tr)
		}
		again := DefaultConfig()
		if err := Set(&again, "up.trace", file+"@"+tr.Hash); err != nil || again.Up.Trace.Len() != tr.Len() {
			t.Fatalf("loading it again pinned to %s: %v", tr.Hash, err)
		}
	})
}
