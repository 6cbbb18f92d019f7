package diagnose

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenText: the text of a small jitter-fix diagnosis, byte for byte
// (go test ./diagnose -run Golden -update rewrites it after a deliberate
// change of the model or of the wording).
func TestGoldenText(t *testing.T) {
	o := options(t, "jitter-fix")
	o.Seeds, o.Base.Duration = o.Seeds[:5], 30*time.Second
	got := []byte(text(t, run(t, o)))
	path := filepath.Join("testdata", "jitter-fix-5-seeds-30s.txt")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the text differs from %s (run with -update after a deliberate change):\n%s", path, got)
	}
}
