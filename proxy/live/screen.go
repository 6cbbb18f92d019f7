package live

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// Screen is a live screen over a run's [Source] (cmd/lab's is a
// proxyscreen.View): Run shows it until q, a signal or Stop and returns
// io.EOF when the terminal went away; Signal is the signal that closed it
// (nil: none, q); Stop closes it from another goroutine.
type Screen interface {
	Run() error
	Signal() os.Signal
	Stop()
}

// screenGrace is how long the screen may take to close once the relay
// has stopped (a signal, --duration): it closes at its next tick, a tenth
// of a second. One that has not closed by then (a draw that never ends)
// is left behind, so that a signal always stops the proxy and closes its
// files.
const screenGrace = 2 * time.Second

// runScreen shows view while the relay runs (done reports its end) until
// q, a signal or the relay's end (--duration); q and signals stop the
// relay through stop. The change log goes to the source as it comes. It
// returns the signal that stopped it (nil: none) and the relay's error
// once the screen has closed.
func runScreen(view Screen, src *Source, rec *recorder, stop func(), done <-chan error, changes <-chan appliedChange, stderr io.Writer) (os.Signal, error) {
	ended := make(chan error, 1)
	quit := make(chan struct{})
	go func() {
		err := <-done
		src.mu.Lock()
		src.stopped = true
		src.mu.Unlock()
		ended <- err
	}()
	go func() {
		for {
			select {
			case c := <-changes:
				src.timeline(c)
			case <-quit:
				return
			}
		}
	}()
	shown := make(chan error, 1)
	go func() { shown <- view.Run() }()
	var verr, err error
	relayEnded, abandoned := false, false
	select {
	case verr = <-shown:
	case err = <-ended:
		relayEnded = true
		select {
		case verr = <-shown:
		case <-src.clock.After(screenGrace):
			abandoned = true
			go view.Stop() // it may wait for the draw for ever
			fmt.Fprintf(stderr, "lab proxy: the screen did not close within %v of the relay's end; stopping without it (if the terminal looks wrong, type reset)\n", screenGrace)
		}
	}
	stop()
	rec.mu.Lock()
	if rec.path != "" {
		fmt.Fprintf(stderr, "lab proxy: the recording R started, %s, is closed with the proxy\n", rec.path)
	}
	rec.mu.Unlock()
	close(quit)
	if !relayEnded {
		err = <-ended
	}
	var sig os.Signal
	if !abandoned {
		sig = view.Signal()
	}
	if errors.Is(verr, io.EOF) { // the terminal went away: a hangup, whichever came first
		io.WriteString(stderr, "lab proxy: stopped: the terminal went away\n")
		sig, verr = syscall.SIGHUP, nil
	}
	return sig, cmp.Or(verr, err)
}
