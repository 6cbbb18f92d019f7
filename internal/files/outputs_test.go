package files

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckOutputs compares by file identity: an output that is an input by
// another name (a hard link, a symbolic link, another spelling of its path) is
// refused; a new file, standard input and /dev/null are not inputs.
func TestCheckOutputsByIdentity(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	if err := os.WriteFile(in, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	hard, soft := filepath.Join(dir, "hard"), filepath.Join(dir, "soft")
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(in, soft); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, hard, soft, dir + "/./in.csv"} {
		err := CheckOutputs(map[string]string{"csv": out}, []string{"-", in})
		if err == nil || !strings.Contains(err.Error(), "--csv "+out+" is the input "+in) {
			t.Errorf("--csv %s over the input %s: %v", out, in, err)
		}
	}
	for _, out := range []string{filepath.Join(dir, "new.csv"), os.DevNull, "-"} {
		if err := CheckOutputs(map[string]string{"csv": out}, []string{"-", in}); err != nil {
			t.Errorf("--csv %s: %v", out, err)
		}
	}
	if err := CheckOutputs(map[string]string{"csv": "-", "html": "/dev/stdout"}, nil); err == nil || !strings.Contains(err.Error(), "name the same output") {
		t.Errorf("two outputs on standard output: %v", err)
	}
}
