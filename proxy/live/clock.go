package live

import "time"

// Clock is the wall clock a run reads: every time the user sees (the
// counter lines' stamps, the change log's times, the audit's periods,
// the screen's samples, a recording's bounds) comes from it, so a test
// drives it instead of sleeping. The relay's own I/O loop keeps the
// real clock.
type Clock interface {
	Now() time.Time
	// NewTicker is time.NewTicker's: a tick every d on C().
	NewTicker(d time.Duration) Ticker
	// After is time.After's: the time, once, d from now.
	After(d time.Duration) <-chan time.Time
}

// Ticker is what [Clock.NewTicker] returns.
type Ticker interface {
	C() <-chan time.Time
	Stop()
}

// System is the real wall clock.
var System Clock = systemClock{}

type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
func (systemClock) NewTicker(d time.Duration) Ticker       { return systemTicker{time.NewTicker(d)} }

type systemTicker struct{ t *time.Ticker }

func (t systemTicker) C() <-chan time.Time { return t.t.C }
func (t systemTicker) Stop()               { t.t.Stop() }
