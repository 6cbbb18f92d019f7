package recordings

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"jitterlab/metrics"
	"jitterlab/sim"
)

// File layout. A recording is a valid zstd stream (the zstd tool can
// decompress it) made of frames, each preceded by a zstd skippable frame
// that indexes it:
//
//	[skippable frame: magic 0x184D2A5A, size 32, index entry][zstd frame] ...
//
// The index entry holds the format version, the first and last true time
// of the frame's records, the compressed length and its CRC-32. Reading the
// index entries alone (seeking past the data) finds any time, so a crash
// needs no trailing index: a file cut anywhere reads up to its last whole
// frame. Inside a decompressed frame, records follow each other:
//
//	[type byte][uvarint length][payload]
const (
	skippableMagic = 0x184D2A5A
	entrySize      = 32
	Version        = 1

	// FrameSpan is how much true time one frame covers.
	FrameSpan = 10 * time.Second

	// Bounds that keep a corrupt or hostile file from costing unbounded
	// memory: they are checked before anything is allocated.
	maxCompressed   = 8 << 20
	maxDecompressed = 32 << 20
	maxRecord       = 1 << 20
	maxString       = 64 << 10
)

// Record types.
const (
	recHeader byte = 1 + iota
	recSample
	recChange
	recEnd
)

// Change is one parameter change applied at a true time.
type Change struct {
	At         sim.Time
	Key, Value string
}

// SampleSize is the encoded size of a metrics.Sample.
const SampleSize = 8 + 4*3 + 4 + 8 + 4 + 10*8 + 6*8

// EncodeSample appends s in the fixed little-endian layout of the file.
// Two samples are the same sample exactly when their encodings are equal.
func EncodeSample(b []byte, s *metrics.Sample) []byte {
	le := binary.LittleEndian
	f := func(v float64) { b = le.AppendUint64(b, math.Float64bits(v)) }
	u32 := func(v uint32) { b = le.AppendUint32(b, v) }
	u64 := func(v uint64) { b = le.AppendUint64(b, v) }
	f(s.TS)
	u32(s.ServerTick)
	u32(s.ClientTick)
	u32(s.AckTick)
	u32(uint32(int32(s.TickOffset)))
	f(s.SendIntervalS)
	u32(uint32(s.PendingInputs))
	for _, v := range []float64{s.RTTMs, s.UpOWDMs, s.DownOWDMs, s.UpJitterMs, s.DownJitterMs, s.PDVMs,
		s.VisibleErrorM, s.VisibleErrorDeg, s.CorrectionM, s.VisibleSpeedMPS} {
		f(v)
	}
	for _, v := range []uint64{s.Snaps, s.UpLost, s.DownLost, s.LateDropped, s.Overwritten, s.Starved} {
		u64(v)
	}
	return b
}

// DecodeSample reads a sample encoded by EncodeSample.
func DecodeSample(b []byte) (metrics.Sample, error) {
	if len(b) != SampleSize {
		return metrics.Sample{}, fmt.Errorf("sample record of %d bytes, want %d", len(b), SampleSize)
	}
	le := binary.LittleEndian
	var s metrics.Sample
	f := func() float64 { v := math.Float64frombits(le.Uint64(b)); b = b[8:]; return v }
	u32 := func() uint32 { v := le.Uint32(b); b = b[4:]; return v }
	u64 := func() uint64 { v := le.Uint64(b); b = b[8:]; return v }
	s.TS = f()
	s.ServerTick, s.ClientTick, s.AckTick = u32(), u32(), u32()
	s.TickOffset = int(int32(u32()))
	s.SendIntervalS = f()
	s.PendingInputs = int(u32())
	for _, p := range []*float64{&s.RTTMs, &s.UpOWDMs, &s.DownOWDMs, &s.UpJitterMs, &s.DownJitterMs, &s.PDVMs,
		&s.VisibleErrorM, &s.VisibleErrorDeg, &s.CorrectionM, &s.VisibleSpeedMPS} {
		*p = f()
	}
	for _, p := range []*uint64{&s.Snaps, &s.UpLost, &s.DownLost, &s.LateDropped, &s.Overwritten, &s.Starved} {
		*p = u64()
	}
	return s, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func readString(b []byte) (string, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > maxString || n > uint64(len(b)-k) {
		return "", nil, errors.New("bad string length")
	}
	return string(b[k : k+int(n)]), b[k+int(n):], nil
}

func encodeChange(b []byte, c Change) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(c.At))
	b = appendString(b, c.Key)
	return appendString(b, c.Value)
}

func decodeChange(b []byte) (Change, error) {
	if len(b) < 8 {
		return Change{}, errors.New("short change record")
	}
	c := Change{At: sim.Time(binary.LittleEndian.Uint64(b))}
	var err error
	if c.Key, b, err = readString(b[8:]); err != nil {
		return Change{}, err
	}
	if c.Value, b, err = readString(b); err != nil {
		return Change{}, err
	}
	if len(b) != 0 || c.At < 0 {
		return Change{}, errors.New("malformed change record")
	}
	return c, nil
}

// entry is one index entry: the skippable frame before a data frame.
type entry struct {
	offset     int64 // of the data frame
	start, end sim.Time
	compLen    uint32
	crc        uint32
}

func appendEntry(b []byte, e entry) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, skippableMagic)
	b = le.AppendUint32(b, entrySize)
	b = append(b, Version, 0, 0, 0)
	b = le.AppendUint64(b, uint64(e.start))
	b = le.AppendUint64(b, uint64(e.end))
	b = le.AppendUint32(b, e.compLen)
	b = le.AppendUint32(b, e.crc)
	return append(b, 0, 0, 0, 0) // reserved
}
