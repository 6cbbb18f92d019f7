package recordings

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"jitterlab/internal/testmem"
	"jitterlab/metrics"
	"jitterlab/sim"
)

// Issue 27 item 13: the hostile recordings of TestSmallRecordingsHugeMemory
// measured as the machine sees them, the peak resident set (RSS) of a
// child process, against the bound the package states for it:
// ResidentBound, not only MemoryBound (what the reader holds live).
func TestHostileRecordingsWithinResidentBound(t *testing.T) {
	// The files are crafted here, in the parent: the child's peak is the
	// reader's alone.
	const env = "JITTERLAB_HOSTILE_RECORDINGS"
	if os.Getenv(env) == "" {
		dir := t.TempDir()
		for i, c := range hostileCases() {
			if err := os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), craft(t, c.frames...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv(env, dir)
	}
	if !testmem.InChild(t, 2<<30, ResidentBound) {
		return
	}
	for i, c := range hostileCases() {
		b, err := os.ReadFile(filepath.Join(os.Getenv(env), strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		var r *Reader
		if r, err = Open(bytes.NewReader(b), int64(len(b))); err == nil {
			if err = r.Scan(0, sim.Time(1<<62), func(*metrics.Sample) error { return nil }, nil); err == nil {
				_, err = r.Changes()
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: %v; want an error naming %q", c.name, err, c.want)
		}
	}
}
