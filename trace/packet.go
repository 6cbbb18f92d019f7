package trace

import (
	"encoding/binary"
	"net/netip"
)

// Link types of the captures [ReadPcap] decodes (the pcap LINKTYPE_
// numbers; a few systems write DLT numbers, 12 and 14, for raw IP).
const (
	linkNull     = 0   // BSD loopback: 4-byte address family, host byte order
	linkEthernet = 1   // Ethernet II, VLAN tags (802.1Q, 802.1ad) skipped
	linkRawDLT12 = 12  // raw IP (OpenBSD's DLT number)
	linkRawDLT14 = 14  // raw IP (another DLT number)
	linkRaw      = 101 // raw IP: version from the first nibble
	linkLoop     = 108 // OpenBSD loopback: family in network byte order
	linkSLL      = 113 // Linux cooked capture v1 (tcpdump -i any)
	linkIPv4     = 228
	linkIPv6     = 229
	linkSLL2     = 276 // Linux cooked capture v2 (newer libpcap, -i any)
)

// linkTypeNames names the link types read, for messages.
const linkTypeNames = "Ethernet (1), BSD loopback (0, 108), raw IP (12, 14, 101, 228, 229), Linux cooked SLL (113) and SLL2 (276)"

// skip is why a captured packet is not a UDP datagram of the capture's
// flows: one counter each.
type skip uint8

const (
	skipNone      skip = iota
	skipLinkType       // a link type not decoded
	skipNotIP          // ARP, LLDP, ...
	skipNotUDP         // TCP, ICMP, ...
	skipFragment       // an IP fragment: its UDP header or payload is elsewhere
	skipTruncated      // cut by the capture's snap length before the UDP header
	skipMalformed      // lengths that do not add up
	numSkips
)

var skipNames = [numSkips]string{"", "of another link type", "not IP", "not UDP", "IP fragments", "cut before the UDP header (snap length)", "malformed"}

// datagram is one UDP datagram as captured.
type datagram struct {
	src, dst netip.AddrPort
	payload  []byte // as captured: may be shorter than the datagram
	cut      bool   // the capture has fewer payload bytes than the datagram
}

// decode finds the UDP datagram in a captured frame of link type link.
func decode(link int, b []byte) (datagram, skip) {
	var ethertype uint16
	switch link {
	case linkEthernet:
		if len(b) < 14 {
			return datagram{}, skipTruncated
		}
		ethertype, b = binary.BigEndian.Uint16(b[12:]), b[14:]
		for i := 0; i < 2 && (ethertype == 0x8100 || ethertype == 0x88a8); i++ {
			if len(b) < 4 {
				return datagram{}, skipTruncated
			}
			ethertype, b = binary.BigEndian.Uint16(b[2:]), b[4:]
		}
	case linkSLL:
		if len(b) < 16 {
			return datagram{}, skipTruncated
		}
		ethertype, b = binary.BigEndian.Uint16(b[14:]), b[16:]
	case linkSLL2:
		if len(b) < 20 {
			return datagram{}, skipTruncated
		}
		ethertype, b = binary.BigEndian.Uint16(b[0:]), b[20:]
	case linkNull, linkLoop:
		if len(b) < 4 {
			return datagram{}, skipTruncated
		}
		fam := binary.BigEndian.Uint32(b)
		if link == linkNull && fam > 0xffff { // written in the other byte order
			fam = binary.LittleEndian.Uint32(b)
		}
		b = b[4:]
		switch fam {
		case 2:
			ethertype = 0x0800
		case 10, 24, 28, 30: // AF_INET6 on Linux, the BSDs, macOS
			ethertype = 0x86dd
		}
	case linkRaw, linkRawDLT12, linkRawDLT14, linkIPv4, linkIPv6:
		if len(b) == 0 {
			return datagram{}, skipTruncated
		}
		switch b[0] >> 4 {
		case 4:
			ethertype = 0x0800
		case 6:
			ethertype = 0x86dd
		}
	default:
		return datagram{}, skipLinkType
	}
	switch ethertype {
	case 0x0800:
		return decodeIPv4(b)
	case 0x86dd:
		return decodeIPv6(b)
	}
	return datagram{}, skipNotIP
}

func decodeIPv4(b []byte) (datagram, skip) {
	if len(b) < 20 {
		return datagram{}, skipTruncated
	}
	ihl := int(b[0]&15) * 4
	total := int(binary.BigEndian.Uint16(b[2:]))
	if b[0]>>4 != 4 || ihl < 20 || total < ihl {
		return datagram{}, skipMalformed
	}
	if b[9] != 17 {
		return datagram{}, skipNotUDP
	}
	if binary.BigEndian.Uint16(b[6:])&0x3fff != 0 { // more fragments, or an offset
		return datagram{}, skipFragment
	}
	if len(b) < ihl {
		return datagram{}, skipTruncated
	}
	src, _ := netip.AddrFromSlice(b[12:16])
	dst, _ := netip.AddrFromSlice(b[16:20])
	// A frame may carry padding after the IP packet (short Ethernet
	// frames): the IP length bounds the datagram.
	return decodeUDP(src, dst, b[ihl:min(len(b), total)], total-ihl)
}

func decodeIPv6(b []byte) (datagram, skip) {
	if len(b) < 40 {
		return datagram{}, skipTruncated
	}
	if b[0]>>4 != 6 {
		return datagram{}, skipMalformed
	}
	length := int(binary.BigEndian.Uint16(b[4:])) // the payload after the fixed header
	next := b[6]
	src, _ := netip.AddrFromSlice(b[8:24])
	dst, _ := netip.AddrFromSlice(b[24:40])
	b = b[40:]
	// Extension headers: hop-by-hop, routing, fragment, destination
	// options, authentication; at most 8 of them.
	for range 8 {
		var n int
		switch next {
		case 17:
			return decodeUDP(src, dst, b[:min(len(b), max(length, 0))], length)
		case 0, 43, 60:
			if len(b) < 2 {
				return datagram{}, skipTruncated
			}
			n = (int(b[1]) + 1) * 8
		case 44:
			if len(b) < 8 {
				return datagram{}, skipTruncated
			}
			if binary.BigEndian.Uint16(b[2:])&0xfff9 != 0 { // an offset, or more fragments
				return datagram{}, skipFragment
			}
			n = 8
		case 51:
			if len(b) < 2 {
				return datagram{}, skipTruncated
			}
			n = (int(b[1]) + 2) * 4
		default:
			return datagram{}, skipNotUDP
		}
		if len(b) < n {
			return datagram{}, skipTruncated
		}
		next, b, length = b[0], b[n:], length-n
	}
	return datagram{}, skipNotUDP
}

// decodeUDP reads the UDP header in b, the captured bytes of an IP
// payload of length bytes.
func decodeUDP(src, dst netip.Addr, b []byte, length int) (datagram, skip) {
	if len(b) < 8 {
		if length >= 8 {
			return datagram{}, skipTruncated
		}
		return datagram{}, skipMalformed
	}
	ulen := int(binary.BigEndian.Uint16(b[4:]))
	if ulen < 8 || ulen > length {
		// 0 is a jumbogram's (RFC 2675); a length past the IP packet
		// does not add up.
		return datagram{}, skipMalformed
	}
	d := datagram{src: netip.AddrPortFrom(src.Unmap(), binary.BigEndian.Uint16(b[0:])), dst: netip.AddrPortFrom(dst.Unmap(), binary.BigEndian.Uint16(b[2:]))}
	d.payload = b[8:min(len(b), ulen)]
	d.cut = len(b) < ulen
	return d, skipNone
}
