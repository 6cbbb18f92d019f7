package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/testmem"
)

// labLimited runs 'lab args…' as a child process limited to 2 GB of
// address space (ulimit -v), with stdin from the file stdin ("" for
// none), and returns its exit status, its stderr and its peak resident set
// (RSS) in bytes: memory measured as the machine gave it, not the heap.
func labLimited(t *testing.T, stdin string, args ...string) (code int, stderr string, rss uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `ulimit -v 2097152 && exec "$0" "$@"`, os.Args[0]}, args...)...)
	peak := filepath.Join(t.TempDir(), "peak-rss")
	cmd.Env = append(os.Environ(), "JITTERLAB_LAB_MAIN=1", testmem.PeakRSSEnv(peak))
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), errb.String(), testmem.ReadPeakRSS(t, peak)
}

// Issue 27 item 14: lab fit - on /dev/zero is refused from its first bytes,
// not after reading a gigabyte of them.
func TestFitStdinOfZerosRefusedFromItsFirstBytes(t *testing.T) {
	code, stderr, rss := labLimited(t, "/dev/zero", "fit", "-")
	if code != 1 || !strings.Contains(stderr, "-: binary data") {
		t.Fatalf("lab fit - < /dev/zero: exit %d, %q; want exit 1 and binary data refused", code, stderr)
	}
	t.Logf("peak RSS %.1f MB: %s", float64(rss)/(1<<20), stderr)
	if rss > 64<<20 {
		t.Fatalf("refusing /dev/zero took %d MB of RSS; want at most 64 MB", rss>>20)
	}
}

// Issue 27 item 1: a recording whose header names a 2 GB trace. Without
// --open-files replay --verify, replay --tui and plot refuse it without
// opening the file; with it, the file is refused from its size, in a few
// megabytes.
func TestRecordingNamingAHugeTrace(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(trace, []byte("dir,seq,send_ns,recv_ns\nup,1,0,20000000\nup,2,50000000,70000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(dir, "r.jlrec")
	if code, _, errOut := runLab(t, "run", "--set", "up.trace="+trace, "--duration", "2s", "--record", rec); code != 0 {
		t.Fatal(errOut)
	}
	if err := os.Truncate(trace, 2<<30); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay", rec, "--verify"},
		{"replay", rec, "--tui"},
		{"plot", rec, "--out", filepath.Join(dir, "p.png")},
	} {
		code, stderr, _ := labLimited(t, "", args...)
		if code != 1 || !strings.Contains(stderr, "up.trace names a file") || !strings.Contains(stderr, "--open-files") {
			t.Errorf("lab %s: exit %d, %q; want the trace refused unopened, naming --open-files", strings.Join(args, " "), code, stderr)
		}
	}
	code, stderr, rss := labLimited(t, "", "replay", rec, "--verify", "--open-files")
	if code != 1 || !strings.Contains(stderr, "a capture of at most 1073741824 bytes") {
		t.Fatalf("lab replay --verify --open-files: exit %d, %q; want the 2 GB trace refused from its size", code, stderr)
	}
	t.Logf("peak RSS %.1f MB: %s", float64(rss)/(1<<20), stderr)
	if rss > 64<<20 {
		t.Fatalf("refusing the 2 GB trace took %d MB of RSS; want at most 64 MB", rss>>20)
	}
}

// Issue 27 item 10: an output that is one of the command's inputs, by any
// name (the same path, a hard link), is refused before anything is
// written, exit 2, and the input is left as it was.
func TestOutputThatIsAnInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "a.jlrec")
	if code, _, errOut := runLab(t, "run", "--duration", "1s", "--record", rec); code != 0 {
		t.Fatal(errOut)
	}
	link := filepath.Join(dir, "same-recording.png")
	if err := os.Link(rec, link); err != nil {
		t.Fatal(err)
	}
	scen := filepath.Join(dir, "s.toml")
	trace := filepath.Join(dir, "t.csv")
	shard := filepath.Join(dir, "s1.jsonl")
	for path, text := range map[string]string{
		scen:  "[link]\nlatency = \"20ms\"\n",
		trace: "dir,seq,send_ns,recv_ns\nup,1,0,20000000\nup,2,50000000,70000000\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, errOut := runLab(t, "sweep", "--over", "link.jitter=0ms,5ms", "--seeds", "1", "--duration", "1s", "--shard", "1/1", "--jsonl", shard); code != 0 {
		t.Fatal(errOut)
	}
	for _, c := range []struct {
		args  []string
		input string
	}{
		{[]string{"export", rec, "--csv", rec}, rec},
		{[]string{"export", rec, "--changes", link}, rec},
		{[]string{"plot", rec, "--out", link}, rec},
		{[]string{"run", "--scenario", scen, "--csv", scen}, scen},
		{[]string{"run", "--set", "up.trace=" + trace, "--packets", trace}, trace},
		{[]string{"merge", shard, "--csv", shard}, shard},
		{[]string{"sweep", "--scenario", scen, "--over", "link.jitter=0ms,5ms", "--seeds", "1", "--duration", "1s", "--html", scen}, scen},
		{[]string{"ab", "--scenario", scen, "--b", "link.jitter=5ms", "--seeds", "1", "--duration", "1s", "--csv", scen}, scen},
		{[]string{"diagnose", "--scenario", scen, "--seeds", "1", "--duration", "1s", "--html", scen}, scen},
		{[]string{"fit", trace, "--csv", trace}, trace},
	} {
		before, err := os.ReadFile(c.input)
		if err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runLab(t, c.args...)
		after, _ := os.ReadFile(c.input)
		if code != 2 || !strings.Contains(stderr, "is the input "+c.input) || !bytes.Equal(before, after) {
			t.Errorf("lab %s: exit %d, %q, input kept: %v; want exit 2 naming the input, the input as it was",
				strings.Join(c.args, " "), code, stderr, bytes.Equal(before, after))
		}
	}
}
