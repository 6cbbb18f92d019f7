//go:build !linux

package proxy

import "net"

// enableDropCount does nothing: counting the kernel's drops needs Linux's
// SO_RXQ_OVFL.
func enableDropCount(*net.UDPConn) {}

func dropCount([]byte) (uint32, bool) { return 0, false }
