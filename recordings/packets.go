package recordings

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"jitterlab/sim"
)

// KindProxy is Header.Kind of a proxy recording: the relayed traffic of
// 'lab proxy', packet by packet, in wall time since the relay started.
// Nothing re-simulates it (the traffic was real), so it has no samples and
// verify does not apply. A session recording has Kind "".
const KindProxy = "proxy"

// PacketFate is what became of one copy of a relayed datagram.
type PacketFate uint8

const (
	PacketDelivered    PacketFate = 1 + iota // written on to the far end
	PacketLost                               // dropped by the link model's loss
	PacketQueueDropped                       // dropped at the link model's queue limit
	PacketOverLimit                          // dropped at the relay's in-flight limit
	PacketDiscarded                          // its flow was gone
	PacketWriteFailed                        // the relay's write failed
	numFates
)

var packetFateNames = [numFates]string{"", "delivered", "lost", "queue_dropped", "over_limit", "discarded", "write_failed"}

func (f PacketFate) String() string {
	if f > 0 && f < numFates {
		return packetFateNames[f]
	}
	return fmt.Sprintf("fate(%d)", uint8(f))
}

// Out says whether a copy of this fate was released by the link: it has a
// time out and a scheduled delay.
func (f PacketFate) Out() bool { return f == PacketDelivered || f == PacketWriteFailed }

// Packet is one copy of a datagram the relay handled: read at In, and,
// when the link released it (Delivered, WriteFailed), written at Out after
// the link's Scheduled delay; Out − In is the delay the relay really
// added. At is the record's time: when the relay accounted for it (Out,
// or In for a copy that was dropped), never before the previous packet's
// At. Times are wall time since the relay started.
type Packet struct {
	At        sim.Time
	In, Out   sim.Time // Out is 0 unless Fate.Out()
	Scheduled time.Duration
	Dir       uint8 // 0 up (client → server), 1 down
	Copy      uint8 // 1 for the link's duplicate
	Reordered bool  // released after a datagram read later than it
	Fate      PacketFate
	Flow      uint64
	Size      int // payload bytes
}

// Packet coding. A frame's packets are one block of integer columns, each
// value the zigzag varint of its change since the previous packet of the
// block: at (ns), at − in, at − out, the lateness (out − in − the
// scheduled delay), the flow, the size, and the bits: fate | dir<<3 |
// copy<<4 | reordered<<5. For a dropped copy at − out and the lateness are
// 0; for a released one at − out is nearly always 0 (it is recorded when
// written) and the lateness small, so the columns cost little.
const (
	pAt = iota
	pBack
	pOutBack
	pLate
	pFlow
	pSize
	pBits
	numPacketColumns
)

// maxPacketSize bounds a packet's size: a UDP datagram.
const maxPacketSize = 65535

// packetRow is a packet as its columns.
type packetRow [numPacketColumns]int64

func (p *Packet) row() packetRow {
	bits := int64(p.Fate) | int64(p.Dir)<<3 | int64(p.Copy)<<4
	if p.Reordered {
		bits |= 1 << 5
	}
	var outBack, late int64
	if p.Fate.Out() {
		outBack, late = int64(p.At-p.Out), int64(p.Out-p.In)-int64(p.Scheduled)
	}
	return packetRow{int64(p.At), int64(p.At - p.In), outBack, late, int64(p.Flow), int64(p.Size), bits}
}

func (r *packetRow) packet() Packet {
	p := Packet{At: sim.Time(r[pAt]), Flow: uint64(r[pFlow]), Size: int(r[pSize]),
		Fate: PacketFate(r[pBits] & 7), Dir: uint8(r[pBits] >> 3 & 1), Copy: uint8(r[pBits] >> 4 & 1), Reordered: r[pBits]>>5&1 == 1}
	p.In = p.At - sim.Time(r[pBack])
	if p.Fate.Out() {
		p.Out = p.At - sim.Time(r[pOutBack])
		p.Scheduled = time.Duration(r[pBack] - r[pOutBack] - r[pLate])
	}
	return p
}

// check refuses a packet no relay can have made, so what reads is what
// the writer takes back.
func (r *packetRow) check() error {
	f := PacketFate(r[pBits] & 7)
	switch {
	case r[pAt] < 0 || r[pAt] >= int64(maxAt):
		return fmt.Errorf("packet time %d ns out of range", r[pAt])
	case r[pBack] < 0 || r[pBack] > r[pAt]:
		return fmt.Errorf("packet read %d ns before its record at %d ns: allowed 0 to the record's time", r[pBack], r[pAt])
	case r[pOutBack] < 0 || r[pOutBack] > r[pBack] || !f.Out() && r[pOutBack] != 0:
		return fmt.Errorf("packet written %d ns before its record: allowed 0 to when it was read, and only when released", r[pOutBack])
	case !f.Out() && r[pLate] != 0:
		return errors.New("a packet late but not released")
	case f.Out() && (r[pLate] > r[pBack]-r[pOutBack] || r[pLate] <= r[pBack]-r[pOutBack]-int64(maxAt)):
		return fmt.Errorf("packet scheduled delay %d ns: allowed 0 to %d", r[pBack]-r[pOutBack]-r[pLate], int64(maxAt))
	case r[pFlow] < 0:
		return fmt.Errorf("packet flow %d out of range", r[pFlow])
	case r[pSize] < 0 || r[pSize] > maxPacketSize:
		return fmt.Errorf("packet size %d: allowed 0 to %d", r[pSize], maxPacketSize)
	case f == 0 || f >= numFates || r[pBits]>>6 != 0:
		return fmt.Errorf("packet bits %#x: no such fate", r[pBits])
	case r[pBits]>>5&1 == 1 && !f.Out():
		return errors.New("a packet reordered but not released")
	}
	return nil
}

// checkPacket is what the writer refuses: what check would.
func checkPacket(p *Packet) error {
	switch {
	case p.Fate == 0 || p.Fate >= numFates:
		return fmt.Errorf("a packet of fate %d: no such fate", uint8(p.Fate))
	case p.In < 0 || p.In > p.At:
		return fmt.Errorf("a packet read at %v and recorded at %v: read between 0 and its record's time", p.In, p.At)
	case p.Fate.Out() && (p.Out < p.In || p.Out > p.At):
		return fmt.Errorf("a packet read at %v, written at %v and recorded at %v: written between the two", p.In, p.Out, p.At)
	case p.Dir > 1 || p.Copy > 1:
		return fmt.Errorf("a packet of direction %d, copy %d: allowed 0 or 1", p.Dir, p.Copy)
	case p.Flow > 1<<63-1:
		return fmt.Errorf("a packet of flow %d: allowed up to %d", p.Flow, uint64(1<<63-1))
	case p.Scheduled < 0 || p.Scheduled >= time.Duration(maxAt):
		return fmt.Errorf("a packet scheduled after %v: allowed 0 to %v", p.Scheduled, time.Duration(maxAt))
	case !p.Fate.Out() && (p.Scheduled != 0 || p.Reordered || p.Out != 0):
		return fmt.Errorf("a %v packet with a scheduled delay, reordered or a time out: only released packets have them", p.Fate)
	}
	r := p.row()
	return r.check()
}

// packetBlockWriter collects a frame's packets column by column.
type packetBlockWriter struct {
	n       int
	prev    packetRow
	streams [numPacketColumns][]byte
}

func (bw *packetBlockWriter) add(r *packetRow) {
	bw.n++
	for c := range numPacketColumns {
		bw.streams[c] = binary.AppendVarint(bw.streams[c], r[c]-bw.prev[c])
	}
	bw.prev = *r
}

func (bw *packetBlockWriter) size() int { return blockSize(bw.streams[:]) }

// appendTo appends the block (appendBlock) and empties bw.
func (bw *packetBlockWriter) appendTo(b []byte) []byte {
	b = appendBlock(b, bw.n, bw.streams[:])
	bw.n, bw.prev = 0, packetRow{}
	return b
}

// packetBlockReader reads a packet block back one row at a time.
type packetBlockReader struct {
	n        int
	prev     packetRow
	b        []byte
	pos, end [numPacketColumns]int
}

var errBadPackets = errors.New("malformed packet block")

func newPacketBlockReader(b []byte) (*packetBlockReader, error) {
	br := &packetBlockReader{}
	var err error
	if br.n, br.b, err = splitBlock(b, br.pos[:], br.end[:], "packet", errBadPackets); err != nil {
		return nil, err
	}
	return br, nil
}

// next decodes the next row; ok is false after the last one.
func (br *packetBlockReader) next() (r packetRow, ok bool, err error) {
	if br.n == 0 {
		if br.pos != br.end {
			return r, false, errBadPackets
		}
		return r, false, nil
	}
	br.n--
	for c := range numPacketColumns {
		d, k := binary.Varint(br.b[br.pos[c]:br.end[c]])
		if k <= 0 {
			return r, false, errBadPackets
		}
		br.pos[c] += k
		r[c] = br.prev[c] + d
	}
	br.prev = r
	return r, true, r.check()
}
