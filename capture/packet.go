package capture

import (
	"encoding/binary"
	"net/netip"
)

// Addresses of a simulated session's datagrams: the documentation ranges
// of RFC 5737, so they never collide with a real capture's.
var (
	SimClient = netip.MustParseAddrPort("192.0.2.1:40000")
	SimServer = netip.MustParseAddrPort("198.51.100.1:40001")
)

// Message kind codes of the synthetic payload.
var kindCodes = map[string]byte{"login": 1, "login_ack": 2, "move_input": 3, "player_state": 4}

// PayloadMin is the smallest synthetic payload: the kind and the sequence
// number.
const PayloadMin = 5

// Payload appends the synthetic payload of a simulated datagram to b:
// size bytes (at least PayloadMin), laid out as
//
//	byte 0     the message kind: 1 login, 2 login_ack, 3 move_input,
//	           4 player_state, 0 another
//	bytes 1–4  the link's send sequence number, big-endian (its low 32 bits)
//	bytes 5–   zero, up to the message's size on the simulated wire
//
// so a Wireshark filter such as udp.payload[0] == 3 picks the inputs and
// the captured length is what the link's rate limit counted.
func Payload(b []byte, kind string, seq uint64, size int) []byte {
	b = append(b, kindCodes[kind])
	b = binary.BigEndian.AppendUint32(b, uint32(seq))
	for range max(size, PayloadMin) - PayloadMin {
		b = append(b, 0)
	}
	return b
}

// appendIPUDP appends an IPv4 (or, when either address is IPv6, an IPv6)
// header and a UDP header for payload from src to dst, then payload. id
// is the IPv4 identification.
func appendIPUDP(b []byte, src, dst netip.AddrPort, id uint16, payload []byte) []byte {
	udpLen := 8 + len(payload)
	s, d := src.Addr().Unmap(), dst.Addr().Unmap()
	if s.Is4() && d.Is4() {
		h := len(b)
		b = append(b, 0x45, 0)
		b = binary.BigEndian.AppendUint16(b, uint16(20+udpLen))
		b = binary.BigEndian.AppendUint16(b, id)
		b = append(b, 0x40, 0, 64, 17, 0, 0) // don't fragment, TTL 64, UDP, checksum below
		s4, d4 := s.As4(), d.As4()
		b = append(b, s4[:]...)
		b = append(b, d4[:]...)
		binary.BigEndian.PutUint16(b[h+10:], ^fold(sum(0, b[h:h+20])))
		b = appendUDP(b, src.Port(), dst.Port(), payload)
		// IPv4 allows no UDP checksum (0): none is computed.
		return b
	}
	s16, d16 := s.As16(), d.As16()
	b = append(b, 0x60, 0, 0, 0)
	b = binary.BigEndian.AppendUint16(b, uint16(udpLen))
	b = append(b, 17, 64) // UDP, hop limit 64
	b = append(b, s16[:]...)
	b = append(b, d16[:]...)
	u := len(b)
	b = appendUDP(b, src.Port(), dst.Port(), payload)
	// IPv6 requires the UDP checksum, over a pseudo-header.
	c := sum(0, s16[:])
	c = sum(c, d16[:])
	c += uint32(udpLen) + 17
	c = sum(c, b[u:])
	ck := ^fold(c)
	if ck == 0 {
		ck = 0xFFFF
	}
	binary.BigEndian.PutUint16(b[u+6:], ck)
	return b
}

func appendUDP(b []byte, sport, dport uint16, payload []byte) []byte {
	b = binary.BigEndian.AppendUint16(b, sport)
	b = binary.BigEndian.AppendUint16(b, dport)
	b = binary.BigEndian.AppendUint16(b, uint16(8+len(payload)))
	b = append(b, 0, 0)
	return append(b, payload...)
}

// sum adds b to the one's complement sum c as 16-bit big-endian words.
func sum(c uint32, b []byte) uint32 {
	for len(b) >= 2 {
		c += uint32(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		c += uint32(b[0]) << 8
	}
	return c
}

func fold(c uint32) uint16 {
	for c > 0xFFFF {
		c = c&0xFFFF + c>>16
	}
	return uint16(c)
}
