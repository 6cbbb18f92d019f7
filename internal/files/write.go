package files

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// An Output is a file a command writes, opened by [Temps.Open]: a stream,
// written in place as the command runs (a timeline one can follow, a
// recording that survives a crash up to its last frame), or a whole file,
// written to a temporary file beside it and renamed over it only when
// complete ([Output.Commit]), so a failed command leaves an existing file
// as it was ([Output.Abort]).
type Output struct {
	w      io.Writer
	err    error // the first write error
	name   string
	f      *os.File // nil when writing to standard output
	tmp    string   // the temporary file renamed to name by Commit, or ""
	stdout bool
	temps  *Temps
}

// Mode is how an [Output] is written.
type Mode int

const (
	Stream Mode = iota // in place, as it goes
	Whole              // to a temporary file renamed over it when complete
)

// Temps notes the temporary files of the whole outputs being written, so
// that a process a signal ends can remove them ([Temps.RemoveAll]) and
// leave no hidden .NAME.*.tmp file beside its output.
type Temps struct {
	mu      sync.Mutex
	files   map[string]bool
	watched bool
	// Watch, if set, is called once, before the first temporary file is
	// created, under the lock RemoveAll takes: a command starts there its
	// watch for the signals that end it. A file is created and noted under
	// the same lock, so a signal the moment it appears still removes it.
	Watch func()
}

// create creates a temporary file as os.CreateTemp does and notes it.
func (t *Temps) create(dir, pattern string) (*os.File, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.watched && t.Watch != nil {
		t.Watch()
	}
	t.watched = true
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		if t.files == nil {
			t.files = map[string]bool{}
		}
		t.files[f.Name()] = true
	}
	return f, err
}

// remove removes path and forgets it.
func (t *Temps) remove(path string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	os.Remove(path)
	delete(t.files, path)
}

// rename renames path to name and forgets it.
func (t *Temps) rename(path, name string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.files, path)
	return os.Rename(path, name)
}

// RemoveAll removes every temporary file noted and keeps the lock, so
// that none is noted or renamed into place after: for a process about to
// end.
func (t *Temps) RemoveAll() {
	t.mu.Lock()
	for f := range t.files {
		os.Remove(f)
	}
}

// Open opens path for writing. "-" is stdout, the command's standard
// output. A path that is not a regular file (/dev/stdout, a FIFO, a
// terminal) is opened write-only in place: never read-write, which would
// hold the read end of our own pipe and hang when the reader goes away. A
// regular file is created or truncated write-only (Stream) or written to
// a temporary file renamed over it by Commit (Whole), with the mode of
// the file it replaces.
func (t *Temps) Open(path string, stdout io.Writer, mode Mode) (*Output, error) {
	if path == "-" {
		return &Output{w: stdout, name: "standard output", stdout: true}, nil
	}
	st, err := os.Stat(path)
	special := err == nil && !st.Mode().IsRegular()
	if err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a folder, want a file to write", path)
	}
	if mode == Stream || special {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return nil, err
		}
		return NewOutput(f, path), nil
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // replace the file a link points to, not the link
	}
	f, err := t.create(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err // the temporary name would only confuse
		}
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	perm := os.FileMode(0o644)
	if st != nil {
		perm = st.Mode().Perm()
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		t.remove(f.Name())
		return nil, err
	}
	return &Output{w: f, name: path, f: f, tmp: f.Name(), temps: t}, nil
}

// NewOutput is a stream to f, a file opened for writing at path.
func NewOutput(f *os.File, path string) *Output { return &Output{w: f, name: path, f: f} }

// WriteWhole writes what write writes, buffered, whole to path ("-":
// stdout) and says whether it went to stdout.
func (t *Temps) WriteWhole(path string, stdout io.Writer, write func(io.Writer) error) (toStdout bool, err error) {
	f, err := t.Open(path, stdout, Whole)
	if err != nil {
		return false, err
	}
	defer f.Abort()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return false, err
	}
	if err := bw.Flush(); err != nil {
		return false, err
	}
	if err := f.Commit(); err != nil {
		return false, err
	}
	return f.stdout, nil
}

// Write writes to the output and keeps the first error.
func (o *Output) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if o.err == nil {
		o.err = err
	}
	return n, err
}

// Err is the first write error, or nil.
func (o *Output) Err() error { return o.err }

// Name is what the output writes: its path (a whole output's through
// its symbolic links), or "standard output".
func (o *Output) Name() string { return o.name }

// Stdout says whether the output is standard output ("-").
func (o *Output) Stdout() bool { return o.stdout }

// Commit closes the file and, for a whole file, renames it into place.
func (o *Output) Commit() error {
	if o.f == nil {
		return nil
	}
	err := o.f.Close()
	o.f = nil
	if o.tmp != "" {
		if err == nil {
			err = o.temps.rename(o.tmp, o.name)
		}
		if err != nil {
			o.temps.remove(o.tmp)
		}
	}
	return err
}

// Abort closes the file and removes a whole file's temporary file, leaving
// whatever was at its path before. It does nothing after Commit.
func (o *Output) Abort() {
	if o.f == nil {
		return
	}
	o.f.Close()
	o.f = nil
	if o.tmp != "" {
		o.temps.remove(o.tmp)
	}
}
