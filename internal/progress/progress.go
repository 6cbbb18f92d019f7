package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// Line is a one-line progress report on a terminal. Its methods may be
// called from several goroutines (a batch's workers).
type Line struct {
	w    io.Writer
	on   bool
	now  func() time.Time
	what string // the command, "lab sweep"

	mu          sync.Mutex
	start, last time.Time
	shown       bool
	done, total int
	unit        string
	growing     bool // total counts what is queued so far (Queued)
}

// Quiet is how long a command runs before its line appears; Every is how
// often the line is redrawn after that.
const (
	Quiet = 2 * time.Second
	Every = 500 * time.Millisecond
)

// New starts a line naming what runs ("lab sweep") on w, drawn only when
// w is a terminal; now is the wall clock (time.Now).
func New(w io.Writer, what string, now func() time.Time) *Line {
	return newLine(w, Terminal(w), what, now)
}

func newLine(w io.Writer, on bool, what string, now func() time.Time) *Line {
	t := now()
	return &Line{w: w, on: on, now: now, what: what, start: t, last: t}
}

// Show draws text after the command's name, if the line is drawn and it is
// time to redraw.
func (l *Line) Show(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.show(text)
}

func (l *Line) show(text string) {
	if !l.on {
		return
	}
	t := l.now()
	if t.Sub(l.last) < Every || t.Sub(l.start) < Quiet {
		return
	}
	l.last, l.shown = t, true
	fmt.Fprintf(l.w, "\r\033[K%s: %s", l.what, text)
}

// Count notes that done of total units ("runs") are done and draws
// "12 of 40 runs  30%  ETA 9s".
func (l *Line) Count(done, total int, unit string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done, l.total, l.unit, l.growing = done, total, unit, false
	l.show(CountText(done, total, unit, l.now().Sub(l.start)))
}

// Queued notes that done of the units queued so far are done, where more
// may be queued later (a diagnosis's combination), and draws "12 of the
// 40 runs queued so far": no percentage, no ETA.
func (l *Line) Queued(done, queued int, unit string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done, l.total, l.unit, l.growing = done, queued, unit, true
	l.show(fmt.Sprintf("%d of the %d %s queued so far", done, queued, unit))
}

// CountText is "12 of 40 runs  30%  ETA 9s" after elapsed (no ETA before
// the first unit is done).
func CountText(done, total int, unit string, elapsed time.Duration) string {
	frac := float64(done) / float64(max(total, 1))
	text := fmt.Sprintf("%d of %d %s  %3.0f%%", done, total, unit, 100*frac)
	if done > 0 {
		eta := time.Duration(float64(elapsed) * (1 - frac) / frac)
		text += fmt.Sprintf("  ETA %v", eta.Round(time.Second))
	}
	return text
}

// Clear erases the line if it was drawn.
func (l *Line) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		fmt.Fprint(l.w, "\r\033[K")
		l.shown = false
	}
}

// Elapsed is the wall time since New.
func (l *Line) Elapsed() time.Duration { return l.now().Sub(l.start) }

// Canceled says what a stop left undone, from the last Count: "canceled
// after 12 of 40 runs (28 not run)", or Queued: "canceled after 12 of the
// 40 runs queued so far".
func (l *Line) Canceled() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.growing {
		return fmt.Sprintf("canceled after %d of the %d %s queued so far", l.done, l.total, l.unit)
	}
	return fmt.Sprintf("canceled after %d of %d %s (%d not run)", l.done, l.total, l.unit, l.total-l.done)
}

// Terminal reports whether w is a terminal (a character device).
func Terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
