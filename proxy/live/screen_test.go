package live

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// frozenView is a screen whose draw never ends: Run returns only once
// Stop is called (which a real frozen screen would not even do).
type frozenView struct{ stopped chan struct{} }

func (f *frozenView) Run() error        { <-f.stopped; return nil }
func (f *frozenView) Signal() os.Signal { return nil }
func (f *frozenView) Stop()             { close(f.stopped) }

// Signals stop the proxy whatever the screen does (issue 27.3): the relay
// stops on a signal by itself, and once it has, a screen that has not
// closed within screenGrace (a draw that never ends) is left behind, so
// the proxy goes on to close its files and print its summary. synctest's
// clock.
func TestProxyStopsWhenItsScreenIsFrozen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		view := &frozenView{stopped: make(chan struct{})}
		done := make(chan error, 1)
		var stderr strings.Builder
		stopped := false
		returned := make(chan struct{})
		start := time.Now()
		go func() {
			runScreen(view, &Source{clock: System}, &recorder{}, func() { stopped = true }, done, make(chan appliedChange), &stderr)
			close(returned)
		}()
		synctest.Wait()
		done <- nil // the relay stopped: a signal cancelled its context
		<-returned
		if waited := time.Since(start); waited != screenGrace {
			t.Errorf("returned after %v; want screenGrace, %v", waited, screenGrace)
		}
		if !stopped || !strings.Contains(stderr.String(), "the screen did not close") {
			t.Errorf("stop called %v; stderr %q", stopped, stderr.String())
		}
	})
}

// The change log never drops an entry silently (issue 27, LOW): when it
// is full an entry is counted, the next one kept says how many went
// before it, on the counter lines and on the screen's c alike.
func TestChangeLogSaysWhatItDropped(t *testing.T) {
	l := newChangeLog(2, System)
	log := l.apiLog
	for i := range 5 {
		log(fmt.Sprintf("PUT /params: up.loss=%d%%", i), nil)
	}
	<-l.ch
	<-l.ch
	log("PUT /params: up.loss=9%", nil)
	c := <-l.ch
	if c.missed != 3 || l.lost.Load() != 3 {
		t.Fatalf("the entry after 3 dropped says %d missed, %d lost in all; want 3, 3", c.missed, l.lost.Load())
	}
	src := &Source{clock: System}
	src.timeline(c)
	if got := src.changes[0].What; got != "(3 entries before this one not logged: the log was full) PUT /params: up.loss=9%" {
		t.Errorf("the screen's entry %q", got)
	}
}
