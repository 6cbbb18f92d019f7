package files

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A regular file opens; a named pipe, a directory and a device are refused
// at once with their kind, and a missing file is the file system's error.
func TestOpenRegularRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a.toml")
	if err := os.WriteFile(reg, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, st, err := OpenRegular(reg)
	if err != nil || st.Size() != 1 {
		t.Fatalf("regular file: %v", err)
	}
	f.Close()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for path, kind := range map[string]string{fifo: "a named pipe (FIFO)", dir: "a directory", os.DevNull: "a device"} {
		_, _, err := OpenRegular(path) // would block forever on the FIFO without O_NONBLOCK
		var nr *NotRegularError
		if !errors.As(err, &nr) || Kind(nr.Mode) != kind {
			t.Errorf("%s: %v, want %s", path, err, kind)
		}
	}
	if _, _, err := OpenRegular(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
