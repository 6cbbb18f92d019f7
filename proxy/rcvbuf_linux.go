package proxy

import (
	"net"
	"syscall"
)

// askReceiveBuffer asks the kernel for a receive buffer of bytes on the
// socket (SO_RCVBUF) and returns what it granted: at most
// net.core.rmem_max, half what it reports (see [DefaultReceiveBuffer]);
// 0 when the kernel refused the request or the read back.
func askReceiveBuffer(c *net.UDPConn, bytes int) (granted int) {
	if c.SetReadBuffer(bytes) != nil {
		return 0
	}
	raw, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	raw.Control(func(fd uintptr) {
		if n, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF); err == nil {
			granted = n / 2
		}
	})
	return granted
}
