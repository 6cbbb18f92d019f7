package recordings

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"

	"github.com/klauspost/compress/zstd"

	"jitterlab/internal/files"
	"jitterlab/metrics"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// Reader reads a recording: the index and the header at once, frames on
// demand, one at a time, into buffers it reuses. Its memory stays under
// MemoryBound for any file.
type Reader struct {
	r      io.ReaderAt
	size   int64
	dec    *zstd.Decoder
	frames []entry
	Header Header
	// Truncated is set when the file ends inside a frame (a crash): the
	// reader reads up to the last whole frame. TruncatedAt says where.
	Truncated   bool
	TruncatedAt int64
	// Damage lists what Open found broken and stepped over: index entries
	// it repaired from their frame's data, and bytes it could not read.
	Damage []*DamageError
	// OnDamage, when set, hears of a frame that fails as it is read, and
	// the reading goes on with the next frame. When nil, such a frame is
	// the error of the read.
	OnDamage func(*DamageError)

	end        *End
	endRead    bool
	headerRead bool
	comp, raw  []byte
}

// DamageError describes bytes of a recording that could not be read (or
// an index entry that was repaired): where they are and the true times of
// the data around them.
type DamageError struct {
	Offset, Until int64    // bytes [Offset, Until)
	From, To      sim.Time // the data lost lies between these times (To -1: to the end)
	Repaired      bool     // the index entry was bad; the frame was recovered from its data
	Missing       int64    // whole frames missing, entry and data, before byte Offset (then Until = Offset)
	Reason        string
}

func (d *DamageError) Error() string {
	switch {
	case d.Missing > 0:
		what := fmt.Sprintf("%d whole frames are", d.Missing)
		if d.Missing == 1 {
			what = "1 whole frame is"
		}
		return fmt.Sprintf("%s missing before byte %d (%s): data from %v to %v is lost", what, d.Offset, d.Reason, d.From, d.To)
	case d.Offset == d.Until:
		return fmt.Sprintf("%s: data from %v to %v is lost", d.Reason, d.From, d.To)
	}
	if d.Repaired {
		return fmt.Sprintf("index entry at byte %d is damaged (%s); its frame (%v to %v) was recovered from its data",
			d.Offset, d.Reason, d.From, d.To)
	}
	if d.To < 0 {
		return fmt.Sprintf("bytes %d to %d are damaged (%s): data after %v is lost", d.Offset, d.Until, d.Reason, d.From)
	}
	return fmt.Sprintf("bytes %d to %d are damaged (%s): data from %v to %v is lost", d.Offset, d.Until, d.Reason, d.From, d.To)
}

// ErrNotRecording means the file does not start like a recording.
var ErrNotRecording = errors.New("not a jitterlab recording (no recording index frame at the start)")

// OpenFile opens the recording at path. It refuses what is not a regular
// file (a FIFO, a device, a directory) before opening it, so it never
// waits for a writer. Close the returned file when done.
func OpenFile(path string) (*Reader, *os.File, error) {
	f, st, err := files.OpenRegular(path)
	var nr *files.NotRegularError
	if errors.As(err, &nr) {
		return nil, nil, fmt.Errorf("%s: is %s, not a recording: a recording is a regular file on disk", path, files.Kind(nr.Mode))
	}
	if err != nil {
		return nil, nil, err
	}
	r, err := Open(f, st.Size())
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, f, nil
}

// Open indexes the recording in r (size bytes) and reads its header.
func Open(r io.ReaderAt, size int64) (*Reader, error) {
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxDecompressed),
		zstd.WithDecoderMaxWindow(maxDecompressed))
	if err != nil {
		return nil, err
	}
	rd := &Reader{r: r, size: size, dec: dec}
	if err := rd.index(); err != nil {
		return nil, err
	}
	if err := rd.readHeader(); err != nil {
		return nil, err
	}
	return rd, nil
}

// index reads the index entries, stepping over damage.
func (r *Reader) index() error {
	var buf [entryLen]byte
	var off int64
	for off < r.size {
		if len(r.frames) >= maxFrames {
			return fmt.Errorf("recording has more than %d frames; at most %d are read", maxFrames, maxFrames)
		}
		n := min(r.size-off, entryLen)
		if _, err := r.r.ReadAt(buf[:n], off); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if n < entryLen {
			if off == 0 && (n < 4 || binary.LittleEndian.Uint32(buf[:]) != skippableMagic) {
				return ErrNotRecording
			}
			r.Truncated, r.TruncatedAt = true, off
			break
		}
		e, status := parseEntry(buf[:], off)
		if off == 0 {
			switch status {
			case entryNone:
				return ErrNotRecording
			case entryOldVersion:
				return fmt.Errorf("recording format version %d (an older lab's); this lab reads versions %d to %d: record it again, or read it with the lab that wrote it", buf[8], MinVersion, Version)
			case entryBadSum, entryBadValues:
				return errors.New("corrupt recording: the index entry of the header frame is damaged")
			}
		}
		if status == entryOldVersion {
			return fmt.Errorf("corrupt recording: a version %d index entry at byte %d", buf[8], off)
		}
		if status == entryOK && len(r.frames) > 0 && e.start < r.frames[len(r.frames)-1].end {
			status = entryBadValues
		}
		if status != entryOK {
			if len(r.Damage) >= maxDamageReports {
				return fmt.Errorf("corrupt recording: more than %d damaged places; the last at byte %d", maxDamageReports, off)
			}
			next, err := r.resync(off)
			if err != nil {
				return err
			}
			r.salvage(off, next, status)
			off = next
			continue
		}
		if e.offset+int64(e.compLen) > r.size {
			r.Truncated, r.TruncatedAt = true, off
			break
		}
		r.frames = append(r.frames, e)
		off = e.offset + int64(e.compLen)
	}
	if len(r.frames) == 0 {
		return errors.New("recording is truncated before its header frame")
	}
	return r.checkSequence()
}

// checkSequence reports frames missing whole: a gap in the index entries'
// sequence numbers (version 3 on). A frame whose number is not known (one
// recovered from its data) counts as the next.
func (r *Reader) checkSequence() error {
	last, since := int64(-1), int64(0) // the last known number, frames since it
	for i, e := range r.frames {
		switch {
		case e.seq < 0:
			since++
			continue
		case i == 0 && e.seq != 0:
			return fmt.Errorf("corrupt recording: the header frame is numbered %d, not 0", e.seq)
		case i > 0 && last >= 0 && e.seq != last+since+1:
			if len(r.Damage) >= maxDamageReports {
				return fmt.Errorf("corrupt recording: more than %d damaged places", maxDamageReports)
			}
			want := last + since + 1
			d := &DamageError{Offset: e.offset - entryLen, Until: e.offset - entryLen, From: r.frames[i-1].end, To: e.start,
				Missing: e.seq - want, Reason: fmt.Sprintf("frame %d follows frame %d", e.seq, want-1)}
			if e.seq < want {
				d.Missing, d.Reason = 0, fmt.Sprintf("frame %d is numbered %d: frames out of order", want, e.seq)
			}
			r.Damage = append(r.Damage, d)
		}
		last, since = e.seq, 0
	}
	return nil
}

// lastEnd is the end time of the last indexed frame.
func (r *Reader) lastEnd() sim.Time {
	if len(r.frames) == 0 {
		return 0
	}
	return r.frames[len(r.frames)-1].end
}

// resync finds the next good index entry after the bad one at off: the
// offset of the next entry whose checksum holds and whose time follows
// the last good frame, or the file's size.
func (r *Reader) resync(off int64) (int64, error) {
	buf := make([]byte, resyncWindow+entryLen)
	for pos := off + 1; pos+entryLen <= r.size; pos += resyncWindow {
		n := min(int64(len(buf)), r.size-pos)
		if _, err := r.r.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		for i := int64(0); i+entryLen <= n && i < resyncWindow; i++ {
			if buf[i] != 0x5A || buf[i+1] != 0x2A {
				continue
			}
			if e, status := parseEntry(buf[i:i+entryLen], pos+i); status == entryOK && e.start >= r.lastEnd() {
				return pos + i, nil
			}
		}
	}
	return r.size, nil
}

// salvage handles the bytes [off, next) behind a bad index entry: when
// they hold the entry and a whole zstd frame that passes zstd's own
// checksum and reads as records, the frame is indexed from its records;
// otherwise the bytes are reported lost.
func (r *Reader) salvage(off, next int64, status entryStatus) {
	reason := map[entryStatus]string{entryNone: "no index entry where one should be",
		entryBadSum: "the entry fails its checksum", entryBadValues: "the entry's values are impossible"}[status]
	d := &DamageError{Offset: off, Until: next, From: r.lastEnd(), Reason: reason}
	if next < r.size {
		var b [entryLen]byte
		if _, err := r.r.ReadAt(b[:], next); err == nil {
			e, _ := parseEntry(b[:], next)
			d.To = e.start
		}
	} else {
		d.To = -1
	}
	e := entry{offset: off + entryLen, seq: -1, compLen: uint32(max(0, next-off-entryLen))}
	if next-off-entryLen > 0 && next-off-entryLen <= maxCompressed {
		comp := make([]byte, e.compLen)
		if _, err := r.r.ReadAt(comp, e.offset); err == nil {
			e.crc = crc32.ChecksumIEEE(comp)
			e.start, e.end = -1, -1
			r.frames = append(r.frames, e)
			i := len(r.frames) - 1
			first, last, err := r.bounds(i)
			if err == nil && first >= d.From && (next == r.size || last <= d.To) {
				r.frames[i].start, r.frames[i].end = first, last
				d.Repaired, d.From, d.To = true, first, last
				r.Damage = append(r.Damage, d)
				return
			}
			r.frames = r.frames[:i]
		}
	}
	r.Damage = append(r.Damage, d)
}

// bounds reads frame i (whose index entry is not trusted) and returns the
// times of its first and last records.
func (r *Reader) bounds(i int) (first, last sim.Time, err error) {
	first = -1
	err = r.records(i, false, func(_ byte, at sim.Time, _ *row, _ *Change, _ *Packet, _ *telemetry.Datagram) error {
		if first < 0 || at < first {
			first = at
		}
		last = max(last, at)
		return nil
	})
	if err == nil && first < 0 {
		err = errors.New("an empty frame")
	}
	return first, last, err
}

func (r *Reader) readHeader() error {
	if r.frames[0].start != 0 {
		return errors.New("corrupt recording: the first frame is not the header")
	}
	seen := false
	err := r.records(0, true, func(typ byte, _ sim.Time, _ *row, _ *Change, _ *Packet, _ *telemetry.Datagram) error {
		if typ == recHeader {
			seen = true
		}
		return nil
	})
	if err != nil {
		return err
	}
	if !seen {
		return errors.New("corrupt recording: the first record is not the header")
	}
	if v := r.Header.Version; v < MinVersion || v > Version || (v >= 3) != (r.frames[0].seq >= 0) {
		return fmt.Errorf("recording header version %d; this lab reads %d to %d", v, MinVersion, Version)
	}
	if k := r.Header.Kind; k != "" && k != KindProxy {
		return fmt.Errorf("recording kind %q: this lab reads session recordings and %q ones", k, KindProxy)
	}
	return nil
}

// callbackError carries an error of a caller's callback through records,
// so it is not taken for damage.
type callbackError struct{ err error }

func (c callbackError) Error() string { return c.err.Error() }

// records decodes frame i record by record, checking its CRC, its
// records' bounds and their agreement with the index entry, and calls fn
// for each (row for a sample, c for a change). checkIndex is false while
// the entry is being rebuilt. Only one record is decoded at a time.
func (r *Reader) records(i int, checkIndex bool, fn func(typ byte, at sim.Time, rw *row, c *Change, p *Packet, t *telemetry.Datagram) error) error {
	e := r.frames[i]
	if cap(r.comp) < int(e.compLen) {
		r.comp = make([]byte, e.compLen)
	}
	comp := r.comp[:e.compLen]
	if _, err := r.r.ReadAt(comp, e.offset); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if crc32.ChecksumIEEE(comp) != e.crc {
		return r.damaged(i, "fails its checksum")
	}
	raw, err := r.dec.DecodeAll(comp, r.raw[:0])
	if err != nil {
		return r.damaged(i, err.Error())
	}
	if len(raw) > maxDecompressed {
		return r.damaged(i, fmt.Sprintf("decompresses to more than %d bytes", maxDecompressed))
	}
	r.raw = raw
	var n int
	blocks, packetBlocks := 0, 0
	lastSample, lastChange, lastPacket, lastTel := sim.Time(-1), sim.Time(-1), sim.Time(-1), sim.Time(-1)
	first, last := sim.Time(-1), sim.Time(-1)
	var tel telemetry.Datagram
	for len(raw) > 0 {
		if n++; n > maxFrameRecords {
			return r.damaged(i, fmt.Sprintf("more than %d records", maxFrameRecords))
		}
		typ := raw[0]
		size, k := binary.Uvarint(raw[1:])
		if k <= 0 || size > uint64(len(raw)-1-k) {
			return r.damaged(i, "a bad record length")
		}
		payload := raw[1+k : 1+k+int(size)]
		raw = raw[1+k+int(size):]
		var at sim.Time
		var c Change
		switch typ {
		case recHeader:
			if i != 0 || n != 1 {
				return r.damaged(i, "a second header")
			}
			if len(payload) > maxHeader {
				return r.damaged(i, "a header record too large")
			}
			if !r.headerRead {
				if err := json.Unmarshal(payload, &r.Header); err != nil {
					return r.damaged(i, "header: "+err.Error())
				}
				r.headerRead = true
			}
		case recSamples:
			if blocks++; blocks > 1 {
				return r.damaged(i, "a second sample block")
			}
			n-- // its samples count, not the block
			br, err := newBlockReader(payload)
			if err != nil {
				return r.damaged(i, err.Error())
			}
			rw := new(row)
			for {
				var ok bool
				*rw, ok, err = br.next()
				if err != nil {
					return r.damaged(i, err.Error())
				}
				if !ok {
					break
				}
				if n++; n > maxFrameRecords {
					return r.damaged(i, fmt.Sprintf("more than %d records", maxFrameRecords))
				}
				at := rw.at()
				if at <= lastSample {
					return r.damaged(i, "samples out of time order")
				}
				if checkIndex && (at < e.start || at > e.end) {
					return r.damaged(i, fmt.Sprintf("a sample at %v outside the frame's index span %v to %v", at, e.start, e.end))
				}
				lastSample, last = at, max(last, at)
				if first < 0 || at < first {
					first = at
				}
				if err := fn(recSamples, at, rw, nil, nil, nil); err != nil {
					return callbackError{err}
				}
			}
			continue
		case recPackets:
			if packetBlocks++; packetBlocks > 1 {
				return r.damaged(i, "a second packet block")
			}
			n-- // its packets count, not the block
			br, err := newPacketBlockReader(payload)
			if err != nil {
				return r.damaged(i, err.Error())
			}
			for {
				row, ok, err := br.next()
				if err != nil {
					return r.damaged(i, err.Error())
				}
				if !ok {
					break
				}
				if n++; n > maxFrameRecords {
					return r.damaged(i, fmt.Sprintf("more than %d records", maxFrameRecords))
				}
				p := row.packet()
				if p.At < lastPacket {
					return r.damaged(i, "packets out of time order")
				}
				if checkIndex && (p.At < e.start || p.At > e.end) {
					return r.damaged(i, fmt.Sprintf("a packet at %v outside the frame's index span %v to %v", p.At, e.start, e.end))
				}
				lastPacket, last = p.At, max(last, p.At)
				if first < 0 || p.At < first {
					first = p.At
				}
				if err := fn(recPackets, p.At, nil, nil, &p, nil); err != nil {
					return callbackError{err}
				}
			}
			continue
		case recTelemetry:
			if at, err = decodeTelemetry(payload, &tel); err != nil {
				return r.damaged(i, err.Error())
			}
			if at < lastTel {
				return r.damaged(i, "telemetry out of time order")
			}
			lastTel = at
		case recChange:
			if c, err = decodeChange(payload); err != nil {
				return r.damaged(i, err.Error())
			}
			if at = c.At; at < lastChange {
				return r.damaged(i, "changes out of time order")
			}
			lastChange = at
		case recEnd:
			if len(raw) != 0 || i != len(r.frames)-1 {
				return r.damaged(i, "records after the end record")
			}
			if len(payload) > maxEndRecord {
				return r.damaged(i, "an end record too large")
			}
			var end End
			if err := json.Unmarshal(payload, &end); err != nil {
				return r.damaged(i, "end record: "+err.Error())
			}
			if end.At < 0 || end.At >= maxAt || end.Samples < 0 || end.First < 0 || end.Packets < 0 || end.Telemetry < 0 {
				return r.damaged(i, "an end record with negative values")
			}
			at = end.At
			r.end = &end
		default:
			return r.damaged(i, fmt.Sprintf("unknown record type %d", typ))
		}
		if checkIndex && (at < e.start || at > e.end) {
			return r.damaged(i, fmt.Sprintf("a record at %v outside the frame's index span %v to %v", at, e.start, e.end))
		}
		if first < 0 || at < first {
			first = at
		}
		last = max(last, at)
		if err := fn(typ, at, nil, &c, nil, &tel); err != nil {
			return callbackError{err}
		}
	}
	if n == 0 {
		return r.damaged(i, "an empty frame")
	}
	if checkIndex && (first != e.start || last != e.end) {
		return r.damaged(i, fmt.Sprintf("its index entry says %v to %v but its records span %v to %v", e.start, e.end, first, last))
	}
	return nil
}

func (r *Reader) damaged(i int, reason string) *DamageError {
	e := r.frames[i]
	return &DamageError{Offset: e.offset - entryLen, Until: e.offset + int64(e.compLen), From: e.start, To: e.end,
		Reason: fmt.Sprintf("frame %d %s", i, reason)}
}

// Frames is the number of whole frames.
func (r *Reader) Frames() int { return len(r.frames) }

// Duration is the true time of the last record in the whole frames.
func (r *Reader) Duration() sim.Time { return r.lastEnd() }

// DataEnd is the byte where the readable data ends: the end of the last
// whole frame.
func (r *Reader) DataEnd() int64 {
	e := r.frames[len(r.frames)-1]
	return e.offset + int64(e.compLen)
}

// Scan calls the callbacks for every change and sample with from ≤ time
// ≤ to, frame by frame (a frame's changes before its samples), decoding
// only the frames that overlap [from, to]: this is the seek. Either
// callback may be nil. A damaged frame is an error, or is reported to
// OnDamage and skipped when OnDamage is set (more than 100 such frames
// are an error). More than MaxChanges changes is an error: no writer
// makes them.
func (r *Reader) Scan(from, to sim.Time, sample func(*metrics.Sample) error, change func(Change) error) error {
	return r.scan(from, to, sample, change, nil)
}

// ScanPackets calls packet for every relayed packet (a proxy recording's)
// with from ≤ At ≤ to, as [Reader.Scan] does samples.
func (r *Reader) ScanPackets(from, to sim.Time, packet func(*Packet) error) error {
	return r.scan(from, to, nil, nil, packet)
}

func (r *Reader) scan(from, to sim.Time, sample func(*metrics.Sample) error, change func(Change) error, packet func(*Packet) error) error {
	return r.scanAll(from, to, sample, change, packet, nil)
}

// ScanTelemetry calls tel for every telemetry datagram (a proxy
// recording's, with --telemetry) that arrived with from ≤ at ≤ to, as
// [Reader.Scan] does samples; at is its arrival since the relay started.
func (r *Reader) ScanTelemetry(from, to sim.Time, tel func(at sim.Time, d *telemetry.Datagram) error) error {
	return r.scanAll(from, to, nil, nil, nil, tel)
}

func (r *Reader) scanAll(from, to sim.Time, sample func(*metrics.Sample) error, change func(Change) error, packet func(*Packet) error,
	telem func(sim.Time, *telemetry.Datagram) error) error {
	var s metrics.Sample
	changes, lastSample, lastPacket, lastTel := 0, sim.Time(-1), sim.Time(-1), sim.Time(-1)
	var samples, packets, tels int64 // in the frames decoded, for the end record's counts
	each := func(typ byte, at sim.Time, rw *row, c *Change, p *Packet, t *telemetry.Datagram) error {
		switch typ {
		case recSamples:
			samples++
		case recPackets:
			packets++
		case recTelemetry:
			tels++
			if at < lastTel {
				return fmt.Errorf("corrupt recording: telemetry at %v after telemetry at %v", at, lastTel)
			}
			lastTel = at
		}
		if typ == recSamples {
			if at <= lastSample {
				return fmt.Errorf("corrupt recording: a sample at %v after one at %v", at, lastSample)
			}
			lastSample = at
		}
		if typ == recPackets {
			if at < lastPacket {
				return fmt.Errorf("corrupt recording: a packet at %v after one at %v", at, lastPacket)
			}
			lastPacket = at
		}
		if typ == recChange {
			if changes++; changes > MaxChanges {
				return fmt.Errorf("corrupt recording: more than %d parameter changes; a recording holds at most %d", MaxChanges, MaxChanges)
			}
		}
		if at < from || at > to {
			return nil
		}
		switch {
		case typ == recSamples && sample != nil:
			s = rw.sample()
			return sample(&s)
		case typ == recChange && change != nil:
			return change(*c)
		case typ == recPackets && packet != nil:
			return packet(p)
		case typ == recTelemetry && telem != nil:
			return telem(at, t)
		}
		return nil
	}
	skipped := 0
	first := sort.Search(len(r.frames), func(i int) bool { return r.frames[i].end >= from })
	i := first
	for ; i < len(r.frames) && r.frames[i].start <= to; i++ {
		err := r.records(i, true, each)
		var cb callbackError
		var d *DamageError
		switch {
		case errors.As(err, &cb):
			return cb.err
		case errors.As(err, &d) && r.OnDamage != nil:
			if skipped++; skipped > maxDamageReports {
				return fmt.Errorf("corrupt recording: more than %d damaged frames; the last %w", maxDamageReports, d)
			}
			r.OnDamage(d)
		case err != nil:
			return fmt.Errorf("corrupt recording: %w", err)
		}
	}
	// A scan of every frame checks the end record's counts: a file with
	// frames missing whole that no sequence number shows (version 2) is
	// not taken for the session.
	if first == 0 && i == len(r.frames) && skipped == 0 && len(r.Damage) == 0 && r.end != nil &&
		(samples != r.end.Samples || packets != r.end.Packets || tels != r.end.Telemetry) {
		last := r.frames[len(r.frames)-1]
		reason := fmt.Sprintf("the end record counts %d samples and %d packets; the frames hold %d and %d: data is missing", r.end.Samples, r.end.Packets, samples, packets)
		if tels != r.end.Telemetry {
			reason = fmt.Sprintf("the end record counts %d telemetry datagrams; the frames hold %d: data is missing", r.end.Telemetry, tels)
		}
		d := &DamageError{Offset: last.offset - entryLen, Until: last.offset - entryLen, From: r.end.First, To: r.end.At, Reason: reason}
		if r.OnDamage == nil {
			return fmt.Errorf("corrupt recording: %w", d)
		}
		r.OnDamage(d)
	}
	return nil
}

// Changes returns every recorded parameter change: at most MaxChanges.
func (r *Reader) Changes() ([]Change, error) {
	var out []Change
	err := r.Scan(0, sim.Time(1<<62), nil, func(c Change) error { out = append(out, c); return nil })
	return out, err
}

// End returns the end record, if the recording was closed; nil if not
// (or if its last frame is damaged and OnDamage is set).
func (r *Reader) End() (*End, error) {
	if !r.endRead {
		last := len(r.frames) - 1
		if err := r.Scan(r.frames[last].start, r.frames[last].end, nil, nil); err != nil {
			return nil, err
		}
		r.endRead = true
	}
	return r.end, nil
}

// WriteCSV writes the samples from from to to (as [Reader.Scan] reads
// them) as the timeline CSV of [metrics.CSVWriter]: its header, then a row
// per sample. n is the number of rows written.
func (r *Reader) WriteCSV(w io.Writer, from, to sim.Time) (n int, err error) {
	csv, err := metrics.NewCSVWriter(w)
	if err != nil {
		return 0, err
	}
	row := func(x *metrics.Sample) error { n++; return csv.Write(x) }
	if err := r.Scan(from, to, row, nil); err != nil {
		return n, err
	}
	return n, csv.Flush()
}
