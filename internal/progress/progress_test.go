package progress

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeClock is a wall clock the test advances.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// On a terminal: nothing for the first two seconds, then the count, at
// most every half second, erased by Clear.
func TestLineOnATerminal(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Unix(1000, 0)}
	l := newLine(&b, true, "lab sweep", c.now)
	c.advance(time.Second)
	l.Count(5, 40, "runs")
	if b.Len() != 0 {
		t.Fatalf("drawn before two seconds: %q", b.String())
	}
	c.advance(time.Second) // 2 s: 10 of 40 in 2 s, 6 s to go
	l.Count(10, 40, "runs")
	if want := "\r\033[Klab sweep: 10 of 40 runs   25%  ETA 6s"; b.String() != want {
		t.Fatalf("drew %q, want %q", b.String(), want)
	}
	b.Reset()
	c.advance(100 * time.Millisecond)
	l.Count(11, 40, "runs")
	if b.Len() != 0 {
		t.Fatalf("redrawn after 100 ms: %q", b.String())
	}
	if got := l.Canceled(); got != "canceled after 11 of 40 runs (29 not run)" {
		t.Errorf("Canceled: %q", got)
	}
	c.advance(time.Second)
	l.Queued(12, 40, "runs")
	if want := "\r\033[Klab sweep: 12 of the 40 runs queued so far"; b.String() != want {
		t.Errorf("Queued drew %q, want %q", b.String(), want)
	}
	if got := l.Canceled(); got != "canceled after 12 of the 40 runs queued so far" {
		t.Errorf("Canceled after Queued: %q", got)
	}
	b.Reset()
	l.Clear()
	if b.String() != "\r\033[K" {
		t.Errorf("Clear wrote %q", b.String())
	}
}

// Piped (not a terminal): nothing ever, not even Clear's erase.
func TestLineNotATerminal(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Unix(1000, 0)}
	l := New(&b, "lab ab", c.now)
	for i := range 10 {
		c.advance(time.Second)
		l.Count(i, 10, "runs")
	}
	l.Clear()
	if b.Len() != 0 {
		t.Fatalf("wrote %q to a non-terminal", b.String())
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if Terminal(w) || Terminal(&b) {
		t.Error("a pipe or a buffer taken for a terminal")
	}
}

func TestCountText(t *testing.T) {
	cases := []struct {
		done, total int
		elapsed     time.Duration
		want        string
	}{
		{0, 40, 0, "0 of 40 runs    0%"},
		{10, 40, 2 * time.Second, "10 of 40 runs   25%  ETA 6s"},
		{40, 40, 8 * time.Second, "40 of 40 runs  100%  ETA 0s"},
	}
	for _, c := range cases {
		if got := CountText(c.done, c.total, "runs", c.elapsed); got != c.want {
			t.Errorf("CountText(%d, %d, %v) = %q, want %q", c.done, c.total, c.elapsed, got, c.want)
		}
	}
	if strings.Contains(CountText(0, 0, "runs", 0), "NaN") {
		t.Error("NaN for no runs")
	}
}
