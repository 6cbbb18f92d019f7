//go:build !linux

package proxy

import "net"

// askReceiveBuffer asks for the receive buffer; what the kernel gave is
// not read back here (0: not known).
func askReceiveBuffer(c *net.UDPConn, bytes int) int {
	c.SetReadBuffer(bytes)
	return 0
}
