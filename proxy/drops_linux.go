package proxy

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net"
	"os"
	"strconv"
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

// procDrops reads the same counts for the UDP sockets whose inodes are in
// want, from /proc/net/udp and udp6: the drops after the last datagram
// read, which no control message reports. It allocates little however
// many sockets the machine has (it runs every second).
func procDrops(want map[uint64]uint32) {
	for _, name := range []string{"/proc/net/udp", "/proc/net/udp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			// sl local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops
			inode, ok1 := field(sc.Bytes(), 9)
			drops, ok2 := field(sc.Bytes(), 12)
			if !ok1 || !ok2 {
				continue
			}
			ino, err1 := strconv.ParseUint(string(inode), 10, 64) // no allocation: the conversion does not escape
			if _, ok := want[ino]; !ok || err1 != nil {
				continue
			}
			if d, err := strconv.ParseUint(string(drops), 10, 32); err == nil {
				want[ino] = uint32(d)
			}
		}
		f.Close()
	}
}

// field is the i-th (from 0) space-separated field of line.
func field(line []byte, i int) ([]byte, bool) {
	for {
		for len(line) > 0 && line[0] == ' ' {
			line = line[1:]
		}
		if len(line) == 0 {
			return nil, false
		}
		end := bytes.IndexByte(line, ' ')
		if end < 0 {
			end = len(line)
		}
		if i == 0 {
			return line[:end], true
		}
		line, i = line[end:], i-1
	}
}
