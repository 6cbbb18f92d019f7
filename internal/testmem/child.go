package testmem

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// childEnv marks the child process [InChild] starts.
const childEnv = "JITTERLAB_TESTMEM_CHILD"

// InChild runs the calling test again in a child process limited to
// addressSpace bytes of virtual memory (ulimit -v), so a regression fails
// with "out of memory" instead of swapping the machine, and fails t when
// the child fails or its peak resident set (RSS, what the machine really
// gave it, the test binary's own few megabytes included) passes maxRSS.
// It returns true in the child, where the test's body runs, and false in
// the parent, which returns at once:
//
//	if !testmem.InChild(t, 1<<30, 128<<20) {
//		return
//	}
func InChild(t testing.TB, addressSpace, maxRSS uint64) bool {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		return true
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("needs sh to limit a child process's memory:", err)
	}
	run := "^" + t.Name() + "$"
	cmd := exec.Command(sh, "-c", `ulimit -v "$1" && exec "$0" -test.run="$2" -test.v`,
		os.Args[0], strconv.FormatUint(addressSpace>>10, 10), run)
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("in a child process under a %d MB address-space limit: %v\n%.4000s", addressSpace>>20, err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Fatal("no resource usage of the child process on this system")
	}
	rss := uint64(ru.Maxrss) << 10 // kilobytes on Linux
	t.Logf("peak RSS of the child process: %.1f MB (bound %.1f MB)", float64(rss)/(1<<20), float64(maxRSS)/(1<<20))
	if rss > maxRSS {
		t.Errorf("peak RSS of the child process %.1f MB; the bound is %.1f MB\n%.2000s", float64(rss)/(1<<20), float64(maxRSS)/(1<<20), out)
	}
	return false
}

// RSS is the peak resident set of this process so far, in bytes.
func RSS() uint64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return uint64(ru.Maxrss) << 10
}
