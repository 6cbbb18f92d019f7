package diagnose

import (
	"path/filepath"
	"testing"
	"time"

	"jitterlab/internal/golden"
)

// TestGoldenText: the text of a small jitter-fix diagnosis, byte for byte
// (go test ./diagnose -run Golden -update rewrites it after a deliberate
// change of the model or of the wording).
func TestGoldenText(t *testing.T) {
	o := options(t, "jitter-fix")
	o.Seeds, o.Base.Duration = o.Seeds[:5], 30*time.Second
	golden.Check(t, filepath.Join("testdata", "jitter-fix-5-seeds-30s.txt"), []byte(text(t, run(t, o))))
}
