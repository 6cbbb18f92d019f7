//go:build !linux

package proxy

import "net"

// enableDropCount does nothing: counting the kernel's drops needs Linux's
// SO_RXQ_OVFL.
func enableDropCount(*net.UDPConn) uint64 { return 0 }

func dropCount([]byte) (uint32, bool) { return 0, false }

func procDrops(map[uint64]uint32) {}

type oobInfo struct {
	drops    uint32
	hasDrops bool
	stamp    int64
	hasStamp bool
}

func readOOB([]byte) oobInfo { return oobInfo{} }
