package recordings

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/klauspost/compress/zstd"
)

// Rewrite rebuilds the recording b with every frame's decompressed bytes
// passed through edit (which may change them at will) and every checksum
// recomputed, the index entries keeping their times. It is what a hostile
// or buggy writer can make, for tests and fuzzing of the readers behind
// the checksums. b must be a whole, undamaged recording.
func Rewrite(b []byte, edit func(frame int, raw []byte) []byte) ([]byte, error) {
	r, err := Open(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, err
	}
	if r.Truncated || len(r.Damage) > 0 {
		return nil, errors.New("rewrite: the recording is damaged")
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	var out []byte
	for i, e := range r.frames {
		raw, err := r.dec.DecodeAll(b[e.offset:e.offset+int64(e.compLen)], nil)
		if err != nil {
			return nil, fmt.Errorf("rewrite: frame %d: %v", i, err)
		}
		comp := enc.EncodeAll(edit(i, raw), nil)
		e.compLen, e.crc = uint32(len(comp)), crc32.ChecksumIEEE(comp)
		out = append(appendEntry(out, e), comp...)
	}
	return out, nil
}

// Patch is [Rewrite] that writes patch over frame's decompressed bytes at
// pos (at their end if pos is past it), extending them if it runs past:
// what the fuzz targets of the readers behind the checksums vary.
func Patch(b []byte, frame, pos int, patch []byte) ([]byte, error) {
	return Rewrite(b, func(i int, raw []byte) []byte {
		if i != frame {
			return raw
		}
		p := min(pos, len(raw))
		return append(append(append([]byte(nil), raw[:p]...), patch...), raw[min(p+len(patch), len(raw)):]...)
	})
}
