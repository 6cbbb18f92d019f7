package netem

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"jitterlab/param"
	"jitterlab/sim"
)

// Slot is netem's slotted release (`slot MIN [MAX] [packets N] [bytes N]`,
// sch_netem.c get_slot_next and netem_dequeue), the way Wi-Fi and DOCSIS
// aggregate frames: packets are held until the next slot opens and leave
// together. A slot opens a delay drawn uniformly in [Min, Max) after the
// previous one closed, or, when no packet was waiting, after the first
// packet is ready; it passes packets until Packets of them or Bytes bytes
// have left (0 = no limit; the packet that crosses the byte budget still
// leaves), then the next slot is drawn from that moment. Max 0 turns slots
// off; Max < Min is invalid.
type Slot struct {
	Min, Max time.Duration
	Packets  int
	Bytes    int
}

// On reports whether slots are in force.
func (s Slot) On() bool { return s.Max > 0 }

// String writes the slot as [ParseSlot] reads it back, in netem's syntax.
func (s Slot) String() string {
	if !s.On() {
		return "0"
	}
	out := param.FormatDuration(s.Min)
	if s.Max != s.Min {
		out += " " + param.FormatDuration(s.Max)
	}
	if s.Packets > 0 {
		out += " packets " + strconv.Itoa(s.Packets)
	}
	if s.Bytes > 0 {
		out += " bytes " + strconv.Itoa(s.Bytes)
	}
	return out
}

// MaxSlot bounds a slot's delay.
const MaxSlot = 10 * time.Second

// ParseSlot reads netem's syntax: "MIN [MAX] [packets N] [bytes N]", or
// "0" for none. The error names key.
func ParseSlot(key, v string) (Slot, error) {
	allowed := fmt.Sprintf("0 (none) or netem's MIN [MAX] [packets N] [bytes N], durations in [0, %v], e.g. \"5ms 15ms packets 8\"", MaxSlot)
	f := strings.Fields(v)
	if len(f) == 1 && (f[0] == "0" || f[0] == "off") {
		return Slot{}, nil
	}
	bad := &param.Error{Key: key, Value: v, Allowed: allowed}
	var s Slot
	if len(f) == 0 {
		return Slot{}, bad
	}
	dur := func(t string) (time.Duration, bool) {
		d, err := param.Duration(key, t)
		return d, err == nil && d <= MaxSlot
	}
	var ok bool
	if s.Min, ok = dur(f[0]); !ok {
		return Slot{}, bad
	}
	s.Max, f = s.Min, f[1:]
	if len(f) > 0 && f[0] != "packets" && f[0] != "bytes" {
		if s.Max, ok = dur(f[0]); !ok {
			return Slot{}, bad
		}
		f = f[1:]
	}
	for len(f) > 0 {
		if len(f) < 2 {
			return Slot{}, bad
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 || n > MaxShapeBytes {
			return Slot{}, bad
		}
		switch f[0] {
		case "packets":
			s.Packets = n
		case "bytes":
			s.Bytes = n
		default:
			return Slot{}, bad
		}
		f = f[2:]
	}
	if s.Max < s.Min || !s.On() {
		return Slot{}, bad
	}
	return s, nil
}

func (s Slot) validate() string {
	switch {
	case s.Min < 0 || s.Max < s.Min || s.Max > MaxSlot:
		return fmt.Sprintf("0 ≤ MIN ≤ MAX ≤ %v", MaxSlot)
	case s.Packets < 0 || s.Bytes < 0 || s.Bytes > MaxShapeBytes:
		return "packets and bytes ≥ 0"
	}
	return ""
}

// slotter is the slot stage's state.
type slotter struct {
	cfg     Slot
	next    sim.Time // when the current slot opens
	open    bool     // next is set (the first packet draws it)
	pkts    int
	bytes   int
	lastIn  sim.Time
	lastOut sim.Time // latest departure: a new configuration starts after it
	r       *rand.Rand
}

func (s *slotter) configure(c Slot) {
	if c != s.cfg {
		s.cfg, s.open = c, false
	}
}

func (s *slotter) draw(from sim.Time) {
	d := s.cfg.Min
	if s.cfg.Max > s.cfg.Min {
		d += time.Duration(s.r.Int64N(int64(s.cfg.Max - s.cfg.Min)))
	}
	s.next, s.open = from.Add(d), true
	s.pkts, s.bytes = s.cfg.Packets, s.cfg.Bytes
}

// send returns when a packet of size bytes, ready at in, leaves in a slot;
// ok=false when it would wait more than MaxBacklog (dropped at the queue).
func (s *slotter) send(in sim.Time, size int) (out sim.Time, ok bool) {
	in = max(in, s.lastIn)
	s.lastIn = in
	switch {
	case !s.open:
		// First packet, or new slot parameters: packets already held keep
		// their slot; the new slots start after the last of them.
		s.draw(max(in, s.lastOut))
	case s.next < in:
		s.draw(in)
	}
	if s.next.Sub(in) > MaxBacklog {
		return 0, false
	}
	out = s.next
	s.lastOut = out
	s.pkts--
	s.bytes -= size
	if (s.cfg.Packets > 0 && s.pkts <= 0) || (s.cfg.Bytes > 0 && s.bytes <= 0) {
		s.draw(out)
	}
	return out, true
}
