package trace

import (
	"bytes"
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// TestFrame is one captured datagram for a test capture.
type TestFrame struct {
	At       int64 // Unix ns
	Src, Dst netip.AddrPort
	Payload  []byte
	Snap     int // keep only this many bytes of the frame (0: all)
}

// Link types for TestFrame captures.
const (
	LinkNull     = linkNull
	LinkEthernet = linkEthernet
	LinkRaw      = linkRaw
	LinkSLL      = linkSLL
	LinkSLL2     = linkSLL2
	LinkLoop     = linkLoop
)

// EncodeFrame builds a frame of link type link carrying one UDP datagram
// (IPv4 or IPv6 by the addresses).
func EncodeFrame(link int, src, dst netip.AddrPort, payload []byte) []byte {
	udp := binary.BigEndian.AppendUint16(nil, src.Port())
	udp = binary.BigEndian.AppendUint16(udp, dst.Port())
	udp = binary.BigEndian.AppendUint16(udp, uint16(8+len(payload)))
	udp = append(udp, 0, 0) // no checksum
	udp = append(udp, payload...)
	var ip []byte
	v6 := src.Addr().Is6()
	if v6 {
		ip = []byte{0x60, 0, 0, 0}
		ip = binary.BigEndian.AppendUint16(ip, uint16(len(udp)))
		ip = append(ip, 17, 64)
		s, d := src.Addr().As16(), dst.Addr().As16()
		ip = append(append(ip, s[:]...), d[:]...)
	} else {
		ip = []byte{0x45, 0}
		ip = binary.BigEndian.AppendUint16(ip, uint16(20+len(udp)))
		ip = append(ip, 0, 0, 0x40, 0, 64, 17, 0, 0) // id, DF, ttl, UDP, no checksum
		s, d := src.Addr().As4(), dst.Addr().As4()
		ip = append(append(ip, s[:]...), d[:]...)
	}
	ip = append(ip, udp...)
	ethertype := uint16(0x0800)
	if v6 {
		ethertype = 0x86dd
	}
	var hdr []byte
	switch link {
	case linkEthernet:
		hdr = append([]byte{2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2}, byte(ethertype>>8), byte(ethertype))
	case linkSLL:
		hdr = []byte{0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, byte(ethertype >> 8), byte(ethertype)}
	case linkSLL2:
		hdr = []byte{byte(ethertype >> 8), byte(ethertype), 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0}
	case linkNull:
		fam := uint32(2)
		if v6 {
			fam = 30
		}
		hdr = binary.LittleEndian.AppendUint32(nil, fam)
	case linkLoop:
		fam := uint32(2)
		if v6 {
			fam = 24
		}
		hdr = binary.BigEndian.AppendUint32(nil, fam)
	}
	return append(hdr, ip...)
}

// WriteTestPcapng writes frames as a pcapng capture of link type link.
func WriteTestPcapng(t testing.TB, link int, frames []TestFrame) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&buf, pcapgo.NgInterface{Name: "test", LinkType: layers.LinkType(link), SnapLength: 0}, pcapgo.NgWriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		data := EncodeFrame(link, f.Src, f.Dst, f.Payload)
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(0, f.At), Length: len(data), CaptureLength: len(data)}
		if f.Snap > 0 && f.Snap < len(data) {
			data, ci.CaptureLength = data[:f.Snap], f.Snap
		}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// WriteTestPcap writes frames as a classic pcap capture (nanosecond
// timestamps) of link type link.
func WriteTestPcap(t testing.TB, link int, frames []TestFrame) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := pcapgo.NewWriterNanos(&buf)
	if err := w.WriteFileHeader(65535, layers.LinkType(link)); err != nil {
		t.Fatal(err)
	}
	for _, f := range frames {
		data := EncodeFrame(link, f.Src, f.Dst, f.Payload)
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(0, f.At), Length: len(data), CaptureLength: len(data)}
		if f.Snap > 0 && f.Snap < len(data) {
			data, ci.CaptureLength = data[:f.Snap], f.Snap
		}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// SeqPayload is a test payload: seq big-endian in width bytes, then
// filler up to size bytes.
func SeqPayload(seq uint64, width, size int) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seq)
	p := append([]byte(nil), b[8-width:]...)
	for len(p) < size {
		p = append(p, 'x')
	}
	return p
}
