package capture

import (
	"net/netip"
	"strconv"
	"time"
)

// Dir is a direction on the link.
type Dir uint8

const (
	Up   Dir = iota // game client → server
	Down            // server → game client
)

func (d Dir) String() string {
	if d == Up {
		return "up"
	}
	return "down"
}

// Side is a capture interface: the end of the link where a datagram is
// seen. Interface 0 of a file is the client's side, 1 the server's.
type Side uint8

const (
	ClientSide Side = iota
	ServerSide
)

func (s Side) String() string {
	if s == ClientSide {
		return "client"
	}
	return "server"
}

// Fate is what became of one copy of a datagram.
type Fate uint8

const (
	NoCopy       Fate = iota // no such copy (the duplicate of a datagram that was not duplicated)
	Delivered                // reaches the far end (when sent: scheduled to, after Copy.Delay)
	Lost                     // dropped by the link model's loss
	QueueDropped             // dropped at the link model's queue limit
	OverLimit                // dropped by the relay at its in-flight limit, before the link model
	Discarded                // its flow was removed while it was in flight
	WriteFailed              // the relay's write to the far end failed
)

var fateNames = [...]string{"none", "delivered", "lost", "queue-dropped", "over-limit", "discarded", "write-failed"}

func (f Fate) String() string {
	if int(f) < len(fateNames) {
		return fateNames[f]
	}
	return "fate(" + strconv.Itoa(int(f)) + ")"
}

// Copy is what became of one copy of a sent datagram: its fate and, when
// it is delivered, the delay the link adds.
type Copy struct {
	Fate  Fate
	Delay time.Duration
}

// Event is one datagram seen at one end of the link: sent (Arrived false)
// at the end it leaves, or arrived at the end it reaches. Times are since
// the start of the session (true time) or of the relay (wall time).
type Event struct {
	Arrived bool
	At      time.Duration
	Dir     Dir
	Flow    uint64 // the relay's client flow; 0 in a simulated session
	Seq     uint64 // the link's send sequence number, from 1 (0: none)
	Kind    string // the message kind ("move_input"), "" when unknown
	Size    int    // the datagram's UDP payload size in bytes
	// Payload is the datagram's payload; nil writes the synthetic one
	// ([Payload]) of Size bytes.
	Payload []byte
	// Src and Dst are the datagram's addresses at this end; zero values
	// take the writer's (Options.Client, Options.Server).
	Src, Dst netip.AddrPort

	// Sent: what became of the original (Copies[0]) and of the duplicate
	// the link made, if any (Copies[1]).
	Copies [2]Copy

	// Arrived: the delay the link added (arrival − sending), whether it is
	// the duplicate copy, and whether it arrived after a datagram sent
	// later than it (reordered).
	Delay     time.Duration
	Duplicate bool
	Reordered bool
	// Late is how much later than its true time the event is stamped:
	// it reached an [Ordered] writer after later events were written
	// (0: on time). The comment says so.
	Late time.Duration
}

// Side is the capture interface that sees e: a sent datagram at the end
// it leaves, an arrived one at the end it reaches.
func (e *Event) Side() Side {
	if (e.Dir == Up) != e.Arrived {
		return ClientSide
	}
	return ServerSide
}

// Comment is the packet comment that says e's fate, e.g.
//
//	up #12 move_input: delivered, delay added 50.123456 ms
//	up #13 move_input: lost
//	down #40 player_state: duplicated: delivered, delay added 20 ms; copy delivered, delay added 31.5 ms
//	down #40 player_state: arrived, delay added 31.5 ms, duplicate, reordered
//
// Delays are exact to the nanosecond (no rounding, no floating point).
func (e *Event) Comment() string {
	b := make([]byte, 0, 96)
	return string(e.AppendComment(b))
}

// AppendComment appends [Event.Comment] to b.
func (e *Event) AppendComment(b []byte) []byte {
	b = e.appendFate(b)
	if e.Late > 0 {
		b = append(b, "; stamped "...)
		b = appendMs(b, e.Late)
		b = append(b, " late (after the capture's reorder window)"...)
	}
	return b
}

// appendFate appends the comment but for lateness.
func (e *Event) appendFate(b []byte) []byte {
	b = append(b, e.Dir.String()...)
	if e.Flow != 0 {
		b = append(b, " flow "...)
		b = strconv.AppendUint(b, e.Flow, 10)
	}
	if e.Seq != 0 {
		b = append(b, " #"...)
		b = strconv.AppendUint(b, e.Seq, 10)
	}
	if e.Kind != "" {
		b = append(b, ' ')
		b = append(b, e.Kind...)
	}
	b = append(b, ": "...)
	if e.Arrived {
		b = append(b, "arrived, delay added "...)
		b = appendMs(b, e.Delay)
		if e.Duplicate {
			b = append(b, ", duplicate"...)
		}
		if e.Reordered {
			b = append(b, ", reordered"...)
		}
		return b
	}
	if e.Copies[1].Fate != NoCopy {
		b = append(b, "duplicated: "...)
	}
	for i, c := range e.Copies {
		if c.Fate == NoCopy {
			continue
		}
		if i == 1 {
			b = append(b, "; copy "...)
		}
		b = append(b, c.Fate.String()...)
		if c.Fate == Delivered {
			b = append(b, ", delay added "...)
			b = appendMs(b, c.Delay)
		}
	}
	return b
}

// appendMs appends d in milliseconds with up to 6 decimals, trailing
// zeros dropped: 50123456ns is "50.123456 ms", 20ms is "20 ms".
func appendMs(b []byte, d time.Duration) []byte {
	if d < 0 {
		b = append(b, '-')
		d = -d
	}
	b = strconv.AppendInt(b, int64(d/time.Millisecond), 10)
	if frac := int64(d % time.Millisecond); frac != 0 {
		var digits [6]byte
		for i := 5; i >= 0; i-- {
			digits[i] = byte('0' + frac%10)
			frac /= 10
		}
		n := 6
		for n > 0 && digits[n-1] == '0' {
			n--
		}
		b = append(b, '.')
		b = append(b, digits[:n]...)
	}
	return append(b, " ms"...)
}
