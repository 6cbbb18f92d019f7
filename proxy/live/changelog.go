package live

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	proxyctl "jitterlab/proxy/control"
)

// errCaptureStopped is what a capture that failed mid-run does then.
var errCaptureStopped = errors.New("nothing more is written to it; the relay goes on")

// appliedChange is a scheduled change as it applied, or (by "API") a
// control API request as it was answered (err: refused), or (by
// "capture") a capture's file that failed (What) and errCaptureStopped,
// or (by "telemetry") a telemetry datagram refused.
type appliedChange struct {
	ch     proxyctl.Timed
	err    error
	at     time.Time
	by     string
	missed uint64 // entries not logged before this one (see changeLog)
}

// changeLog is the run's change log: a bounded queue the counter lines or
// the screen read. An entry that finds it full is not kept but counted,
// and the next entry kept says how many went before it (missed); the
// summary says how many in all.
type changeLog struct {
	ch      chan appliedChange
	clock   Clock
	pending atomic.Uint64 // entries not kept since the last kept
	lost    atomic.Uint64 // in all
}

func newChangeLog(n int, clock Clock) *changeLog {
	return &changeLog{ch: make(chan appliedChange, n), clock: clock}
}

// log keeps a change made now.
func (l *changeLog) log(ch proxyctl.Timed, err error, by string) {
	l.add(appliedChange{ch: ch, err: err, at: l.clock.Now(), by: by})
}

// add keeps c, or counts it when the log is full.
func (l *changeLog) add(c appliedChange) {
	c.missed = l.pending.Swap(0)
	select {
	case l.ch <- c:
	default:
		l.pending.Add(c.missed + 1)
		l.lost.Add(1)
	}
}

// apiLog hands the control API's requests, as answered, to the change
// log: the counter lines print them, the screen's c lists them.
func (l *changeLog) apiLog(what string, err error) {
	l.log(proxyctl.Timed{What: what}, err, "API")
}

// missedText is what a log line says of the entries not kept before it.
func missedText(n uint64) string {
	if n == 1 {
		return "(1 entry before this one not logged: the log was full) "
	}
	return fmt.Sprintf("(%d entries before this one not logged: the log was full) ", n)
}
