package telemetry

import (
	"fmt"
	"time"

	"golang.org/x/time/rate"

	"jitterlab/internal/plural"
)

// Options bound a [Collector]. The zero value of a field takes its default.
type Options struct {
	Keep  int     // frames kept, and ticks kept, each in its own ring (default 4096: 28 s at 144 frames/s)
	Rate  float64 // datagrams decoded per second at most, over any second (default 5000)
	Burst int     // datagrams decoded at once after a quiet spell (default 1000)
}

// DefaultOptions are the bounds a zero Options takes.
var DefaultOptions = Options{Keep: 4096, Rate: 5000, Burst: 1000}

// Counts are a Collector's account: every datagram it was given is a frame,
// a tick, or refused in exactly one class.
type Counts struct {
	Frames, Ticks uint64
	Refused       [NumClasses]uint64
}

// Total is every datagram counted.
func (c Counts) Total() uint64 {
	n := c.Frames + c.Ticks
	for _, r := range c.Refused {
		n += r
	}
	return n
}

// RefusedTotal is every datagram refused, whatever the class.
func (c Counts) RefusedTotal() uint64 { return c.Total() - c.Frames - c.Ticks }

// Received is a decoded datagram and when it arrived.
type Received[T any] struct {
	At time.Time
	D  T
}

// ring keeps the latest len(buf) values.
type ring[T any] struct {
	buf  []T
	next int  // where the next goes
	full bool // buf has wrapped
}

func (r *ring[T]) put(v T) {
	r.buf[r.next] = v
	r.next++
	if r.next == len(r.buf) {
		r.next, r.full = 0, true
	}
}

// appendTo appends the kept values to dst, oldest first.
func (r *ring[T]) appendTo(dst []T) []T {
	if r.full {
		dst = append(dst, r.buf[r.next:]...)
	}
	return append(dst, r.buf[:r.next]...)
}

// Collector decodes datagrams and keeps the account: the latest frames and
// ticks, counts, and the first refusal of each class. It never reads a
// clock (each datagram comes with its arrival time) and its memory is set
// when it is made. It is not safe for concurrent use.
type Collector struct {
	opt      Options
	lim      *rate.Limiter
	frames   ring[Received[Frame]]
	ticks    ring[Received[Tick]]
	counts   Counts
	reported [NumClasses]bool
}

// NewCollector makes a Collector bounded by opt.
func NewCollector(opt Options) *Collector {
	if opt.Keep <= 0 {
		opt.Keep = DefaultOptions.Keep
	}
	if opt.Rate <= 0 {
		opt.Rate = DefaultOptions.Rate
	}
	if opt.Burst <= 0 {
		opt.Burst = DefaultOptions.Burst
	}
	return &Collector{
		opt:    opt,
		lim:    rate.NewLimiter(rate.Limit(opt.Rate), opt.Burst),
		frames: ring[Received[Frame]]{buf: make([]Received[Frame], opt.Keep)},
		ticks:  ring[Received[Tick]]{buf: make([]Received[Tick], opt.Keep)},
	}
}

// Collect takes one datagram that arrived at at. It returns the refusal
// when it is the first of its class (to report once), nil otherwise: a
// datagram decoded, or refused in a class already reported. A datagram
// beyond the rate is refused without being read.
func (c *Collector) Collect(at time.Time, b []byte) *Error {
	var d Datagram
	_, err := c.CollectInto(at, b, &d)
	return err
}

// CollectInto is Collect that also hands the datagram over: decoded
// reports whether it was, and then *d holds it.
func (c *Collector) CollectInto(at time.Time, b []byte, d *Datagram) (decoded bool, first *Error) {
	var err *Error
	if !c.lim.AllowN(at, 1) {
		c.counts.Refused[ClassOverRate]++
		if c.reported[ClassOverRate] {
			return false, nil
		}
		err = errorf(ClassOverRate, "", "more than %g datagrams a second (bursts of %d): the rest are counted, not read", c.opt.Rate, c.opt.Burst)
	} else {
		if e := Decode(b, d); e != nil {
			err = e.(*Error)
			c.counts.Refused[err.Class]++
		} else {
			switch d.Kind {
			case KindFrame:
				c.counts.Frames++
				c.frames.put(Received[Frame]{at, d.Frame})
			case KindTick:
				c.counts.Ticks++
				c.ticks.put(Received[Tick]{at, d.Tick})
			}
			return true, nil
		}
	}
	if c.reported[err.Class] {
		return false, nil
	}
	c.reported[err.Class] = true
	return false, err
}

// Counts is the account so far.
func (c *Collector) Counts() Counts { return c.counts }

// Frames appends the frames kept to dst, oldest first.
func (c *Collector) Frames(dst []Received[Frame]) []Received[Frame] { return c.frames.appendTo(dst) }

// FramesAfter appends to dst the frames kept that were decoded after the
// first n, oldest first, and returns how many were decoded in all: given
// back as n, it hands each frame over once (those the ring no longer
// holds are skipped).
func (c *Collector) FramesAfter(dst []Received[Frame], n uint64) ([]Received[Frame], uint64) {
	total := c.counts.Frames
	if n >= total {
		return dst, total
	}
	k := len(dst)
	dst = c.frames.appendTo(dst)
	if kept := uint64(len(dst) - k); total-n < kept {
		dst = append(dst[:k], dst[k+int(kept-(total-n)):]...)
	}
	return dst, total
}

// Ticks appends the ticks kept to dst, oldest first.
func (c *Collector) Ticks(dst []Received[Tick]) []Received[Tick] { return c.ticks.appendTo(dst) }

// Summary is the account in one line: "120 frames and 0 server ticks
// decoded; 3 datagrams refused: 2 not JSON, 1 too long" (classes in
// Class order, only those seen).
func (c Counts) Summary() string {
	s := fmt.Sprintf("%s and %s decoded", plural.Of(c.Frames, "frame"), plural.Of(c.Ticks, "server tick"))
	n := c.RefusedTotal()
	if n == 0 {
		return s + "; none refused"
	}
	s += fmt.Sprintf("; %s refused:", plural.Of(n, "datagram"))
	sep := " "
	for cl, k := range c.Refused {
		if k > 0 {
			s += fmt.Sprintf("%s%d %s", sep, k, Class(cl))
			sep = ", "
		}
	}
	return s
}
