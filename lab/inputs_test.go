package lab

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// InputFiles lists every file a run reads: the scenario's own and its
// base's, the traces its settings and its timeline name, and the traces
// --set names, a digest cut off; a built-in reads none, and a scenario
// that does not load is listed alone when it is a file.
func TestInputFiles(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.toml")
	mine := filepath.Join(dir, "mine.toml")
	broken := filepath.Join(dir, "broken.toml")
	for path, text := range map[string]string{
		base:   "[up]\ntrace = \"up.csv\"\n",
		mine:   "base = \"base.toml\"\n[down]\ntrace = \"down.csv@sha256:00\"\n[[timeline]]\nat = \"5s\"\nup.trace = \"later.csv\"\n",
		broken: "[up\n",
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		scenario string
		sets     []string
		want     []string
	}{
		{"", []string{"up.trace=a.csv@sha256:ff", "link.jitter=5ms", "down.trace=b.csv"}, []string{"a.csv", "b.csv"}},
		{"handover", nil, nil},
		{broken, []string{"up.trace=a.csv"}, []string{broken, "a.csv"}},
		{filepath.Join(dir, "missing.toml"), nil, nil},
	} {
		if got := InputFiles(c.scenario, c.sets); !slices.Equal(got, c.want) {
			t.Errorf("InputFiles(%q, %q) = %q, want %q", c.scenario, c.sets, got, c.want)
		}
	}
	got := InputFiles(mine, nil)
	for _, want := range []string{mine, base, "down.csv", "later.csv"} {
		if !slices.Contains(got, want) {
			t.Errorf("InputFiles(mine.toml) = %q lacks %q", got, want)
		}
	}
}
