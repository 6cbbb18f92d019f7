package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"jitterlab/internal/testmem"
	"jitterlab/lab"
	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/sim"
)

// labLimited runs 'lab args…' as a child process limited to 2 GB of
// address space (ulimit -v), with stdin from the file stdin ("" for
// none), and returns its exit status, its stderr and its peak resident set
// (RSS) in bytes: memory measured as the machine gave it, not the heap.
func labLimited(t *testing.T, stdin string, args ...string) (code int, stderr string, rss uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", `ulimit -v "$1" && shift && exec "$0" "$@"`, os.Args[0], testmem.UlimitV(2 << 30)}, args...)...)
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

// Issue 27 item 14: lab fit - on /dev/zero, and lab fit on a gzip bomb
// (256 MB of zeros in 256 KB), are refused from their first bytes, not after
// reading or gunzipping a gigabyte of them.
func TestFitOfZerosRefusedFromItsFirstBytes(t *testing.T) {
	code, stderr, rss := labLimited(t, "/dev/zero", "fit", "-")
	t.Logf("peak RSS %.1f MB: %s", float64(rss)/(1<<20), stderr)
	if code != 1 || !strings.Contains(stderr, "-: binary data") {
		t.Fatalf("lab fit - < /dev/zero: exit %d, %q; want exit 1 and binary data refused", code, stderr)
	}
	if rss > 64<<20 {
		t.Fatalf("refusing /dev/zero took %d MB of RSS; want at most 64 MB", rss>>20)
	}
	bomb := filepath.Join(t.TempDir(), "bomb.json.gz")
	f, err := os.Create(bomb)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zeros := make([]byte, 1<<20)
	for range 256 {
		zw.Write(zeros)
	}
	zw.Close()
	f.Close()
	code, stderr, rss = labLimited(t, "", "fit", bomb)
	t.Logf("peak RSS %.1f MB: %s", float64(rss)/(1<<20), stderr)
	if code != 1 || !strings.Contains(stderr, bomb+": binary data") || rss > 64<<20 {
		t.Fatalf("lab fit on a gzip bomb: exit %d, %q, peak RSS %d MB; want binary data refused in at most 64 MB", code, stderr, rss>>20)
	}
}

// withHugeTrace runs 'lab args… --set up.trace=DIR/big.csv' on a small
// capture, then makes the capture a 2 GB file (sparse): what the run
// wrote names a huge trace.
func withHugeTrace(t *testing.T, dir string, args ...string) {
	t.Helper()
	trace := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(trace, []byte("dir,seq,send_ns,recv_ns\nup,1,0,20000000\nup,2,50000000,70000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runLab(t, append(args, "--set", "up.trace="+trace)...); code != 0 {
		t.Fatal(errOut)
	}
	if err := os.Truncate(trace, 2<<30); err != nil {
		t.Fatal(err)
	}
}

// Issue 27 item 1: a recording whose header names a 2 GB trace. Without
// --open-files replay --verify, replay --tui and plot refuse it without
// opening the file; with it, the file is refused from its size, in a few
// megabytes.
func TestRecordingNamingAHugeTrace(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "r.jlrec")
	withHugeTrace(t, dir, "run", "--duration", "2s", "--record", rec)
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
	gate := filepath.Join(dir, "gates", "gate.toml") // lab check reads a folder's .toml files
	// Scenarios that read other files: a base, a trace at the start and
	// one in the timeline.
	child, traced, later := filepath.Join(dir, "child.toml"), filepath.Join(dir, "traced.toml"), filepath.Join(dir, "later.toml")
	if err := os.Mkdir(filepath.Dir(gate), 0o755); err != nil {
		t.Fatal(err)
	}
	// Each case starts from these files as they were made (a case that
	// fails destroys one).
	made := func() {
		for path, text := range map[string]string{
			scen:   "[link]\nlatency = \"20ms\"\n",
			trace:  "dir,seq,send_ns,recv_ns\nup,1,0,20000000\nup,2,50000000,70000000\n",
			gate:   "duration = \"1s\"\nseeds = \"1-2\"\n[[assert]]\nmetric = \"judder_mps\"\nmax = 5\n",
			child:  "base = \"s.toml\"\n",
			traced: "up.trace = \"" + trace + "\"\n",
			later:  "[[timeline]]\nat = \"500ms\"\nup.trace = \"" + trace + "\"\n",
		} {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	made()
	if code, _, errOut := runLab(t, "sweep", "--over", "link.jitter=0ms,5ms", "--seeds", "1", "--duration", "1s", "--shard", "1/1", "--jsonl", shard); code != 0 {
		t.Fatal(errOut)
	}
	// The proxy reads its scenario and the traces of --set and --flow.
	proxyArgs := []string{"proxy", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--no-tui", "--duration", "1s"}
	proxyArgs = proxyArgs[:len(proxyArgs):len(proxyArgs)] // each case appends to its own copy
	for _, c := range []struct {
		args  []string
		input string
	}{
		{[]string{"export", rec, "--csv", rec}, rec},
		{[]string{"export", rec, "--changes", link}, rec},
		{[]string{"plot", rec, "--out", link}, rec},
		{[]string{"run", "--scenario", scen, "--csv", scen}, scen},
		{[]string{"run", "--set", "up.trace=" + trace, "--packets", trace}, trace},
		{[]string{"run", "--scenario", child, "--csv", scen}, scen},
		{[]string{"run", "--scenario", traced, "--csv", trace}, trace},
		{[]string{"run", "--scenario", later, "--packets", trace}, trace},
		{[]string{"sweep", "--scenario", traced, "--over", "link.jitter=0ms,5ms", "--seeds", "1", "--duration", "1s", "--csv", trace}, trace},
		{append(proxyArgs, "--scenario", child, "--pcap", scen), scen},
		{[]string{"merge", shard, "--csv", shard}, shard},
		{[]string{"sweep", "--scenario", scen, "--over", "link.jitter=0ms,5ms", "--seeds", "1", "--duration", "1s", "--html", scen}, scen},
		{[]string{"ab", "--scenario", scen, "--b", "link.jitter=5ms", "--seeds", "1", "--duration", "1s", "--csv", scen}, scen},
		{[]string{"diagnose", "--scenario", scen, "--seeds", "1", "--duration", "1s", "--html", scen}, scen},
		{[]string{"fit", trace, "--csv", trace}, trace},
		{[]string{"check", filepath.Dir(gate), "--junit", gate}, gate},
		{[]string{"check", gate, "--summary", gate}, gate},
		{append(proxyArgs, "--scenario", scen, "--record", scen), scen},
		{append(proxyArgs, "--set", "up.trace="+trace, "--record", trace), trace},
		{append(proxyArgs, "--flow", "127.0.0.1:5001 up.trace="+trace, "--pcap", trace), trace},
	} {
		made()
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

// cutFrame writes src without its frame i (index entry and data): a whole
// frame missing, every other byte intact.
func cutFrame(t *testing.T, src, dst string, i int) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	sp := frameSpans(b)[i]
	if err := os.WriteFile(dst, append(append([]byte(nil), b[:sp[0]]...), b[sp[1]:]...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Issue 27 item 11 and the LOW item on export's status: a recording with
// a frame missing whole, this format's (a gap in the index entries'
// numbers) or a version 2 recording the lab shipped (the end record's counts),
// is read with a warning naming the loss and ends with exit status 5,
// by export, replay's window and plot alike.
func TestMissingFramesEndWithStatus5(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.jlrec")
	if code, _, errOut := runLab(t, "run", "--duration", "40s", "--record", whole); code != 0 {
		t.Fatal(errOut)
	}
	v3 := filepath.Join(dir, "v3.jlrec")
	cutFrame(t, whole, v3, 2)
	v2 := filepath.Join(dir, "v2.jlrec")
	cutFrame(t, filepath.Join("..", "..", "recordings", "testdata", "v2-jitter-fix.jlrec"), v2, 2)
	for _, c := range []struct{ rec, want string }{{v3, "1 whole frame is missing"}, {v2, "the end record counts"}} {
		for _, args := range [][]string{
			{"export", c.rec, "--csv", filepath.Join(dir, "out.csv")},
			{"replay", c.rec, "--from", "1s", "--to", "35s"},
			{"plot", c.rec, "--out", filepath.Join(dir, "out.png")},
		} {
			if args[0] == "replay" && c.rec == v2 {
				continue // a window is not the whole file: version 2 has no numbers to show the gap
			}
			code, _, stderr := runLab(t, args...)
			if code != exitDataLost || !strings.Contains(stderr, "warning: "+c.rec) || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "data lost in 1 place") {
				t.Errorf("lab %s: exit %d, %q; want exit 5, a warning with %q", strings.Join(args, " "), code, stderr, c.want)
			}
		}
	}
	if code, _, stderr := runLab(t, "export", whole, "--csv", filepath.Join(dir, "whole.csv")); code != 0 {
		t.Fatalf("the whole recording: exit %d, %s", code, stderr)
	}
}

// LOW: replay prints the end record's summary only when it is this
// session's, not zeros made up from another program's end record.
func TestReplayShowsOnlyItsOwnSummary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "foreign.jlrec")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := lab.DefaultConfig()
	w, err := recordings.NewWriter(f, lab.HeaderOf(cfg, "foreign", 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	x := metrics.Sample{TS: 0.05}
	if err := w.Sample(&x); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(recordings.End{At: sim.Time(time.Second), Summary: []byte(`{"flows":3,"up":{"sent":5}}`)}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	code, out, stderr := runLab(t, "replay", path)
	if code != 0 || strings.Contains(out, "judder") || !strings.Contains(out, "summary    not shown") {
		t.Fatalf("replay of a recording with a foreign summary: exit %d, %s%s; want no summary made up", code, out, stderr)
	}
}

// longRecording writes a session recording of hours at 20 samples a
// second, its values varying, without simulating it.
func longRecording(t *testing.T, path string, hours int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := recordings.NewWriter(f, lab.HeaderOf(lab.DefaultConfig(), "long", 50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	n := hours * 3600 * 20
	for i := 1; i <= n; i++ {
		x := metrics.Sample{TS: float64(i) * 0.05, RTTMs: float64(40 + i%17), TickOffset: i % 5, SendIntervalS: 0.016, VisibleErrorM: float64(i%11) / 100}
		if err := w.Sample(&x); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(recordings.End{At: sim.Time(n) * sim.Time(50*time.Millisecond)}); err != nil {
		t.Fatal(err)
	}
}

// Issue 27 item 12: plot of a 6-hour recording (432,000 samples) keeps
// what its pixel columns show, not every sample: its peak RSS stays
// under 96 MB (it was 1.23 GB on a 24-hour one, about 720 bytes a sample),
// or three times that under the race detector (testmem.RaceFactor).
func TestPlotOfALongRecordingInBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "long.jlrec")
	longRecording(t, rec, 6)
	code, stderr, rss := labLimited(t, "", "plot", rec, "--out", filepath.Join(dir, "long.png"))
	t.Logf("peak RSS %.1f MB", float64(rss)/(1<<20))
	if code != 0 {
		t.Fatalf("lab plot: exit %d, %s", code, stderr)
	}
	if limit := uint64(96<<20) * testmem.RaceFactor; rss > limit {
		t.Fatalf("plot of a 6-hour recording: peak RSS %.0f MB; want at most %d MB", float64(rss)/(1<<20), limit>>20)
	}
}

// LOW: a command interrupted while it writes a whole output (sweep --csv)
// removes its hidden temporary file and dies of the signal; the output's
// path is left as it was (here: absent).
func TestInterruptedOutputLeavesNoTemporaryFile(t *testing.T) {
	ps, stderr, left := interruptWritingCSV(t, syscall.SIGINT, 0, "sweep", "--over", "link.jitter=0ms,5ms,10ms")
	ws, _ := ps.Sys().(syscall.WaitStatus)
	if !(ws.Signaled() && ws.Signal() == syscall.SIGINT) && ps.ExitCode() != 130 {
		t.Fatalf("after Ctrl-C: %v, %s", ps, stderr)
	}
	if len(left) != 0 {
		t.Fatalf("Ctrl-C left %v", left)
	}
}

// interruptWritingCSV runs lab args… --seeds 1-500 --duration 10m
// --workers 1 --csv OUT in a folder of its own, waits for the whole
// output's temporary file, sends sig after a further wait, and returns
// how the command ended, its standard error, and what it left in the
// folder (its output, temporary files).
func interruptWritingCSV(t *testing.T, sig syscall.Signal, wait time.Duration, args ...string) (*os.ProcessState, string, []string) {
	t.Helper()
	dir := t.TempDir()
	cmd, stdout, stderr := labProcess(t, append(args, "--seeds", "1-500", "--duration", "10m", "--workers", "1", "--csv", filepath.Join(dir, "out.csv"))...)
	go io.Copy(io.Discard, stdout)
	temp := func() []string { m, _ := filepath.Glob(filepath.Join(dir, ".out.csv.*.tmp")); return m }
	for start := time.Now(); len(temp()) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("lab %s: no temporary file after 30 s: %s", args[0], stderr)
		}
	}
	time.Sleep(wait)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	return cmd.ProcessState, stderr.String(), left
}

// LOW: diagnose --html goes through the output path every writer takes:
// "-" is refused as sweep's --html is (it wrote a file named "-"), before
// the diagnosis runs, and a report replaces an existing file whole,
// leaving no temporary file.
func TestDiagnoseHTMLTakesTheOutputPath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if code, _, stderr := runLab(t, "diagnose", "--seeds", "1-2", "--duration", "1s", "--html", "-"); code != 2 || !strings.Contains(stderr, "--html -: write the report to a file") {
		t.Fatalf("diagnose --html -: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Fatal("diagnose --html - wrote a file named -")
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runLab(t, "diagnose", "--seeds", "1-2", "--duration", "2s", "--html", page); code != 0 {
		t.Fatalf("diagnose --html: exit %d, %s", code, stderr)
	}
	b, _ := os.ReadFile(page)
	st, _ := os.Stat(page)
	left, _ := filepath.Glob(filepath.Join(dir, ".report.html.*.tmp"))
	if !strings.Contains(string(b), "<html") || st.Mode().Perm() != 0o600 || len(left) != 0 {
		t.Fatalf("report: %d bytes, mode %v, temporary files %v", len(b), st.Mode().Perm(), left)
	}
}

// The watch that removes whole outputs' temporary files on a signal does
// not take the ending away from a command that catches the signal itself:
// a sweep or an A/B writing --csv, stopped by SIGINT, SIGTERM or SIGHUP,
// says how many runs were done and exits 128 + the signal, as it does
// without an output file (it exited 130 for every signal, saying
// nothing), and leaves neither its output nor a temporary file.
func TestInterruptedOutputKeepsTheCommandsEnding(t *testing.T) {
	t.Parallel() // waits on the wall clock or child processes, not the CPU
	for _, c := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGTERM, []string{"sweep", "--over", "link.jitter=0ms,5ms,10ms"}},
		{syscall.SIGHUP, []string{"ab", "--b", "link.jitter=5ms"}},
		{syscall.SIGINT, []string{"sweep", "--over", "link.jitter=0ms,5ms,10ms"}},
	} {
		// 200 ms: the runs have started (seconds of them are queued).
		ps, stderr, left := interruptWritingCSV(t, c.sig, 200*time.Millisecond, c.args...)
		if code := ps.ExitCode(); code != 128+int(c.sig) || !strings.Contains(stderr, "canceled after") {
			t.Errorf("lab %s --csv stopped by %v: %v, stderr %q; want exit %d saying how many runs were done", c.args[0], c.sig, ps, stderr, 128+int(c.sig))
		}
		if len(left) != 0 {
			t.Errorf("lab %s stopped by %v left %v", c.args[0], c.sig, left)
		}
	}
}

// Issue 27 item 1: merge --html on a shard whose settings name a 2 GB
// trace (it crashed out of memory): refused without opening the file
// unless --open-files says so; with it, refused from the file's size.
func TestMergeOfAShardNamingAHugeTrace(t *testing.T) {
	dir := t.TempDir()
	shard := filepath.Join(dir, "s.jsonl")
	withHugeTrace(t, dir, "sweep", "--over", "link.jitter=0ms,5ms", "--seeds", "1", "--duration", "1s", "--shard", "1/1", "--jsonl", shard)
	html := filepath.Join(dir, "m.html")
	code, stderr, _ := labLimited(t, "", "merge", shard, "--html", html)
	if code != 1 || !strings.Contains(stderr, "up.trace names a file") || !strings.Contains(stderr, "--open-files") {
		t.Fatalf("merge --html: exit %d, %q; want the trace refused unopened", code, stderr)
	}
	code, stderr, rss := labLimited(t, "", "merge", shard, "--html", html, "--open-files")
	t.Logf("peak RSS %.1f MB: %s", float64(rss)/(1<<20), stderr)
	if code == 0 || !strings.Contains(stderr, "a capture of at most 1073741824 bytes") || rss > 64<<20 {
		t.Fatalf("merge --html --open-files: exit %d, %q, peak RSS %d MB; want the 2 GB trace refused from its size", code, stderr, rss>>20)
	}
}
