package trace

import (
	"encoding/binary"
	"fmt"
	"io"
)

// Bounds of what a pcapng capture may make the reader keep. gopacket's
// reader keeps every Interface Description Block of a section (and its
// name records and decryption secrets) for the rest of the section: 100 MB
// of empty interface blocks cost it gigabytes. [ngGuard] counts them as
// the bytes go by and refuses a capture past these bounds. A real capture
// has a few interfaces and little else kept.
const (
	maxNgInterfaces = 1024     // interface description blocks in one section
	maxNgKept       = 16 << 20 // bytes of blocks kept for a section (interfaces, names, secrets)
	maxNgBlock      = 16 << 20 // bytes of one block (a packet is at most 256 KB)
)

// pcapng block types the reader keeps for a section, and the section
// header that starts one.
const (
	ngSectionHeader    = 0x0a0d0d0a
	ngInterface        = 0x00000001
	ngNameResolution   = 0x00000004
	ngDecryptionSecret = 0x0000000a
	ngByteOrderMagic   = 0x1a2b3c4d
)

// ngGuard passes a pcapng stream through, parsing the block headers it
// carries, and fails the read that passes a bound: more than
// maxNgInterfaces interfaces or maxNgKept bytes kept in one section, a
// block longer than maxNgBlock or shorter than 12 bytes.
type ngGuard struct {
	r      io.Reader
	head   [12]byte // the current block's first bytes, while they come
	nhead  int
	left   int64 // bytes of the current block still to pass
	order  binary.ByteOrder
	ifaces int   // interface blocks in this section
	kept   int64 // bytes of the blocks kept for this section
	err    error
}

func newNgGuard(r io.Reader) *ngGuard { return &ngGuard{r: r, order: binary.LittleEndian} }

func (g *ngGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	if e := g.track(p[:n]); e != nil {
		g.err = e
		return 0, e
	}
	return n, err
}

// track follows the block structure over b.
func (g *ngGuard) track(b []byte) error {
	for len(b) > 0 {
		if g.left > 0 {
			k := min(g.left, int64(len(b)))
			g.left -= k
			b = b[k:]
			continue
		}
		k := copy(g.head[g.nhead:], b)
		g.nhead += k
		b = b[k:]
		if g.nhead < len(g.head) {
			return nil
		}
		g.nhead = 0
		if err := g.block(); err != nil {
			return err
		}
	}
	return nil
}

// block checks the block whose first 12 bytes are in head and sets how
// many of its bytes follow.
func (g *ngGuard) block() error {
	typ := binary.LittleEndian.Uint32(g.head[0:])
	if typ == ngSectionHeader {
		switch uint32(ngByteOrderMagic) {
		case binary.LittleEndian.Uint32(g.head[8:]):
			g.order = binary.LittleEndian
		case binary.BigEndian.Uint32(g.head[8:]):
			g.order = binary.BigEndian
		default:
			return fmt.Errorf("a section header without pcapng's byte-order magic")
		}
		g.ifaces, g.kept = 0, 0
	} else {
		typ = g.order.Uint32(g.head[0:])
	}
	size := int64(g.order.Uint32(g.head[4:]))
	switch {
	case size < 12:
		return fmt.Errorf("a pcapng block of %d bytes: want at least 12", size)
	case size > maxNgBlock:
		return fmt.Errorf("a pcapng block of %d bytes: want at most %d", size, maxNgBlock)
	}
	switch typ {
	case ngInterface:
		if g.ifaces++; g.ifaces > maxNgInterfaces {
			return fmt.Errorf("more than %d interface description blocks in one section: want at most %d", maxNgInterfaces, maxNgInterfaces)
		}
		fallthrough
	case ngNameResolution, ngDecryptionSecret:
		if g.kept += size; g.kept > maxNgKept {
			return fmt.Errorf("more than %d bytes of interface, name and secret blocks in one section: want at most %d", maxNgKept, maxNgKept)
		}
	}
	g.left = size - 12
	return nil
}
