package widget

import (
	"os"
	"sync/atomic"
	"time"

	"github.com/rivo/tview"
)

// Clock is the one goroutine of a screen (the lab, the replay viewer, the
// proxy's) that reads wall time: it hands the time elapsed between ticks
// to the event loop,
// where advance moves the session or the cursor on and the screen is
// redrawn (so redraws are coalesced at the tick rate). While the view is
// idle (paused, or at its end) it takes no ticks at all, so an idle view
// costs no CPU until a key or a resize (tview redraws those itself).
type Clock struct {
	idle atomic.Bool
	wake chan struct{}
}

func NewClock() *Clock { return &Clock{wake: make(chan struct{}, 1)} }

// Idle says whether the clock takes no ticks now.
func (c *Clock) Idle() bool { return c.idle.Load() }

// SetIdle is called on the event loop after every change of state.
func (c *Clock) SetIdle(idle bool) {
	if c.idle.Swap(idle) && !idle {
		select {
		case c.wake <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
}

// Run runs app with ticks (time.Ticker's, or a test's) handed to advance
// until app stops, or until a signal from sigs (nil: none) stops it; it
// returns the signal, if one stopped it, and app.Run's error: io.EOF when
// the terminal went away ([TerminalGone]), whatever the read said.
//
// tview's QueueUpdate returns only once the loop has run the update, so a
// tick in flight when the loop ends would block forever: run therefore
// does not wait for the goroutine; it exits at its next wake-up. Signals
// are watched by a goroutine of their own, never behind a tick waiting
// for a draw.
func (c *Clock) Run(app *tview.Application, ticks <-chan time.Time, start time.Time, sigs <-chan os.Signal, advance func(time.Duration)) (os.Signal, error) {
	stop := make(chan struct{})
	var got atomic.Value
	go func() {
		select {
		case sig := <-sigs:
			got.Store(sig)
			app.Stop() // safe from any goroutine; restores the terminal
		case <-stop:
		}
	}()
	go func() {
		last := start
		resync := false
		for {
			if c.idle.Load() {
				select {
				case <-stop:
					return
				case <-c.wake:
				}
				// Drop the tick a time.Ticker buffered meanwhile and
				// time from the next one.
				for drained := false; !drained; {
					select {
					case <-ticks:
					default:
						drained = true
					}
				}
				resync = true
				continue
			}
			select {
			case <-stop:
				return
			case now := <-ticks:
				d := now.Sub(last)
				last = now
				if resync || c.idle.Load() {
					resync = false
					continue
				}
				app.QueueUpdateDraw(func() { advance(d) })
			}
		}
	}()
	err := app.Run()
	close(stop)
	sig, _ := got.Load().(os.Signal)
	return sig, TerminalGone(err)
}
