package proxy

import (
	"encoding/binary"
	"net"
	"syscall"
)

// enableDropCount asks the kernel to attach its count of datagrams dropped
// at this socket (receive buffer full) to every datagram read (SO_RXQ_OVFL).
func enableDropCount(c *net.UDPConn) {
	raw, err := c.SyscallConn()
	if err != nil {
		return
	}
	raw.Control(func(fd uintptr) {
		syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RXQ_OVFL, 1)
	})
}

// dropCount reads the kernel's cumulative drop count from a datagram's
// control messages; the kernel attaches it once it is non-zero.
func dropCount(oob []byte) (uint32, bool) {
	if len(oob) == 0 {
		return 0, false
	}
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return 0, false
	}
	for _, m := range msgs {
		if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SO_RXQ_OVFL && len(m.Data) >= 4 {
			return binary.NativeEndian.Uint32(m.Data), true
		}
	}
	return 0, false
}
