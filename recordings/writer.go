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
// records the same bytes.
type Header struct {
	Version  int         `json:"version"`
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

// End closes a recording: the last true time and the run's summary.
type End struct {
	At      sim.Time        `json:"at_ns"`
	Summary json.RawMessage `json:"summary,omitempty"`
}

// Writer writes a recording. Records are buffered and written as one zstd
// frame per FrameSpan of true time, so a crash loses at most the open
// frame. The header frame is written at once.
type Writer struct {
	w          io.Writer
	enc        *zstd.Encoder
	raw        []byte
	comp       []byte
	start, end sim.Time
	frameUntil sim.Time
	empty      bool
	sample     []byte
	offset     int64
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
	if len(js) > maxRecord {
		return nil, fmt.Errorf("recording header is %d bytes; at most %d", len(js), maxRecord)
	}
	rw := &Writer{w: w, enc: enc, empty: true, frameUntil: sim.Time(FrameSpan)}
	rw.record(recHeader, 0, js)
	if err := rw.flush(); err != nil {
		return nil, err
	}
	return rw, nil
}

func (w *Writer) record(typ byte, at sim.Time, payload []byte) {
	if w.empty {
		w.start, w.empty = at, false
	}
	w.end = max(w.end, at)
	w.raw = append(w.raw, typ)
	w.raw = binary.AppendUvarint(w.raw, uint64(len(payload)))
	w.raw = append(w.raw, payload...)
}

// roll flushes the open frame when at passes its span.
func (w *Writer) roll(at sim.Time) {
	if w.err == nil && at >= w.frameUntil && !w.empty {
		w.err = w.flush()
	}
	for at >= w.frameUntil {
		w.frameUntil += sim.Time(FrameSpan)
	}
}

// Sample records one sample.
func (w *Writer) Sample(s *metrics.Sample) error {
	at := sim.Time(float64(s.TS*1e9) + 0.5)
	w.roll(at)
	w.sample = EncodeSample(w.sample[:0], s)
	w.record(recSample, at, w.sample)
	return w.err
}

// Change records one parameter change.
func (w *Writer) Change(c Change) error {
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
	js, err := json.Marshal(e)
	if err != nil {
		return err
	}
	w.record(recEnd, e.At, js)
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
	if len(w.raw) > maxDecompressed {
		return fmt.Errorf("recording frame of %d bytes exceeds %d", len(w.raw), maxDecompressed)
	}
	w.comp = w.enc.EncodeAll(w.raw, w.comp[:0])
	e := entry{start: w.start, end: w.end, compLen: uint32(len(w.comp)), crc: crc32.ChecksumIEEE(w.comp)}
	out := appendEntry(make([]byte, 0, 8+entrySize+len(w.comp)), e)
	out = append(out, w.comp...)
	if _, err := w.w.Write(out); err != nil {
		return err
	}
	w.offset += int64(len(out))
	w.raw, w.empty = w.raw[:0], true
	return nil
}
