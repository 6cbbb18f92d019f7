package files

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// leftovers are the hidden temporary files in dir.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// contents is the file at path, or why it could not be read.
func contents(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// A whole output replaces an existing file only when committed, keeping
// its mode; aborted, it leaves the file as it was. Neither leaves a
// temporary file behind.
func TestWholeOutputReplacesOnlyWhenCommitted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var temps Temps
	for _, commit := range []bool{false, true} {
		o, err := temps.Open(path, nil, Whole)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(o, "new\n")
		if got := contents(path); got != "old\n" {
			t.Fatalf("before the end: %q", got)
		}
		if commit {
			if err := o.Commit(); err != nil {
				t.Fatal(err)
			}
		} else {
			o.Abort()
		}
		if n := len(leftovers(t, dir)); n != 0 {
			t.Fatalf("commit %v: %d temporary files left", commit, n)
		}
	}
	st, err := os.Stat(path)
	if err != nil || contents(path) != "new\n" || st.Mode().Perm() != 0o600 {
		t.Fatalf("after commit: %q, mode %v (%v)", contents(path), st.Mode(), err)
	}
}

// A whole output through a symbolic link replaces the file it points to,
// and the link stays.
func TestWholeOutputThroughALinkReplacesItsTarget(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.csv"), filepath.Join(dir, "link.csv")
	os.WriteFile(target, []byte("old\n"), 0o644)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	var temps Temps
	toStdout, err := temps.WriteWhole(link, nil, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err })
	if err != nil || toStdout {
		t.Fatal(err, toStdout)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 || contents(target) != "new\n" {
		t.Fatalf("link %v (%v), target %q", st.Mode(), err, contents(target))
	}
}

// A stream is written in place as it goes; "-" is standard output; a
// folder is refused; a failed whole write leaves the file as it was.
func TestOutputKinds(t *testing.T) {
	dir := t.TempDir()
	var temps Temps
	path := filepath.Join(dir, "stream.csv")
	o, err := temps.Open(path, nil, Stream)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(o, "row\n")
	if got := contents(path); got != "row\n" || o.Name() != path || o.Stdout() {
		t.Fatalf("a stream before its end: %q, %q", got, o.Name())
	}
	o.Commit()
	var stdout bytes.Buffer
	toStdout, err := temps.WriteWhole("-", &stdout, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
	if err != nil || !toStdout || stdout.String() != "x" {
		t.Fatalf("-: %v %v %q", err, toStdout, stdout.String())
	}
	if _, err := temps.Open(dir, nil, Whole); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Fatalf("a folder: %v", err)
	}
	failed := errors.New("failed")
	if _, err := temps.WriteWhole(path, nil, func(w io.Writer) error { io.WriteString(w, "half"); return failed }); err != failed {
		t.Fatalf("a failed write: %v", err)
	}
	if got := contents(path); got != "row\n" || len(leftovers(t, dir)) != 0 {
		t.Fatalf("after a failed write: %q, %d temporary files", got, len(leftovers(t, dir)))
	}
}

// Watch runs once, before the first temporary file exists; RemoveAll
// removes the temporary files of the outputs still being written.
func TestTempsWatchAndRemoveAll(t *testing.T) {
	dir := t.TempDir()
	watched := 0
	temps := &Temps{}
	temps.Watch = func() {
		watched++
		if n := len(leftovers(t, dir)); n != 0 {
			t.Errorf("watch started after %d temporary files", n)
		}
	}
	for _, name := range []string{"a.csv", "b.csv"} {
		if _, err := temps.Open(filepath.Join(dir, name), nil, Whole); err != nil {
			t.Fatal(err)
		}
	}
	if watched != 1 || len(leftovers(t, dir)) != 2 {
		t.Fatalf("watched %d times, %d temporary files", watched, len(leftovers(t, dir)))
	}
	temps.RemoveAll() // holds the lock: temps is not used again
	if n := len(leftovers(t, dir)); n != 0 {
		t.Fatalf("%d temporary files after RemoveAll", n)
	}
}
