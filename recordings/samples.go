package recordings

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"jitterlab/metrics"
	"jitterlab/sim"
)

// Sample coding. A sample is a row of columns, one per metrics.Sample
// field. Each value is stored as an integer:
//
//   - t_s as its true time in nanoseconds (lossless: t_s is that time ÷ 1e9);
//   - the integer columns as they are;
//   - the other float columns quantised to the decimals the timeline CSV
//     prints (rtt_ms to 0.001 ms, visible_error_m to 0.0001 m, ...): the
//     digits the CSV shows, read as an integer. Export therefore prints
//     exactly what the live run printed, and verify compares exactly what
//     is stored.
//
// A value the integer cannot carry (NaN, ±Inf, a negative zero, more than
// 15 digits, a time that is not a whole nanosecond) is stored as its 8
// raw bytes instead, flagged in the row's escape mask.
//
// rtt_ms is stored as its difference from up_owd_ms + down_owd_ms and
// pdv_ms as its difference from down_owd_ms (both nearly constant); then
// every column is stored as the zigzag varint of its change since the
// previous sample of the frame.
//
// A frame's samples are stored as one block, column by column (see
// blockWriter), after the frame's changes: zstd compresses a column of
// like values far better than rows of mixed ones.

type colKind uint8

const (
	colInt colKind = iota
	colTime
	colDec
)

type column struct {
	name string
	kind colKind
	dec  int   // decimals of a colDec column
	refs []int // columns whose sum predicts this one (they come first)
	min  int64 // the range of a colInt column's field (0, 0: any int64)
	max  int64
}

// Column indexes, in metrics.Sample field order.
const (
	cT = iota
	cServerTick
	cClientTick
	cAckTick
	cTickOffset
	cSendInterval
	cPending
	cRTT
	cUpOWD
	cDownOWD
	cUpJitter
	cDownJitter
	cPDV
	cVisErrM
	cVisErrDeg
	cCorrection
	cSpeed
	cSnaps
	cUpLost
	cDownLost
	cLateDropped
	cOverwritten
	cStarved
	numColumns
)

// sampleColumns is the table of the format: changing it changes the
// format version.
var sampleColumns = [numColumns]column{
	cT: {name: "t_s", kind: colTime}, cServerTick: {name: "server_tick", max: math.MaxUint32},
	cClientTick: {name: "client_tick", max: math.MaxUint32}, cAckTick: {name: "ack_tick", max: math.MaxUint32},
	cTickOffset:   {name: "tick_offset", min: math.MinInt, max: math.MaxInt},
	cSendInterval: {name: "send_interval_s", kind: colDec, dec: 6}, cPending: {name: "pending_inputs", min: math.MinInt, max: math.MaxInt},
	cRTT:   {name: "rtt_ms", kind: colDec, dec: 3, refs: []int{cUpOWD, cDownOWD}},
	cUpOWD: {name: "up_owd_ms", kind: colDec, dec: 3}, cDownOWD: {name: "down_owd_ms", kind: colDec, dec: 3},
	cUpJitter: {name: "up_jitter_ms", kind: colDec, dec: 3}, cDownJitter: {name: "down_jitter_ms", kind: colDec, dec: 3},
	cPDV:     {name: "pdv_ms", kind: colDec, dec: 3, refs: []int{cDownOWD}},
	cVisErrM: {name: "visible_error_m", kind: colDec, dec: 4}, cVisErrDeg: {name: "visible_error_deg", kind: colDec, dec: 3},
	cCorrection: {name: "correction_m", kind: colDec, dec: 4}, cSpeed: {name: "visible_speed_mps", kind: colDec, dec: 4},
	cSnaps: {name: "snaps"}, cUpLost: {name: "up_lost"}, cDownLost: {name: "down_lost"},
	cLateDropped: {name: "late_dropped"}, cOverwritten: {name: "overwritten"}, cStarved: {name: "starved"},
}

// codingOrder decodes the predicted columns after the columns they use.
var codingOrder = func() []int {
	var first, then []int
	for c := range numColumns {
		if len(sampleColumns[c].refs) > 0 {
			then = append(then, c)
		} else {
			first = append(first, c)
		}
	}
	return append(first, then...)
}()

var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

const maxDigits = 15

// maxTS bounds a sample's time in seconds (1111 h): its nanoseconds fit a
// float64's mantissa.
const maxTS = 4e6

// maxAt is maxTS in nanoseconds: no record of a file is at or after it.
const maxAt = sim.Time(maxTS * 1e9)

// words is a sample as one 64-bit word per column: float bits or the
// integer.
func words(s *metrics.Sample) [numColumns]uint64 {
	f := math.Float64bits
	return [numColumns]uint64{f(s.TS), uint64(s.ServerTick), uint64(s.ClientTick), uint64(s.AckTick),
		uint64(int64(s.TickOffset)), f(s.SendIntervalS), uint64(int64(s.PendingInputs)),
		f(s.RTTMs), f(s.UpOWDMs), f(s.DownOWDMs), f(s.UpJitterMs), f(s.DownJitterMs), f(s.PDVMs),
		f(s.VisibleErrorM), f(s.VisibleErrorDeg), f(s.CorrectionM), f(s.VisibleSpeedMPS),
		s.Snaps, s.UpLost, s.DownLost, s.LateDropped, s.Overwritten, s.Starved}
}

func fromWords(w *[numColumns]uint64) metrics.Sample {
	f := math.Float64frombits
	return metrics.Sample{TS: f(w[cT]), ServerTick: uint32(w[cServerTick]), ClientTick: uint32(w[cClientTick]),
		AckTick: uint32(w[cAckTick]), TickOffset: int(int64(w[cTickOffset])), SendIntervalS: f(w[cSendInterval]),
		PendingInputs: int(int64(w[cPending])), RTTMs: f(w[cRTT]), UpOWDMs: f(w[cUpOWD]), DownOWDMs: f(w[cDownOWD]),
		UpJitterMs: f(w[cUpJitter]), DownJitterMs: f(w[cDownJitter]), PDVMs: f(w[cPDV]),
		VisibleErrorM: f(w[cVisErrM]), VisibleErrorDeg: f(w[cVisErrDeg]), CorrectionM: f(w[cCorrection]),
		VisibleSpeedMPS: f(w[cSpeed]), Snaps: w[cSnaps], UpLost: w[cUpLost], DownLost: w[cDownLost],
		LateDropped: w[cLateDropped], Overwritten: w[cOverwritten], Starved: w[cStarved]}
}

// row is a sample as the file stores it.
type row struct {
	q    [numColumns]int64  // the integer of each column not escaped
	raw  [numColumns]uint64 // the word of each escaped column
	mask uint64             // escaped columns
}

// quantise makes the row of s. buf is scratch space.
func quantise(s *metrics.Sample, buf []byte) (row, []byte) {
	var r row
	w := words(s)
	for c := range numColumns {
		var ok bool
		if r.q[c], ok, buf = quantiseColumn(c, w[c], buf); !ok {
			r.q[c], r.raw[c], r.mask = 0, w[c], r.mask|1<<c
		}
	}
	return r, buf
}

// quantiseColumn is the integer column c stores for the word w; ok is
// false when the word must be stored raw.
func quantiseColumn(c int, w uint64, buf []byte) (q int64, ok bool, _ []byte) {
	switch col := &sampleColumns[c]; col.kind {
	case colTime:
		ts := math.Float64frombits(w)
		if ts >= 0 && ts < maxTS {
			at := int64(float64(ts*1e9) + 0.5)
			return at, float64(at)/1e9 == ts && w>>63 == 0, buf
		}
		return 0, false, buf
	case colDec:
		return decimal(math.Float64frombits(w), col.dec, buf)
	}
	return int64(w), true, buf
}

// decimal reads the digits strconv prints for v with dec decimals as an
// integer. ok is false for what such an integer cannot print back: not a
// number, ±Inf, "-0.000", more than maxDigits digits.
func decimal(v float64, dec int, buf []byte) (int64, bool, []byte) {
	if !(math.Abs(v) < 1e15/pow10[dec]) { // NaN and ±Inf too

		return 0, false, buf
	}
	buf = strconv.AppendFloat(buf[:0], v, 'f', dec, 64)
	neg := buf[0] == '-'
	var q int64
	digits := 0
	for _, ch := range buf[btoi(neg):] {
		if ch == '.' {
			continue
		}
		q = q*10 + int64(ch-'0')
		if q != 0 {
			digits++
		}
	}
	if digits > maxDigits || (neg && q == 0) {
		return 0, false, buf
	}
	if neg {
		q = -q
	}
	return q, true, buf
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sample rebuilds the sample of a row.
func (r *row) sample() metrics.Sample {
	var w [numColumns]uint64
	for c := range numColumns {
		if r.mask&(1<<c) != 0 {
			w[c] = r.raw[c]
			continue
		}
		switch sampleColumns[c].kind {
		case colTime:
			w[c] = math.Float64bits(float64(r.q[c]) / 1e9)
		case colInt:
			w[c] = uint64(r.q[c])
		case colDec:
			w[c] = math.Float64bits(float64(r.q[c]) / pow10[sampleColumns[c].dec])
		}
	}
	return fromWords(&w)
}

// at is the row's true time.
func (r *row) at() sim.Time {
	if r.mask&(1<<cT) != 0 {
		return sim.Time(float64(math.Float64frombits(r.raw[cT])*1e9) + 0.5)
	}
	return sim.Time(r.q[cT])
}

// predicted is the value a column is stored as, before its delta.
func (r *row) predicted(c int) int64 {
	v := r.q[c]
	for _, ref := range sampleColumns[c].refs {
		v -= r.q[ref]
	}
	return v
}

// blockWriter collects a frame's samples column by column: one stream of
// escape masks, then one stream per column, each value the zigzag varint
// of its change since the previous sample (or 8 raw bytes if escaped).
type blockWriter struct {
	n       int
	prev    [numColumns]int64
	streams [numColumns + 1][]byte // the masks, then the columns
}

func (bw *blockWriter) add(r *row) {
	bw.n++
	bw.streams[0] = binary.AppendUvarint(bw.streams[0], r.mask)
	for _, c := range codingOrder {
		st := &bw.streams[1+c]
		if r.mask&(1<<c) != 0 {
			*st = binary.LittleEndian.AppendUint64(*st, r.raw[c])
			continue
		}
		v := r.predicted(c)
		*st = binary.AppendVarint(*st, v-bw.prev[c])
		bw.prev[c] = v
	}
}

// size is the encoded size so far, near enough.
func (bw *blockWriter) size() int { return blockSize(bw.streams[:]) }

// appendTo appends the block and empties bw.
func (bw *blockWriter) appendTo(b []byte) []byte {
	b = appendBlock(b, bw.n, bw.streams[:])
	bw.n, bw.prev = 0, [numColumns]int64{}
	return b
}

// blockSize is the encoded size of a block's streams so far, near enough.
func blockSize(streams [][]byte) int {
	n := 0
	for _, st := range streams {
		n += len(st) + 4
	}
	return n
}

// appendBlock appends a block of n rows, sample or packet: [uvarint n]
// [uvarint length of each stream][the streams], and empties the streams.
func appendBlock(b []byte, n int, streams [][]byte) []byte {
	b = binary.AppendUvarint(b, uint64(n))
	for _, st := range streams {
		b = binary.AppendUvarint(b, uint64(len(st)))
	}
	for i, st := range streams {
		b = append(b, st...)
		streams[i] = st[:0]
	}
	return b
}

// splitBlock reads the head of a block that appendBlock wrote, with
// len(pos) streams: it returns the count of rows (1 to maxFrameRecords,
// named rows in the error: "sample", "packet") and the streams, sets
// pos[i] and end[i] to stream i's offsets in them, and returns bad when
// the lengths do not add up to the block.
func splitBlock(b []byte, pos, end []int, rows string, bad error) (int, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n == 0 || n > maxFrameRecords {
		return 0, nil, fmt.Errorf("a %s block of %d %ss: allowed 1 to %d", rows, n, rows, maxFrameRecords)
	}
	b = b[k:]
	total, at := uint64(0), 0
	for i := range pos {
		l, k := binary.Uvarint(b)
		if k <= 0 || l > uint64(len(b)) {
			return 0, nil, bad
		}
		total += l
		b = b[k:]
		pos[i], end[i] = at, at+int(l)
		at += int(l)
	}
	if total != uint64(len(b)) {
		return 0, nil, bad
	}
	return int(n), b, nil
}

// blockReader reads a block back one sample at a time. Streams are
// offsets into the block: reading moves integers, not slices.
type blockReader struct {
	n        int // samples left
	prev     [numColumns]int64
	b        []byte
	pos, end [numColumns + 1]int
}

var errBadSample = errors.New("malformed sample block")

func newBlockReader(b []byte) (*blockReader, error) {
	br := &blockReader{}
	var err error
	if br.n, br.b, err = splitBlock(b, br.pos[:], br.end[:], "sample", errBadSample); err != nil {
		return nil, err
	}
	return br, nil
}

// next decodes the next sample's row; ok is false after the last one.
func (br *blockReader) next() (r row, ok bool, err error) {
	if br.n == 0 {
		if br.pos != br.end {
			return r, false, errBadSample
		}
		return r, false, nil
	}
	br.n--
	mask, k := binary.Uvarint(br.b[br.pos[0]:br.end[0]])
	if k <= 0 || mask>>numColumns != 0 {
		return r, false, errBadSample
	}
	r.mask = mask
	br.pos[0] += k
	for _, c := range codingOrder {
		st := br.b[br.pos[1+c]:br.end[1+c]]
		if mask&(1<<c) != 0 {
			if len(st) < 8 {
				return r, false, errBadSample
			}
			r.raw[c] = binary.LittleEndian.Uint64(st)
			br.pos[1+c] += 8
			continue
		}
		d, k := binary.Varint(st)
		if k <= 0 {
			return r, false, errBadSample
		}
		br.pos[1+c] += k
		v := br.prev[c] + d
		br.prev[c] = v
		for _, ref := range sampleColumns[c].refs {
			v += r.q[ref]
		}
		r.q[c] = v
	}
	return r, true, r.check()
}

// check refuses what the writer cannot have written.
func (r *row) check() error {
	for c := range numColumns {
		if r.mask&(1<<c) != 0 {
			continue
		}
		switch col := &sampleColumns[c]; col.kind {
		case colInt:
			if (col.min != 0 || col.max != 0) && (r.q[c] < col.min || r.q[c] > col.max) {
				return fmt.Errorf("%s value %d out of range", col.name, r.q[c])
			}
		case colTime:
			if r.q[c] < 0 || r.q[c] >= maxTS*1e9 {
				return fmt.Errorf("sample time %d ns out of range", r.q[c])
			}
			if at, _, _ := quantiseColumn(c, math.Float64bits(float64(r.q[c])/1e9), nil); at != r.q[c] {
				return fmt.Errorf("sample time %d ns is not a whole nanosecond in seconds", r.q[c])
			}
		case colDec:
			if r.q[c] <= -1e15 || r.q[c] >= 1e15 {
				return fmt.Errorf("%s value out of range", sampleColumns[c].name)
			}
		}
	}
	var buf [32]byte
	for c := range numColumns {
		if r.mask&(1<<c) != 0 {
			if _, ok, _ := quantiseColumn(c, r.raw[c], buf[:0]); ok {
				return fmt.Errorf("%s stored raw though it need not be", sampleColumns[c].name)
			}
		}
	}
	if r.mask&(1<<cT) != 0 {
		if ts := math.Float64frombits(r.raw[cT]); !(ts >= 0 && ts < maxTS) {
			return errors.New("sample time out of range")
		}
	}
	return nil
}

// Same reports whether two samples are stored the same: equal after the
// format's quantisation. It is how verify compares.
func Same(a, b *metrics.Sample) bool {
	var buf [64]byte
	ra, _ := quantise(a, buf[:0])
	rb, _ := quantise(b, buf[:0])
	return ra == rb
}

// Stored is s as a recording gives it back: quantised as the format
// stores it.
func Stored(s *metrics.Sample) metrics.Sample {
	var buf [64]byte
	r, _ := quantise(s, buf[:0])
	return r.sample()
}
