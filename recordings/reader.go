package recordings

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sort"

	"github.com/klauspost/compress/zstd"

	"jitterlab/metrics"
	"jitterlab/sim"
)

// Reader reads a recording: the header at once, frames on demand.
type Reader struct {
	r      io.ReaderAt
	dec    *zstd.Decoder
	frames []entry
	Header Header
	// Truncated is set when the file ends inside a frame (a crash): the
	// reader reads up to the last whole frame. TruncatedAt says where.
	Truncated   bool
	TruncatedAt int64
	end         *End
}

// ErrNotRecording means the file does not start like a recording.
var ErrNotRecording = errors.New("not a jitterlab recording (no recording index frame at the start)")

// Open indexes the recording in r (size bytes) and reads its header.
func Open(r io.ReaderAt, size int64) (*Reader, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecompressed))
	if err != nil {
		return nil, err
	}
	rd := &Reader{r: r, dec: dec}
	var off int64
	var buf [8 + entrySize]byte
	le := binary.LittleEndian
	for off < size {
		n := min(size-off, int64(len(buf)))
		if _, err := r.ReadAt(buf[:n], off); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if n >= 4 && le.Uint32(buf[0:]) != skippableMagic {
			if off == 0 {
				return nil, ErrNotRecording
			}
			return nil, fmt.Errorf("corrupt recording: no index entry at byte %d", off)
		}
		if n < int64(len(buf)) {
			rd.Truncated, rd.TruncatedAt = true, off
			break
		}
		if le.Uint32(buf[4:]) != entrySize {
			if off == 0 {
				return nil, ErrNotRecording
			}
			return nil, fmt.Errorf("corrupt recording: no index entry at byte %d", off)
		}
		p := buf[8:]
		if p[0] != Version {
			return nil, fmt.Errorf("recording format version %d; this lab reads version %d", p[0], Version)
		}
		e := entry{offset: off + int64(len(buf)), start: sim.Time(le.Uint64(p[4:])), end: sim.Time(le.Uint64(p[12:])),
			compLen: le.Uint32(p[20:]), crc: le.Uint32(p[24:])}
		if e.compLen > maxCompressed || e.start < 0 || e.end < e.start {
			return nil, fmt.Errorf("corrupt recording: bad index entry at byte %d", off)
		}
		if n := len(rd.frames); n > 0 && e.start < rd.frames[n-1].end {
			return nil, fmt.Errorf("corrupt recording: frame at byte %d goes back in time", off)
		}
		if e.offset+int64(e.compLen) > size {
			rd.Truncated, rd.TruncatedAt = true, off
			break
		}
		rd.frames = append(rd.frames, e)
		off = e.offset + int64(e.compLen)
	}
	if len(rd.frames) == 0 {
		return nil, errors.New("recording is truncated before its header frame")
	}
	recs, err := rd.frame(0)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || recs[0].typ != recHeader {
		return nil, errors.New("corrupt recording: the first record is not the header")
	}
	if err := json.Unmarshal(recs[0].payload, &rd.Header); err != nil {
		return nil, fmt.Errorf("corrupt recording header: %v", err)
	}
	if rd.Header.Version != Version {
		return nil, fmt.Errorf("recording header version %d; this lab reads %d", rd.Header.Version, Version)
	}
	return rd, nil
}

type record struct {
	typ     byte
	payload []byte
}

// frame decodes frame i into its records, checking its CRC.
func (r *Reader) frame(i int) ([]record, error) {
	e := r.frames[i]
	comp := make([]byte, e.compLen)
	if _, err := r.r.ReadAt(comp, e.offset); err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(comp) != e.crc {
		return nil, fmt.Errorf("corrupt recording: frame %d (byte %d) fails its checksum", i, e.offset)
	}
	raw, err := r.dec.DecodeAll(comp, nil)
	if err != nil {
		return nil, fmt.Errorf("corrupt recording: frame %d: %v", i, err)
	}
	recs, err := parseRecords(raw)
	if err != nil {
		return nil, fmt.Errorf("corrupt recording: frame %d: %v", i, err)
	}
	return recs, nil
}

// parseRecords splits a decompressed frame into its records.
func parseRecords(raw []byte) ([]record, error) {
	var recs []record
	for len(raw) > 0 {
		typ := raw[0]
		n, k := binary.Uvarint(raw[1:])
		if k <= 0 || n > maxRecord || n > uint64(len(raw)-1-k) {
			return nil, errors.New("bad record length")
		}
		recs = append(recs, record{typ, raw[1+k : 1+k+int(n)]})
		raw = raw[1+k+int(n):]
	}
	return recs, nil
}

// Frames is the number of whole frames.
func (r *Reader) Frames() int { return len(r.frames) }

// Duration is the true time of the last record in the whole frames.
func (r *Reader) Duration() sim.Time { return r.frames[len(r.frames)-1].end }

// Scan calls the callbacks for every record with from ≤ time ≤ to, in
// file order, decoding only the frames that overlap [from, to]: this is
// the seek. Either callback may be nil.
func (r *Reader) Scan(from, to sim.Time, sample func(*metrics.Sample) error, change func(Change) error) error {
	first := sort.Search(len(r.frames), func(i int) bool { return r.frames[i].end >= from })
	for i := first; i < len(r.frames) && r.frames[i].start <= to; i++ {
		recs, err := r.frame(i)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			switch rec.typ {
			case recSample:
				s, err := DecodeSample(rec.payload)
				if err != nil {
					return fmt.Errorf("corrupt recording: %v", err)
				}
				at := sim.Time(float64(s.TS*1e9) + 0.5)
				if sample != nil && at >= from && at <= to {
					if err := sample(&s); err != nil {
						return err
					}
				}
			case recChange:
				c, err := decodeChange(rec.payload)
				if err != nil {
					return fmt.Errorf("corrupt recording: %v", err)
				}
				if change != nil && c.At >= from && c.At <= to {
					if err := change(c); err != nil {
						return err
					}
				}
			case recEnd:
				var e End
				if err := json.Unmarshal(rec.payload, &e); err != nil {
					return fmt.Errorf("corrupt recording end: %v", err)
				}
				r.end = &e
			case recHeader:
				if i != 0 {
					return errors.New("corrupt recording: a second header")
				}
			default:
				return fmt.Errorf("corrupt recording: unknown record type %d", rec.typ)
			}
		}
	}
	return nil
}

// Changes returns every recorded parameter change.
func (r *Reader) Changes() ([]Change, error) {
	var out []Change
	err := r.Scan(0, sim.Time(1<<62), nil, func(c Change) error { out = append(out, c); return nil })
	return out, err
}

// End returns the end record, if the recording was closed; it is known
// after a Scan that reached the last frame.
func (r *Reader) End() (*End, error) {
	if r.end == nil {
		last := len(r.frames) - 1
		if err := r.Scan(r.frames[last].start, r.frames[last].end, nil, nil); err != nil {
			return nil, err
		}
	}
	return r.end, nil
}
