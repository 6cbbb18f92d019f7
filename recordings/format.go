package recordings

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"time"

	"jitterlab/sim"
)

// File layout. A recording is a valid zstd stream (the zstd tool can
// decompress it) made of frames, each preceded by a zstd skippable frame
// that indexes it:
//
//	[skippable frame: magic 0x184D2A5A, size 32, index entry][zstd frame] ...
//
// The index entry holds the format version, the frame's sequence number
// (0 for the header frame, then one more each frame: a frame missing whole,
// its entry with it, shows as a gap), the first and last true time of the
// frame's records, the compressed length, its CRC-32 and the entry's own
// CRC-32. Reading the index entries alone (seeking past the data) finds
// any time, so a crash needs no trailing index: a file cut anywhere reads
// up to its last whole frame. An entry that fails its checksum is not
// trusted: the reader looks for the next good entry and recovers the frame
// in between from the zstd frame's own checksum, or reports the bytes it
// lost. Inside a decompressed frame, records follow each other:
//
//	[type byte][uvarint length][payload]
//
// Samples are coded against the previous sample of the same frame (see
// sampleColumns), so every frame decodes on its own.
const (
	skippableMagic = 0x184D2A5A
	entrySize      = 32
	entryLen       = 8 + entrySize // on disk, with the skippable frame's header

	// Version is the format version this package writes. Version 1
	// stored samples as fixed 172-byte records and had no checksum over
	// the index; version 2 had no sequence number in its index entries
	// (bytes 1 to 3 were zero), so a frame missing whole went unseen
	// there; it is still read (MinVersion).
	Version = 3

	// MinVersion is the oldest format version this package reads.
	MinVersion = 2

	// FrameSpan is how much true time one frame covers at most.
	FrameSpan = 10 * time.Second
)

// Bounds that keep a corrupt or hostile file from costing unbounded memory
// or time. Each is checked before anything is allocated; the writer keeps
// within them, so a file it wrote always reads.
const (
	maxCompressed    = 8 << 20  // bytes of one compressed frame
	maxDecompressed  = 8 << 20  // bytes of one decompressed frame
	flushAt          = 4 << 20  // the writer closes a frame early at this size
	maxFrameRecords  = 1 << 17  // records in one frame
	maxFrames        = 1 << 19  // frames in one file: 1456 h at 10 s a frame
	MaxChanges       = 10000    // parameter changes in one file
	MaxChangeText    = 256      // bytes of a change's key or value
	maxHeader        = 1 << 20  // bytes of the header record
	maxEndRecord     = 64 << 10 // bytes of the end record
	maxString        = MaxChangeText
	resyncWindow     = 64 << 10 // bytes read at a time when looking for the next good entry
	maxDamageReports = 100      // damaged places a file may have and still be read
)

// MemoryBound is the most memory a Reader holds for any file, whatever its
// content: the index (32 bytes a frame), one compressed and one
// decompressed frame, the zstd decoder's window, the header, and the
// changes when Changes collects them. Replay, export and verify add a
// session of constant size to it.
const MemoryBound = maxFrames*32 + maxCompressed + 2*maxDecompressed + 3*maxHeader + MaxChanges*(2*maxString+64)

// Record types.
const (
	recHeader  byte = 1 + iota
	recSamples      // a frame's samples, as one block
	recChange
	recEnd
	recPackets   // a frame's relayed packets, as one block (see packets.go)
	recTelemetry // one telemetry datagram the proxy decoded (see telemetry.go)
)

// Change is one parameter change applied at a true time.
type Change struct {
	At         sim.Time
	Key, Value string
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
	if len(b) != 0 || c.At < 0 || c.At >= maxAt {
		return Change{}, errors.New("malformed change record")
	}
	return c, nil
}

// entry is one index entry: the skippable frame before a data frame.
type entry struct {
	offset     int64 // of the data frame
	seq        int64 // the frame's sequence number; -1 when not known (version 2, or recovered from its data)
	start, end sim.Time
	compLen    uint32
	crc        uint32
}

// maxSeq bounds a frame's sequence number: three bytes of the entry.
const maxSeq = 1<<24 - 1

func appendEntry(b []byte, e entry) []byte {
	le := binary.LittleEndian
	b = le.AppendUint32(b, skippableMagic)
	b = le.AppendUint32(b, entrySize)
	p := len(b)
	b = append(b, Version, byte(e.seq), byte(e.seq>>8), byte(e.seq>>16))
	b = le.AppendUint64(b, uint64(e.start))
	b = le.AppendUint64(b, uint64(e.end))
	b = le.AppendUint32(b, e.compLen)
	b = le.AppendUint32(b, e.crc)
	return le.AppendUint32(b, crc32.ChecksumIEEE(b[p:]))
}

// entryStatus says what the 40 bytes at an offset are.
type entryStatus int

const (
	entryOK         entryStatus = iota
	entryNone                   // no skippable frame of our size here
	entryBadSum                 // ours, but it fails its checksum
	entryOldVersion             // ours, from an older format version
	entryBadValues              // checksum good, values impossible
)

// parseEntry reads an index entry from b (entryLen bytes) found at offset
// off.
func parseEntry(b []byte, off int64) (entry, entryStatus) {
	le := binary.LittleEndian
	if le.Uint32(b[0:]) != skippableMagic || le.Uint32(b[4:]) != entrySize {
		return entry{}, entryNone
	}
	p := b[8:entryLen]
	if p[0] < MinVersion && p[1] == 0 && le.Uint32(p[28:]) == 0 {
		return entry{}, entryOldVersion
	}
	if crc32.ChecksumIEEE(p[:28]) != le.Uint32(p[28:]) {
		return entry{}, entryBadSum
	}
	e := entry{offset: off + entryLen, seq: int64(p[1]) | int64(p[2])<<8 | int64(p[3])<<16,
		start: sim.Time(le.Uint64(p[4:])), end: sim.Time(le.Uint64(p[12:])), compLen: le.Uint32(p[20:]), crc: le.Uint32(p[24:])}
	if p[0] == 2 {
		if e.seq != 0 {
			return e, entryBadValues
		}
		e.seq = -1
	}
	if p[0] < MinVersion || p[0] > Version || e.compLen > maxCompressed || e.start < 0 || e.end < e.start || e.end >= maxAt {
		return e, entryBadValues
	}
	return e, entryOK
}

// ResidentBound is the most resident memory (RSS) a process reading any
// recording needs for the Reader, measured (the test binary's own few
// megabytes included): MemoryBound is what the Reader keeps live, and Go's
// collector lets the heap grow to twice what is live before it collects
// (GOGC=100), plus the runtime's own. 97 MB measured on the hostile files
// of the tests, against this bound of 105 MiB.
const ResidentBound = 2*MemoryBound + 8<<20
