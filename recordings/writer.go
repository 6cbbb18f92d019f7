package recordings

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/zstd"

	"jitterlab/metrics"
	"jitterlab/sim"
)

// Header is what a recording needs to be re-simulated: every parameter as
// the registry spells it, the custom input script if any, the sample
// period. It holds nothing from the wall clock, so the same session
// records the same bytes. Scenario and Source are for reference: nothing
// re-simulates them, so verify cannot vouch for them.
type Header struct {
	Version  int         `json:"version"`
	Kind     string      `json:"kind,omitempty"`   // "" a session, KindProxy the proxy's relayed packets
	Scenario string      `json:"scenario"`         // the name it was started with
	Source   string      `json:"source,omitempty"` // the scenario file's text, for reference
	Seed     uint64      `json:"seed"`
	EveryNs  int64       `json:"every_ns"`           // sample period
	Params   [][2]string `json:"params"`             // key, value in registry order
	Segments []Segment   `json:"segments,omitempty"` // custom input script
}

// Segment is one custom input script segment.
type Segment struct {
	DurNs    int64   `json:"dur_ns"`
	Turn     float64 `json:"turn"`
	Throttle float64 `json:"throttle"`
}

// End closes a recording: the last true time, the run's summary, and what
// the writer counted: the time of the first sample and how many samples
// there are, so a reader can tell a whole recording from a cut one.
type End struct {
	At      sim.Time `json:"at_ns"`
	First   sim.Time `json:"first_sample_ns"`
	Samples int64    `json:"samples"`
	Packets int64    `json:"packets,omitempty"`
	// Telemetry counts the telemetry datagrams recorded (a proxy
	// recording's, with --telemetry).
	Telemetry int64           `json:"telemetry,omitempty"`
	Summary   json.RawMessage `json:"summary,omitempty"`
}

// Writer writes a recording. Records are buffered and written as one zstd
// frame per FrameSpan of true time (or sooner, when a frame reaches the
// format's bounds), so a crash loses at most the open frame. The header
// frame is written at once.
type Writer struct {
	w          io.Writer
	enc        *zstd.Encoder
	raw        []byte
	comp       []byte
	start, end sim.Time
	frameUntil sim.Time
	empty      bool
	records    int
	block      blockWriter
	packets    packetBlockWriter
	npackets   int64
	lastPacket sim.Time
	ntel       int64
	lastTel    sim.Time
	tail       []byte // the end record, after the samples
	scratch    []byte
	first      sim.Time
	samples    int64
	changes    int
	lastSample sim.Time // -1 before the first
	lastChange sim.Time
	floor      sim.Time // the end of the last frame written: nothing may go before it
	offset     int64
	seq        int64 // the next frame's sequence number
	err        error
}

// NewWriter writes h as the first frame.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return nil, err
	}
	h.Version = Version
	js, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if len(js) > maxHeader {
		return nil, fmt.Errorf("recording header is %d bytes; at most %d", len(js), maxHeader)
	}
	rw := &Writer{w: w, enc: enc, empty: true, frameUntil: sim.Time(FrameSpan), lastSample: -1, lastChange: -1}
	rw.record(recHeader, 0, js)
	if err := rw.flush(); err != nil {
		return nil, err
	}
	return rw, nil
}

// note counts a record at at into the open frame. Each kind of record
// goes forward on its own, so a record may come before the frame's first:
// the frame starts at its earliest.
func (w *Writer) note(at sim.Time) {
	if w.empty {
		w.start, w.empty = at, false
	}
	w.start = min(w.start, at)
	w.end = max(w.end, at)
	w.records++
}

func appendRecord(b []byte, typ byte, payload []byte) []byte {
	b = append(b, typ)
	b = binary.AppendUvarint(b, uint64(len(payload)))
	return append(b, payload...)
}

func (w *Writer) record(typ byte, at sim.Time, payload []byte) {
	w.note(at)
	w.raw = appendRecord(w.raw, typ, payload)
}

// roll flushes the open frame when at passes its span.
func (w *Writer) roll(at sim.Time) {
	if w.err == nil && at >= w.frameUntil && !w.empty {
		w.err = w.flush()
	}
	if at >= w.frameUntil {
		w.frameUntil = (at/sim.Time(FrameSpan) + 1) * sim.Time(FrameSpan)
	}
	if w.err == nil && !w.empty && (w.records >= maxFrameRecords || len(w.raw)+w.block.size()+w.packets.size() >= flushAt) {
		w.err = w.flush()
	}
}

// Sample records one sample.
func (w *Writer) Sample(s *metrics.Sample) error {
	if w.err != nil {
		return w.err
	}
	if !(s.TS >= 0 && s.TS < maxTS) {
		return fmt.Errorf("recording: a sample at %v s: allowed 0 to %v s", s.TS, maxTS)
	}
	var r row
	r, w.scratch = quantise(s, w.scratch)
	at := r.at()
	if at <= w.lastSample || at < w.floor {
		return fmt.Errorf("recording: a sample at %v after one at %v: samples go forward in time", at, max(w.lastSample, w.floor))
	}
	if w.roll(at); w.err != nil {
		return w.err
	}
	w.lastSample = at
	if w.samples == 0 {
		w.first = at
	}
	w.samples++
	w.note(at)
	w.block.add(&r)
	return nil
}

// Packet records one relayed packet (a proxy recording). Packets go
// forward in At.
func (w *Writer) Packet(p *Packet) error {
	if w.err != nil {
		return w.err
	}
	if err := checkPacket(p); err != nil {
		return fmt.Errorf("recording: %w", err)
	}
	if p.At < w.lastPacket || p.At < w.floor {
		return fmt.Errorf("recording: a packet at %v after one at %v: packets go forward in time", p.At, max(w.lastPacket, w.floor))
	}
	if w.roll(p.At); w.err != nil {
		return w.err
	}
	w.lastPacket = p.At
	w.npackets++
	w.note(p.At)
	r := p.row()
	w.packets.add(&r)
	return nil
}

// Change records one parameter change.
func (w *Writer) Change(c Change) error {
	if w.err != nil {
		return w.err
	}
	switch {
	case w.changes >= MaxChanges:
		return fmt.Errorf("recording: more than %d parameter changes; a recording holds at most %d", MaxChanges, MaxChanges)
	case len(c.Key) > maxString || len(c.Value) > maxString:
		return fmt.Errorf("recording: change %q = %q: keys and values are at most %d bytes", c.Key, c.Value, maxString)
	case c.At < 0 || c.At >= maxAt:
		return fmt.Errorf("recording: change %s at %v: allowed 0 to %v", c.Key, c.At, sim.Time(maxAt))
	case c.At < w.lastChange || c.At < w.floor:
		return fmt.Errorf("recording: change %s at %v after one at %v: changes go forward in time", c.Key, c.At, max(w.lastChange, w.floor))
	}
	w.changes++
	w.lastChange = c.At
	w.roll(c.At)
	w.record(recChange, c.At, encodeChange(nil, c))
	return w.err
}

// Close records the end and flushes. It does not close the underlying
// writer.
func (w *Writer) Close(e End) error {
	if w.err != nil {
		return w.err
	}
	if e.At >= maxAt {
		return fmt.Errorf("recording: the end at %v: allowed up to %v", e.At, sim.Time(maxAt))
	}
	if last := max(w.floor, w.lastSample, w.lastChange, w.lastPacket, w.lastTel); e.At < last {
		return fmt.Errorf("recording: the end at %v is before the last record at %v", e.At, last)
	}
	e.First, e.Samples, e.Packets, e.Telemetry = w.first, w.samples, w.npackets, w.ntel
	js, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if len(js) > maxEndRecord {
		return fmt.Errorf("recording end record is %d bytes; at most %d", len(js), maxEndRecord)
	}
	if w.roll(e.At); w.err != nil {
		return w.err
	}
	w.note(e.At)
	w.tail = appendRecord(w.tail[:0], recEnd, js)
	if err := w.flush(); err != nil {
		return err
	}
	w.err = errors.New("recording closed")
	return nil
}

// flush writes the open frame with its index entry.
func (w *Writer) flush() error {
	if w.empty {
		return nil
	}
	if w.block.n > 0 {
		w.scratch = w.block.appendTo(w.scratch[:0])
		w.raw = appendRecord(w.raw, recSamples, w.scratch)
	}
	if w.packets.n > 0 {
		w.scratch = w.packets.appendTo(w.scratch[:0])
		w.raw = appendRecord(w.raw, recPackets, w.scratch)
	}
	w.raw = append(w.raw, w.tail...)
	w.tail = w.tail[:0]
	if len(w.raw) > maxDecompressed {
		return fmt.Errorf("recording frame of %d bytes exceeds %d", len(w.raw), maxDecompressed)
	}
	if w.seq > maxSeq {
		return fmt.Errorf("recording: more than %d frames", maxSeq+1)
	}
	w.comp = w.enc.EncodeAll(w.raw, w.comp[:0])
	e := entry{seq: w.seq, start: w.start, end: w.end, compLen: uint32(len(w.comp)), crc: crc32.ChecksumIEEE(w.comp)}
	out := appendEntry(make([]byte, 0, entryLen+len(w.comp)), e)
	out = append(out, w.comp...)
	if _, err := w.w.Write(out); err != nil {
		return err
	}
	w.offset += int64(len(out))
	w.seq++
	w.floor = e.end
	w.raw, w.empty, w.records = w.raw[:0], true, 0
	return nil
}
