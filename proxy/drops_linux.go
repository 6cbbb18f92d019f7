package proxy

import (
	"bufio"
	"encoding/binary"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// enableDropCount asks the kernel to attach its count of datagrams dropped
// at this socket (receive buffer full) to every datagram read (SO_RXQ_OVFL)
// and the time each datagram arrived (SO_TIMESTAMPNS), and returns the socket's inode, which names it in /proc/net/udp.
func enableDropCount(c *net.UDPConn) (inode uint64) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	raw.Control(func(fd uintptr) {
		syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RXQ_OVFL, 1)
		syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) == nil {
			inode = st.Ino
		}
	})
	return inode
}

// dropCount reads the kernel's cumulative drop count from a datagram's
// control messages; the kernel attaches it once it is non-zero.
func dropCount(oob []byte) (uint32, bool) {
	m := readOOB(oob)
	return m.drops, m.hasDrops
}

// oobInfo is what the kernel attached to a datagram.
type oobInfo struct {
	drops    uint32 // SO_RXQ_OVFL: the socket's cumulative drops
	hasDrops bool
	stamp    int64 // SO_TIMESTAMPNS: when it arrived, ns since the Unix epoch
	hasStamp bool
}

// readOOB walks the control messages without allocating (unlike
// syscall.ParseSocketControlMessage, which would cost an allocation per
// datagram).
func readOOB(oob []byte) oobInfo {
	var m oobInfo
	hdr := syscall.SizeofCmsghdr // 16 on 64-bit Linux: len (word), level, type (int32)
	for len(oob) >= hdr {
		var n int
		if hdr == 16 {
			n = int(binary.NativeEndian.Uint64(oob))
		} else {
			n = int(binary.NativeEndian.Uint32(oob))
		}
		if n < hdr || n > len(oob) {
			break
		}
		level := int32(binary.NativeEndian.Uint32(oob[hdr-8:]))
		typ := int32(binary.NativeEndian.Uint32(oob[hdr-4:]))
		data := oob[hdr:n]
		switch {
		case level == syscall.SOL_SOCKET && typ == syscall.SO_RXQ_OVFL && len(data) >= 4:
			m.drops, m.hasDrops = binary.NativeEndian.Uint32(data), true
		case level == syscall.SOL_SOCKET && typ == syscall.SCM_TIMESTAMPNS && len(data) >= 16 && hdr == 16:
			sec := int64(binary.NativeEndian.Uint64(data))
			nsec := int64(binary.NativeEndian.Uint64(data[8:]))
			m.stamp, m.hasStamp = sec*1e9+nsec, true
		}
		next := (n + 7) &^ 7 // CMSG_ALIGN on 64-bit
		if hdr != 16 {
			next = (n + 3) &^ 3
		}
		if next >= len(oob) {
			break
		}
		oob = oob[next:]
	}
	return m
}

// procDrops reads the same counts for every UDP socket, by inode, from
// /proc/net/udp and udp6: the drops after the last datagram read, which no
// control message reports.
func procDrops() map[uint64]uint32 {
	out := map[uint64]uint32{}
	for _, name := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
			fields := strings.Fields(sc.Text())
			if len(fields) < 13 {
				continue
			}
			inode, err1 := strconv.ParseUint(fields[9], 10, 64)
			drops, err2 := strconv.ParseUint(fields[12], 10, 32)
			if err1 == nil && err2 == nil {
				out[inode] = uint32(drops)
			}
		}
		f.Close()
	}
	return out
}
