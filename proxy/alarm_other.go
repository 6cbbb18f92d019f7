//go:build !linux

package proxy

import (
	"errors"
	"sync"
	"time"
)

// alarm wakes Run's goroutine at a release time: a Go timer here (Linux
// uses a timerfd, to the microsecond).
type alarm struct {
	t      *time.Timer
	closed chan struct{}
	once   sync.Once
}

func newAlarm() (*alarm, error) {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &alarm{t: t, closed: make(chan struct{})}, nil
}

func (a *alarm) set(d time.Duration) { a.t.Reset(max(d, 0)) }

func (a *alarm) wait() error {
	select {
	case <-a.t.C:
		return nil
	case <-a.closed:
		return errors.New("alarm closed")
	}
}

func (a *alarm) close() { a.once.Do(func() { close(a.closed) }) }
