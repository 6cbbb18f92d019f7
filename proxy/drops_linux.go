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
// at this socket (receive buffer full) to every datagram read (SO_RXQ_OVFL),
// and returns the socket's inode, which names it in /proc/net/udp.
func enableDropCount(c *net.UDPConn) (inode uint64) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	raw.Control(func(fd uintptr) {
		syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RXQ_OVFL, 1)
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
