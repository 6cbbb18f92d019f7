package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"jitterlab/internal/files"
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
	f, err := createTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
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
		removeTemp(f.Name())
		return nil, err
	}
	return &output{w: f, name: path, f: f, tmp: f.Name()}, nil
}

// temps are the temporary files of the whole outputs being written. A
// signal that ends the command (Ctrl-C, SIGTERM, SIGHUP; the commands
// that write whole outputs do not catch them) removes them before the
// process dies of it, so an interrupted command leaves no hidden
// .NAME.*.tmp file beside its output.
var temps = struct {
	sync.Mutex
	files    map[string]bool
	watching bool
}{files: map[string]bool{}}

// ending are the signals that end a command.
var ending = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// signalHandlers counts the signal contexts (signalContext) not stopped:
// while one is, the command catches the ending signals itself, ends as it
// says (exit 128 + n, what was done) and aborts its outputs.
// signalCaught says one of them caught a signal the watch of temporary
// files has not seen yet: the command may have stopped its context
// before the watch reads the same signal.
var (
	signalHandlers atomic.Int32
	signalCaught   atomic.Bool
)

// createTemp creates a temporary file as os.CreateTemp does and notes it.
// From the first one on it watches for a signal that ends the command; a
// signal the command does not catch itself (no signalContext running)
// removes the files noted, then the process dies of the signal as it
// would have (exit status 128 + n). The watch starts before the file
// exists, and the file is created and noted under the lock the watch
// takes: a signal in between (a Ctrl-C the moment the file appears) still
// removes it.
func createTemp(dir, pattern string) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	watchTemps()
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		temps.files[f.Name()] = true
	}
	return f, err
}

// watchTemps starts the watch for an ending signal, once; temps is locked.
func watchTemps() {
	if temps.watching {
		return
	}
	temps.watching = true
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, ending...)
	go func() {
		for sig := range ch {
			if signalHandlers.Load() > 0 || signalCaught.Swap(false) {
				continue // the command ends itself and aborts its outputs
			}
			temps.Lock() // held: no new file is noted, none is renamed in
			for f := range temps.files {
				os.Remove(f)
			}
			signal.Reset(ending...)
			code := 130
			if s, ok := sig.(syscall.Signal); ok {
				syscall.Kill(os.Getpid(), s)
				code = 128 + int(s)
			}
			os.Exit(code)
		}
	}()
}

// removeTemp removes path and forgets it.
func removeTemp(path string) {
	temps.Lock()
	defer temps.Unlock()
	os.Remove(path)
	delete(temps.files, path)
}

// renameTemp renames path to name and forgets it.
func renameTemp(path, name string) error {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.files, path)
	return os.Rename(path, name)
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
			err = renameTemp(o.tmp, o.name)
		}
		if err != nil {
			removeTemp(o.tmp)
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
		removeTemp(o.tmp)
	}
}

// checkOutputs refuses output flags (flag name → path) that name one file,
// or that name one of the command's inputs, by file identity
// (files.CheckOutputs): a bad command line, exit 2.
func checkOutputs(outputs map[string]string, inputs ...string) error {
	if err := files.CheckOutputs(outputs, inputs); err != nil {
		return cmdLineErr(err)
	}
	return nil
}

// closedPipe reports whether err is a write to a pipe whose reader has
// gone (lab run --csv /dev/stdout | head -1): the command ends quietly.
func closedPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
