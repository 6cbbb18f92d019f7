package testtool

import (
	"os"
	"os/exec"
	"sync"
	"testing"

	"jitterlab/internal/israce"
)

// Required reports whether missing tools fail tests (CI) instead of
// skipping them.
func Required() bool { return os.Getenv("JITTERLAB_REQUIRE_TOOLS") == "1" }

// Missing skips t, or fails it when tools are required, saying what is
// missing and why.
func Missing(t testing.TB, what string) {
	t.Helper()
	if Required() {
		t.Fatalf("needs %s (JITTERLAB_REQUIRE_TOOLS=1 makes this a failure)", what)
	}
	t.Skipf("needs %s", what)
}

// Need returns the path of the program name, or skips (or fails) t when it
// is not installed; pkg names the Debian package that has it.
func Need(t testing.TB, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name+" (Debian package "+pkg+")")
	}
	return path
}

// Race is true when this test binary was built with the race detector.
const Race = israce.Enabled

// NotUnderRace skips t when the test binary was built with the race
// detector, saying why. It is for a test whose work is one goroutine's
// arithmetic (a full diagnosis over its ensemble, the README's outputs
// reproduced): the race detector slows it ten-fold and has nothing in it
// to check. CI runs such a test in its plain 'go test ./...' step, so it
// is skipped only in the race step, never in CI as a whole.
func NotUnderRace(t testing.TB, why string) {
	t.Helper()
	if Race {
		t.Skipf("not under the race detector: %s (.ci/run runs it in its plain go test ./... step)", why)
	}
}

// Memo runs an expensive computation once per key for a whole test
// binary: tests that ask for the same result (a diagnosis over the same
// options) share it, and only read it. Safe for parallel tests.
type Memo[V any] struct{ m sync.Map } // key → *memoEntry[V]

type memoEntry[V any] struct {
	once sync.Once
	v    V
	err  error
}

// Do returns f's result for key, calling f only the first time key is asked for.
func (m *Memo[V]) Do(key string, f func() (V, error)) (V, error) {
	e, _ := m.m.LoadOrStore(key, &memoEntry[V]{})
	me := e.(*memoEntry[V])
	me.once.Do(func() { me.v, me.err = f() })
	return me.v, me.err
}
