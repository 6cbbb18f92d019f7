package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"jitterlab/internal/testmem"
)

// repeated is a capture made on the fly: prefix, then unit n times. It
// costs no memory however long it is.
type repeated struct {
	prefix, unit []byte
	n            int64
	off          int64
}

func (r *repeated) size() int64 { return int64(len(r.prefix)) + r.n*int64(len(r.unit)) }

func (r *repeated) Read(p []byte) (int, error) {
	if r.off >= r.size() {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && r.off < r.size() {
		var c int
		if r.off < int64(len(r.prefix)) {
			c = copy(p[k:], r.prefix[r.off:])
		} else {
			u := (r.off - int64(len(r.prefix))) % int64(len(r.unit))
			c = copy(p[k:], r.unit[u:])
		}
		k += c
		r.off += int64(c)
	}
	return k, nil
}

func (r *repeated) Seek(off int64, whence int) (int64, error) {
	if whence != io.SeekStart {
		return 0, errors.New("only from the start")
	}
	r.off = off
	return off, nil
}

// sectionHeader is a little-endian pcapng section header block.
func sectionHeader() []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, ngSectionHeader)
	b = le.AppendUint32(b, 28)
	b = le.AppendUint32(b, ngByteOrderMagic)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint64(b, ^uint64(0))
	return le.AppendUint32(b, 28)
}

// emptyInterface is a 20-byte interface description block (Ethernet).
func emptyInterface() []byte {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, ngInterface)
	b = le.AppendUint32(b, 20)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, 65535)
	return le.AppendUint32(b, 20)
}

// Issue 27 item 4: 100 MB of empty interface description blocks is a
// clear error, read in a few megabytes (RSS of a child process).
func TestPcapngOfEmptyInterfacesInBoundedMemory(t *testing.T) {
	if !testmem.InChild(t, 2<<30, 48<<20) {
		return
	}
	r := &repeated{prefix: sectionHeader(), unit: emptyInterface(), n: 5 << 20}
	_, _, err := ReadPcap([]PcapFile{{Name: "idb.pcapng", R: r}}, PcapOptions{Seq: DefaultSeq})
	if err == nil || !strings.Contains(err.Error(), "idb.pcapng") || !strings.Contains(err.Error(), "more than 1024 interface description blocks in one section") {
		t.Fatalf("%d MB of empty interface blocks: %v; want the file and the bound named", r.size()>>20, err)
	}
}

// FuzzNgGuard: the guard's verdict and the bytes it passes do not depend
// on how the reads cut the stream (its parsing of block headers split
// across reads is right), and it passes the bytes unchanged.
func FuzzNgGuard(f *testing.F) {
	f.Add(append(sectionHeader(), bytes.Repeat(emptyInterface(), 3)...), uint8(5))
	f.Add(append(append(sectionHeader(), emptyInterface()...), sectionHeader()...), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		whole, errWhole := io.ReadAll(newNgGuard(bytes.NewReader(data)))
		cut, errCut := io.ReadAll(newNgGuard(&chunked{data: data, n: int(chunk)%13 + 1}))
		if (errWhole == nil) != (errCut == nil) {
			t.Fatalf("read whole: %v; read in pieces of %d: %v", errWhole, int(chunk)%13+1, errCut)
		}
		if errWhole == nil && (!bytes.Equal(whole, data) || !bytes.Equal(cut, data)) {
			t.Fatal("the guard changed the bytes it passed")
		}
	})
}

// chunked reads data n bytes at a time.
type chunked struct {
	data []byte
	n    int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[k:]
	return k, nil
}
