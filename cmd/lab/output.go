package main

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"jitterlab/internal/files"
)

// output is a file a command writes (files.Output), opened by
// [openOutput]; every output flag of every command goes through it. A
// stream is written in place as the command runs; a whole file replaces
// an existing one only when complete.
type output = files.Output

const (
	stream = files.Stream
	whole  = files.Whole
)

// temps are the temporary files of the whole outputs being written. A
// signal that ends the command (Ctrl-C, SIGTERM, SIGHUP; the commands
// that write whole outputs do not catch them) removes them before the
// process dies of it (watchTemps), so an interrupted command leaves no
// hidden .NAME.*.tmp file beside its output.
var temps = &files.Temps{}

func init() { temps.Watch = watchTemps }

// openOutput opens path for writing (files.Temps.Open): "-" is standard
// output; a whole output is written to a temporary file renamed over
// path by Commit.
func openOutput(path string, stdout io.Writer, mode files.Mode) (*output, error) {
	return temps.Open(path, stdout, mode)
}

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

// watchTemps starts the watch for an ending signal, once, before the
// first temporary file is created (files.Temps.Watch). A signal the
// command does not catch itself (no signalContext running) removes the
// files noted, then the process dies of the signal as it would have (exit
// status 128 + n).
func watchTemps() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, ending...)
	go func() {
		for sig := range ch {
			if signalHandlers.Load() > 0 || signalCaught.Swap(false) {
				continue // the command ends itself and aborts its outputs
			}
			temps.RemoveAll() // and holds them: no new file is noted, none is renamed in
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

// writeBuffered writes what write writes, buffered, whole to path ("-":
// standard output) and returns where to report it: stderr when the output
// went to stdout.
func writeBuffered(path string, stdout, stderr io.Writer, write func(io.Writer) error) (report io.Writer, err error) {
	toStdout, err := temps.WriteWhole(path, stdout, write)
	switch {
	case err != nil:
		return nil, err
	case toStdout:
		return stderr, nil
	}
	return stdout, nil
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
