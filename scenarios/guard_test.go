package scenarios

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"jitterlab/internal/testmem"
	"jitterlab/internal/testtool"
)

// hostile are scenario files under the 1 MB limit that crash or exhaust
// the TOML decoder (BurntSushi/toml issues 496 and 497) when decoded.
func hostile() map[string]string {
	return map[string]string{
		"200,000 nested table keys":    "[" + strings.Repeat("a.", 200_000) + "a]\nx = 1\n",
		"200,000-part dotted key":      strings.Repeat("a.", 200_000) + "a = 1\n",
		"100,000 nested inline tables": "x = " + strings.Repeat("{a=", 100_000) + "1" + strings.Repeat("}", 100_000) + "\n",
		"200,000 nested arrays":        "x = " + strings.Repeat("[", 200_000) + strings.Repeat("]", 200_000) + "\n",
		"90,000 keys":                  manyKeys(90_000),
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "k%x=1\n", i)
	}
	return b.String()
}

// TestHostileTOMLIsRefusedInBoundedMemory (issue 15 item 3): nesting and
// key count are checked before decoding; each file is one clear error, and
// refusing it allocates a bounded amount (measured, not timed).
func TestHostileTOMLIsRefusedInBoundedMemory(t *testing.T) {
	if os.Getenv("JITTERLAB_MEMORY_LIMITED") == "" {
		// Run this test again in a child process limited to 2 GB of
		// address space, so a regression fails with "out of memory"
		// instead of swapping the machine.
		sh := testtool.Need(t, "sh", "dash")
		cmd := exec.Command(sh, "-c", `ulimit -v "$1" && exec "$0" -test.run='^TestHostileTOMLIsRefusedInBoundedMemory$' -test.v`, os.Args[0], testmem.UlimitV(2<<30))
		cmd.Env = append(os.Environ(), "JITTERLAB_MEMORY_LIMITED=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("under a 2 GB limit: %v\n%.4000s", err, out)
		}
		return
	}
	for name, text := range hostile() {
		t.Run(name, func(t *testing.T) {
			if len(text) > maxFileSize {
				t.Fatalf("%d bytes: the case must be under the size limit", len(text))
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Parse("hostile.toml", []byte(text), check)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.HasPrefix(err.Error(), "hostile.toml:") || !strings.Contains(err.Error(), "at most") {
				t.Fatalf("error %v: want one naming the file and the limit", err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
				t.Fatalf("refusing it allocated %d MB; want at most 16 MB", alloc>>20)
			}
		})
	}
	// The limits leave room for any real scenario.
	if _, err := parseText(t, "[client]\nsender = \"accumulator\"\n[[timeline]]\nat = \"1s\"\nlink.latency = \"1ms\"\nx.y = [[1, 2], [3]]\n"); err == nil || strings.Contains(err.Error(), "at most") {
		t.Fatalf("a plain file hit a limit: %v", err)
	}
}

// FuzzGuard: whatever the guard accepts decodes (if it is TOML at all) to
// a tree no deeper than the guard's limits allow, so its accounting of
// strings, comments and brackets cannot be fooled into letting deep
// nesting through.
func FuzzGuard(f *testing.F) {
	f.Add("a.b.c = 1\n[x]\ny = {z = [1, {w = 2}]}\n")
	f.Add("s = \"a.b.c{[\" # {[.\nt = '''\n{[{[\n'''\nu = \"\"\"x\\\"\"\"{\"\"\"\n")
	f.Add("[[a.b]]\nc = [[[1]], [[2]]]\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<16 || guard("f.toml", []byte(text)) != nil {
			return
		}
		var v any
		if _, err := toml.Decode(text, &v); err != nil {
			return
		}
		if d, bound := treeDepth(v), maxKeyParts*(maxNesting+2); d > bound {
			t.Fatalf("%q passed the guard but decodes %d deep (bound %d)", text, d, bound)
		}
	})
}

func treeDepth(v any) int {
	d := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			d = max(d, treeDepth(e))
		}
	case []map[string]any:
		for _, e := range x {
			d = max(d, treeDepth(e))
		}
	case []any:
		for _, e := range x {
			d = max(d, treeDepth(e))
		}
	default:
		return 0
	}
	return d + 1
}

// TestScenarioFIFOIsRefused (issue 15 item 14): a named pipe given as a
// scenario is refused at once instead of waiting for a writer forever.
func TestScenarioFIFOIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe.toml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(fifo, check); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "is a named pipe (FIFO), not a regular file") {
			t.Fatalf("error %v: want one naming the file and saying it is a named pipe, not a regular file", err)
		}
	case <-time.After(time.Minute):
		os.WriteFile(fifo, nil, 0) // release the blocked open
		t.Fatal("loading a FIFO still blocks after a minute")
	}
}

// TestUnknownTopLevelKeyGetsDidYouMean (issue 8 item 19).
func TestUnknownTopLevelKeyGetsDidYouMean(t *testing.T) {
	for text, want := range map[string]string{
		"duraton = \"60s\"\n":          `did you mean duration?`,
		"descripton = \"x\"\n":         `did you mean description?`,
		"seedz = 4\n":                  `did you mean seed or seeds?`,
		"[[timelines]]\nat = \"1s\"\n": `did you mean timeline?`,
		"colour = \"red\"\n":           `allowed name, description`,
	} {
		_, err := parseText(t, text)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "test.toml:1:") {
			t.Errorf("%q: %v; want test.toml:1: and %q", text, err, want)
		}
	}
}

// A file past the key limit is refused saying what counts: every
// key = value, a timeline entry's at = too, so 6,000 entries of one
// setting each (12,000 pairs) are refused and the user sees why, where
// "more than 10000 keys" read as a miscount of 6,000 entries.
func TestKeyLimitSaysWhatCounts(t *testing.T) {
	var b strings.Builder
	for i := range 6000 {
		fmt.Fprintf(&b, "[[timeline]]\nat = \"%dms\"\nup.loss = \"1%%\"\n", i)
	}
	_, err := Parse("t.toml", []byte(b.String()), func(k, v string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "more than 10000 key = value pairs (each timeline entry's at = is one)") {
		t.Errorf("6,000 timeline entries: %v; want the limit said as key = value pairs, at = counted", err)
	}
}
