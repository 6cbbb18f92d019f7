package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// output is a file a command writes, opened by [openOutput]; every output
// flag of every command goes through it.
type output struct {
	w      io.Writer
	err    error // the first write error
	name   string
	f      *os.File // nil when writing to standard output
	tmp    string   // the temporary file renamed to name by Commit, or ""
	stdout bool
}

// Output modes: a stream is written in place as the command runs (a
// timeline one can follow, a recording that survives a crash up to its
// last frame); a whole file is written to a temporary file beside it and
// renamed over it only when complete, so a failed command leaves an
// existing file as it was.
type outputMode int

const (
	stream outputMode = iota
	whole
)

// openOutput opens path for writing. "-" is standard output. A path that
// is not a regular file (/dev/stdout, a FIFO, a terminal) is opened
// write-only in place: never read-write, which would hold the read end of
// our own pipe and hang when the reader goes away. A regular file is
// created or truncated write-only (stream) or written to a temporary file
// renamed over it by Commit (whole).
func openOutput(path string, stdout io.Writer, mode outputMode) (*output, error) {
	if path == "-" {
		return &output{w: stdout, name: "standard output", stdout: true}, nil
	}
	st, err := os.Stat(path)
	special := err == nil && !st.Mode().IsRegular()
	if err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a folder, want a file to write", path)
	}
	if mode == stream || special {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			return nil, err
		}
		return &output{w: f, name: path, f: f}, nil
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // replace the file a link points to, not the link
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
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
		os.Remove(f.Name())
		return nil, err
	}
	return &output{w: f, name: path, f: f, tmp: f.Name()}, nil
}

// writeBuffered writes what write writes, buffered, whole to path ("-":
// standard output) and returns where to report it: stderr when the output
// went to stdout.
func writeBuffered(path string, stdout, stderr io.Writer, write func(io.Writer) error) (report io.Writer, err error) {
	f, err := openOutput(path, stdout, whole)
	if err != nil {
		return nil, err
	}
	defer f.Abort()
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	if err := f.Commit(); err != nil {
		return nil, err
	}
	if f.stdout {
		return stderr, nil
	}
	return stdout, nil
}

// Write writes to the output and keeps the first error.
func (o *output) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if o.err == nil {
		o.err = err
	}
	return n, err
}

// Commit closes the file and, for a whole file, renames it into place.
func (o *output) Commit() error {
	if o.f == nil {
		return nil
	}
	err := o.f.Close()
	o.f = nil
	if o.tmp != "" {
		if err == nil {
			err = os.Rename(o.tmp, o.name)
		}
		if err != nil {
			os.Remove(o.tmp)
		}
	}
	return err
}

// Abort closes the file and removes a whole file's temporary file, leaving
// whatever was at its path before. It does nothing after Commit.
func (o *output) Abort() {
	if o.f == nil {
		return
	}
	o.f.Close()
	o.f = nil
	if o.tmp != "" {
		os.Remove(o.tmp)
	}
}

// distinctOutputs refuses two output flags (flag name → path; "" unset)
// that name one file, by any name: the same path, a symbolic link to it, a
// path through a linked folder, or standard output ("-", /dev/stdout,
// /dev/fd/1, /proc/self/fd/1). Their bytes would interleave. /dev/null
// may take any number of outputs: nothing is kept.
func distinctOutputs(paths map[string]string) error {
	type seen struct {
		flag string
		id   outputID
	}
	var all []seen
	for _, flag := range slices.Sorted(maps.Keys(paths)) {
		path := paths[flag]
		if path == "" {
			continue
		}
		id := identify(path)
		if id.null {
			continue
		}
		for _, prev := range all {
			if prev.id.same(id) {
				return fmt.Errorf("--%s %s and --%s %s name the same output: give each its own file", prev.flag, paths[prev.flag], flag, path)
			}
		}
		all = append(all, seen{flag, id})
	}
	return nil
}

// outputID identifies the file an output path writes: standard output, an
// existing file (compared by device and inode through os.SameFile), or a
// file not there yet (by its path with every link of its folder resolved,
// and the links to it followed).
type outputID struct {
	stdout, null bool
	st           os.FileInfo // an existing file
	path         string      // a file not there yet
}

// stdoutNames are the paths of standard output on Linux and the BSDs.
var stdoutNames = []string{"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}

func identify(path string) outputID { return identifyHops(path, 40) }

// identifyHops is identify following at most hops links that point to no
// file yet (a link to a file the run will create is that file).
func identifyHops(path string, hops int) outputID {
	if slices.Contains(stdoutNames, filepath.Clean(path)) || path == "-" {
		return outputID{stdout: true}
	}
	if st, err := os.Stat(path); err == nil {
		if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(st, null) {
			return outputID{null: true}
		}
		return outputID{st: st}
	}
	if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSymlink != 0 && hops > 0 {
		if to, err := os.Readlink(path); err == nil {
			if !filepath.IsAbs(to) {
				to = filepath.Join(filepath.Dir(path), to)
			}
			return identifyHops(to, hops-1)
		}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return outputID{path: path}
	}
	dir, base := filepath.Split(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return outputID{path: filepath.Join(dir, base)}
}

func (a outputID) same(b outputID) bool {
	switch {
	case a.stdout || b.stdout:
		return a.stdout && b.stdout
	case a.st != nil && b.st != nil:
		return os.SameFile(a.st, b.st)
	}
	return a.st == nil && b.st == nil && a.path == b.path
}

// closedPipe reports whether err is a write to a pipe whose reader has
// gone (lab run --csv /dev/stdout | head -1): the command ends quietly.
func closedPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
