package testmem

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"jitterlab/internal/israce"
)

// childEnv marks the child process [InChild] starts.
const childEnv = "JITTERLAB_TESTMEM_CHILD"

// InChild runs the calling test again in a child process limited to
// addressSpace bytes of virtual memory (ulimit -v), so a regression fails
// with "out of memory" instead of swapping the machine, and fails t when
// the child fails or its peak resident set (RSS, what the machine really
// gave it, the test binary's own few megabytes included) passes maxRSS
// (times [RaceFactor] under the race detector, which cannot start under an
// address-space limit at all: there the child runs without one, see
// [UlimitV]).
// It returns true in the child, where the test's body runs, and false in
// the parent, which returns at once:
//
//	if !testmem.InChild(t, 1<<30, 128<<20) {
//		return
//	}
func InChild(t testing.TB, addressSpace, maxRSS uint64) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		t.Cleanup(func() { fmt.Printf("\n%s%d\n", peakMarker, PeakRSS()) })
		return true
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh to limit a child process's memory:", err)
	}
	run := "^" + t.Name() + "$"
	maxRSS *= RaceFactor
	cmd := exec.Command(sh, "-c", `ulimit -v "$1" && exec "$0" -test.run="$2" -test.v`,
		os.Args[0], UlimitV(addressSpace), run)
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("in a child process under a %d MB address-space limit: %v\n%.4000s", addressSpace>>20, err, out)
	}
	_, tail, ok := strings.Cut(string(out), "\n"+peakMarker)
	rss, err := strconv.ParseUint(strings.TrimSpace(strings.SplitN(tail, "\n", 2)[0]), 10, 64)
	if !ok || err != nil || rss == 0 {
		t.Fatalf("the child process did not report its peak RSS:\n%.4000s", out)
	}
	t.Logf("peak RSS of the child process: %.1f MB (bound %.1f MB)", float64(rss)/(1<<20), float64(maxRSS)/(1<<20))
	if rss > maxRSS {
		t.Errorf("peak RSS of the child process %.1f MB; the bound is %.1f MB\n%.2000s", float64(rss)/(1<<20), float64(maxRSS)/(1<<20), out)
	}
	return false
}

// UlimitV is the argument to the shell's 'ulimit -v' that limits a child
// process to addressSpace bytes of virtual memory: the size in KiB, or
// "unlimited" when this test binary was built with the race detector
// ([israce.Enabled]): ThreadSanitizer reserves terabytes of address space
// for its shadow memory at start ("unable to mmap" under any limit a test
// affords). The RSS bound still holds.
func UlimitV(addressSpace uint64) string {
	if israce.Enabled {
		return "unlimited"
	}
	return strconv.FormatUint(addressSpace>>10, 10)
}

// peakMarker starts the line on which the child reports its peak RSS.
const peakMarker = "testmem: peak RSS bytes "

// PeakRSS is the peak resident set of this process's memory since it
// started its program, in bytes (VmHWM in /proc/self/status), or 0 where
// that is not known. Unlike getrusage's maxrss it does not include the
// parent's memory, which Linux carries over to a child at exec.
func PeakRSS() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// ReportPeakRSS writes this process's peak RSS to the file named by
// $JITTERLAB_PEAK_RSS_FILE, if set: a test that runs a program (the lab's
// main in its own test binary) reads it back with [ReadPeakRSS].
func ReportPeakRSS() {
	if path := os.Getenv(peakFileEnv); path != "" {
		os.WriteFile(path, []byte(strconv.FormatUint(PeakRSS(), 10)), 0o644)
	}
}

const peakFileEnv = "JITTERLAB_PEAK_RSS_FILE"

// PeakRSSEnv returns the environment entry asking a child process to
// report its peak RSS to path (see [ReportPeakRSS]).
func PeakRSSEnv(path string) string { return peakFileEnv + "=" + path }

// ReadPeakRSS reads what the child reported to path.
func ReadPeakRSS(t testing.TB, path string) uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the child process did not report its peak RSS: %v", err)
	}
	n, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil || n == 0 {
		t.Fatalf("the child process reported a peak RSS of %q", b)
	}
	return n
}
