package proxy

// bufPool recycles payload buffers so relaying a datagram allocates
// nothing in the steady state. Buffers come in power-of-two size classes
// from minBuf to MaxPacket rounded up; each class keeps at most poolBytes of
// free buffers (beyond that a returned buffer is left to the collector), so
// the pool never holds more than poolClasses × poolBytes.
type bufPool struct {
	free [poolClasses]chan []byte
}

const (
	minBufShift = 9 // 512 bytes
	poolClasses = 8 // 512 B … 64 KiB
	poolBytes   = 2 << 20
)

func newBufPool() *bufPool {
	p := &bufPool{}
	for i := range p.free {
		p.free[i] = make(chan []byte, poolBytes>>(minBufShift+i))
	}
	return p
}

// class is the smallest class holding n bytes.
func class(n int) int {
	c := 0
	for n > 1<<(minBufShift+c) && c < poolClasses-1 {
		c++
	}
	return c
}

// get returns a buffer of length n (at most MaxPacket).
func (p *bufPool) get(n int) []byte {
	c := class(n)
	select {
	case b := <-p.free[c]:
		return b[:n]
	default:
		return make([]byte, n, 1<<(minBufShift+c))
	}
}

// put returns a buffer that get handed out; nothing may use it afterwards.
func (p *bufPool) put(b []byte) {
	c := class(cap(b))
	if cap(b) != 1<<(minBufShift+c) {
		return // not one of ours
	}
	select {
	case p.free[c] <- b[:0]:
	default:
	}
}
