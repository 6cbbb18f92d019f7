package trace

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// SeqField is where every datagram's payload carries its sequence number:
// Width bytes (1 to 8) at Offset from the UDP payload's start, big-endian
// (network byte order) unless Little.
type SeqField struct {
	Offset, Width int
	Little        bool
}

// DefaultSeq is the sequence number [ReadPcap] reads unless told: the
// payload's first 4 bytes, big-endian.
var DefaultSeq = SeqField{Offset: 0, Width: 4}

// maxSeqOffset bounds SeqField.Offset: a UDP payload's largest size.
const maxSeqOffset = 65507

func (s SeqField) String() string {
	order := "be"
	if s.Little {
		order = "le"
	}
	return fmt.Sprintf("%d:%d:%s", s.Offset, s.Width, order)
}

// ParseSeqField reads OFFSET[:WIDTH[:be|le]], e.g. "0:4" (the default
// width 4 and order be).
func ParseSeqField(s string) (SeqField, error) {
	f := DefaultSeq
	parts := strings.Split(s, ":")
	bad := func(what string) (SeqField, error) {
		return SeqField{}, fmt.Errorf("--seq %q: %s; want OFFSET[:WIDTH[:be|le]], e.g. 0:4:be (the default: the payload's first 4 bytes, big-endian)", s, what)
	}
	if len(parts) > 3 {
		return bad("too many fields")
	}
	off, err := strconv.Atoi(parts[0])
	if err != nil || off < 0 || off > maxSeqOffset {
		return bad(fmt.Sprintf("the offset is the byte where the number starts in the UDP payload, 0 to %d", maxSeqOffset))
	}
	f.Offset = off
	if len(parts) > 1 {
		w, err := strconv.Atoi(parts[1])
		if err != nil || w < 1 || w > 8 {
			return bad("the width is 1 to 8 bytes")
		}
		f.Width = w
	}
	if len(parts) > 2 {
		switch parts[2] {
		case "be":
		case "le":
			f.Little = true
		default:
			return bad("the byte order is be (big-endian, network order) or le (little-endian)")
		}
	}
	return f, nil
}

// read takes the sequence number from a payload; ok is false when the
// payload is too short.
func (s SeqField) read(p []byte) (uint64, bool) {
	if len(p) < s.Offset+s.Width {
		return 0, false
	}
	var b [8]byte
	if s.Little {
		copy(b[:], p[s.Offset:s.Offset+s.Width])
		return binary.LittleEndian.Uint64(b[:]), true
	}
	copy(b[8-s.Width:], p[s.Offset:s.Offset+s.Width])
	return binary.BigEndian.Uint64(b[:]), true
}

// Endpoint picks one end of a UDP flow: an address, a port or both (the
// zero value of either matches any).
type Endpoint struct {
	Addr netip.Addr
	Port uint16
}

// ParseEndpoint reads IP:PORT, [IPv6]:PORT, IP or :PORT.
func ParseEndpoint(flag, s string) (Endpoint, error) {
	bad := fmt.Errorf("--%s %q: want IP:PORT, [IPv6]:PORT, IP or :PORT, e.g. 10.0.0.2:5000 or :27015", flag, s)
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return Endpoint{ap.Addr().Unmap(), ap.Port()}, nil
	}
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return Endpoint{Addr: a.Unmap()}, nil
	}
	if p, ok := strings.CutPrefix(s, ":"); ok {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return Endpoint{}, bad
		}
		return Endpoint{Port: uint16(n)}, nil
	}
	return Endpoint{}, bad
}

func (e Endpoint) given() bool { return e.Addr.IsValid() || e.Port != 0 }

func (e Endpoint) match(a netip.AddrPort) bool {
	return (!e.Addr.IsValid() || e.Addr == a.Addr()) && (e.Port == 0 || e.Port == a.Port())
}

func (e Endpoint) String() string {
	switch {
	case e.Addr.IsValid() && e.Port != 0:
		return netip.AddrPortFrom(e.Addr, e.Port).String()
	case e.Addr.IsValid():
		return e.Addr.String()
	}
	return ":" + strconv.Itoa(int(e.Port))
}

// PcapOptions say how to read captures: where the sequence number is,
// and which endpoints are the game client's and the game server's (each
// as its own capture sees it; zero: chosen as [ReadPcap] says).
type PcapOptions struct {
	Seq            SeqField
	Client, Server Endpoint
}

// PcapFile is one capture to read: a name for messages and its bytes,
// read twice (once to find the flows, once to take their packets).
type PcapFile struct {
	Name string
	R    io.ReadSeeker
}

// IsPcap says whether data starts like a pcap or pcapng file.
func IsPcap(data []byte) bool {
	if len(data) < 4 {
		return false
	}
	switch binary.LittleEndian.Uint32(data) {
	case 0x0a0d0d0a, 0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1:
		return true
	}
	return false
}

// Bounds of the pcap reader besides MaxPackets: the distinct UDP flows
// counted per capture (more are counted together, and never chosen), of
// them the flows that match no endpoint named when one is, the flows kept
// after the first pass besides those matching (the busiest), and the flows
// an error lists.
const (
	maxFlows      = 1 << 16
	maxOtherFlows = 1 << 12
	keptFlows     = 8
	listFlows     = 6
)

// flow is a UDP flow: its two endpoints, a before b in the order of the
// flow's first packet (a sent it), and the capture interface that saw it
// (a pcapng file may hold several: the lab's own captures have a client
// side and a server side, which see the same endpoints).
type flow struct {
	a, b  netip.AddrPort
	iface int
}

// key is the flow's endpoints in a fixed order, whichever sent first.
func flowKey(x, y netip.AddrPort, iface int) flow {
	if x.Compare(y) > 0 {
		x, y = y, x
	}
	return flow{x, y, iface}
}

func (f flow) String() string {
	s := f.a.String() + " ↔ " + f.b.String()
	if f.iface > 0 {
		s += fmt.Sprintf(" (interface %d)", f.iface)
	}
	return s
}

// flowStats is what the first pass counts of a flow.
type flowStats struct {
	flow    flow // a sent the first packet
	packets int
	first   int // the capture's packet number of its first packet
}

// fileScan is what the first pass found in one capture.
type fileScan struct {
	name    string
	packets int          // every captured packet
	udp     int          // of them UDP datagrams
	nflows  int          // distinct flows counted
	flows   []*flowStats // the busiest few and those matching an endpoint named
	uncount int          // UDP packets of flows beyond the bounds
	skipped [numSkips]int
	links   map[int]int // link type → packets
	cutAt   int         // the packet the capture ends inside, 0 when whole
}

// packetSource reads one capture's packets with the link type of each.
type packetSource struct {
	next func() ([]byte, int64, int, int, error) // data, Unix ns, link type, interface
}

func openCapture(f PcapFile) (*packetSource, error) {
	if _, err := f.R.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	br := bufio.NewReaderSize(f.R, 1<<16)
	magic, err := br.Peek(4)
	if err != nil || !IsPcap(magic) {
		return nil, &Error{File: f.Name, Want: "not a pcap or pcapng capture (tcpdump -w, dumpcap -w, Wireshark's Save As)"}
	}
	wrap := func(err error) error {
		return &Error{File: f.Name, Want: "not a readable capture: " + err.Error()}
	}
	if binary.LittleEndian.Uint32(magic) == 0x0a0d0d0a {
		r, err := pcapgo.NewNgReader(bufio.NewReaderSize(newNgGuard(br), 1<<16), pcapgo.NgReaderOptions{WantMixedLinkType: true, SkipUnknownVersion: true})
		if err != nil {
			return nil, wrap(err)
		}
		return &packetSource{next: func() ([]byte, int64, int, int, error) {
			data, ci, err := r.ZeroCopyReadPacketData()
			if err != nil {
				return nil, 0, 0, 0, err
			}
			link := int(r.LinkType())
			if len(ci.AncillaryData) > 0 {
				if lt, ok := ci.AncillaryData[0].(layers.LinkType); ok {
					link = int(lt)
				}
			}
			return data, ci.Timestamp.UnixNano(), link, ci.InterfaceIndex, nil
		}}, nil
	}
	r, err := pcapgo.NewReader(br)
	if err != nil {
		return nil, wrap(err)
	}
	return &packetSource{next: func() ([]byte, int64, int, int, error) {
		data, ci, err := r.ZeroCopyReadPacketData()
		return data, ci.Timestamp.UnixNano(), int(r.LinkType()), 0, err
	}}, nil
}

// each calls fn for every whole packet of the capture (numbered from 1).
// A capture that ends inside a packet (tcpdump killed, a live capture
// copied) ends there: cutAt is that packet's number, 0 when the capture
// ends whole.
func each(f PcapFile, fn func(n int, data []byte, at int64, link, iface int) error) (cutAt int, err error) {
	src, err := openCapture(f)
	if err != nil {
		return 0, err
	}
	for n := 1; ; n++ {
		data, at, link, iface, err := src.next()
		if errors.Is(err, io.EOF) {
			return 0, nil
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return n, nil
		}
		if err != nil {
			return 0, &Error{File: f.Name, Packet: n, Want: "unreadable: " + err.Error()}
		}
		if err := fn(n, data, at, link, iface); err != nil {
			return 0, err
		}
	}
}

// scan is the first pass: the UDP flows of a capture and what was
// skipped. match, when not nil, says which flows have an endpoint named:
// those are counted first (up to maxFlows), the others up to
// maxOtherFlows. What it keeps is the busiest few flows and those that
// match, so memory after the pass does not grow with the capture's flows.
func scan(f PcapFile, match func(flow) bool) (*fileScan, error) {
	s := &fileScan{name: f.Name, links: map[int]int{}}
	counted := map[flow]*flowStats{}
	others := 0
	cutAt, err := each(f, func(n int, data []byte, _ int64, link, iface int) error {
		s.packets = n
		s.links[link]++
		d, why := decode(link, data)
		if why != skipNone {
			s.skipped[why]++
			return nil
		}
		s.udp++
		k := flowKey(d.src, d.dst, iface)
		st := counted[k]
		if st == nil {
			other := match != nil && !match(k)
			if len(counted) >= maxFlows || other && others >= maxOtherFlows {
				s.uncount++
				return nil
			}
			if other {
				others++
			}
			st = &flowStats{flow: flow{d.src, d.dst, iface}, first: n}
			counted[k] = st
		}
		st.packets++
		return nil
	})
	s.cutAt = cutAt
	if err != nil {
		return nil, err
	}
	if s.udp == 0 {
		return nil, s.noUDP()
	}
	all := make([]*flowStats, 0, len(counted))
	for _, st := range counted {
		all = append(all, st)
	}
	slices.SortFunc(all, busiestFirst)
	s.nflows = len(all)
	for i, st := range all {
		if i < keptFlows || match != nil && match(st.flow) {
			s.flows = append(s.flows, st)
		}
	}
	return s, nil
}

// busiestFirst orders flows by packets, most first, then by appearance.
func busiestFirst(x, y *flowStats) int {
	return cmp.Or(cmp.Compare(y.packets, x.packets), cmp.Compare(x.first, y.first))
}

// noUDP is the error of a capture without a UDP datagram.
func (s *fileScan) noUDP() error {
	if s.packets == 0 {
		return &Error{File: s.name, Want: "the capture is empty"}
	}
	var why []string
	for k, n := range s.skipped {
		if n > 0 {
			why = append(why, fmt.Sprintf("%d %s", n, skipNames[k]))
		}
	}
	msg := fmt.Sprintf("no UDP datagram among its %d packets (%s)", s.packets, strings.Join(why, ", "))
	if s.skipped[skipLinkType] > 0 {
		var lt []string
		for l := range s.links {
			lt = append(lt, strconv.Itoa(l))
		}
		slices.Sort(lt)
		msg += fmt.Sprintf("; its link types are %s, the reader decodes %s", strings.Join(lt, ", "), linkTypeNames)
	}
	return &Error{File: s.name, Want: msg}
}

// sorted lists the flows busiest first (then in order of appearance).
func (s *fileScan) sorted(keep func(*flowStats) bool) []*flowStats {
	var out []*flowStats
	for _, st := range s.flows {
		if keep(st) {
			out = append(out, st)
		}
	}
	slices.SortFunc(out, busiestFirst)
	return out
}

// list names flows for an error: the busiest few.
func list(fl []*flowStats) string {
	var b []string
	for i, st := range fl {
		if i == listFlows {
			b = append(b, fmt.Sprintf("and %d more", len(fl)-i))
			break
		}
		b = append(b, fmt.Sprintf("%s (%d packets, the first %s → %s)", st.flow, st.packets, st.flow.a, st.flow.b))
	}
	return strings.Join(b, "; ")
}

// leg is the flow one end of the game's traffic is read from: the
// client's leg (the flow the game client is in) or the server's.
type leg struct {
	file  int            // which capture
	flow  flow           // the flow's key
	end   netip.AddrPort // the game client's (client leg) or server's (server leg) endpoint
	stats *flowStats
}

// chooseLegs picks the client's and the server's leg (see ReadPcap).
func chooseLegs(scans []*fileScan, o PcapOptions) ([2]leg, error) {
	var legs [2]leg
	roles := [2]struct {
		flag, who string
		ep        Endpoint
	}{{"client", "the game client's", o.Client}, {"server", "the game server's", o.Server}}
	matching := func(s *fileScan, ep Endpoint) []*flowStats {
		return s.sorted(func(st *flowStats) bool { return !ep.given() || ep.match(st.flow.a) || ep.match(st.flow.b) })
	}
	// busiest keeps the first n flows of fl when the next has fewer than
	// half the packets of the nth: the game's flows among DNS, NTP and the
	// like.
	busiest := func(fl []*flowStats, n int) []*flowStats {
		if len(fl) > n && 2*fl[n].packets < fl[n-1].packets {
			return fl[:n]
		}
		return fl
	}
	if len(scans) == 2 {
		for i, r := range roles {
			fl := matching(scans[i], r.ep)
			if !r.ep.given() {
				fl = busiest(fl, 1)
			}
			if i == 1 && len(fl) > 1 {
				// A server's capture holds every player's flow: take the
				// one with the client's own endpoint (no NAT between them).
				c := legs[0].stats.flow
				with := keepFlows(fl, func(st *flowStats) bool {
					return st.flow.a == c.a && st.flow.b == c.b || st.flow.a == c.b && st.flow.b == c.a
				})
				if len(with) == 1 {
					fl = with
				}
			}
			if len(fl) != 1 {
				return legs, flowChoiceError(scans[i], fl, r.flag, r.who, r.ep)
			}
			legs[i] = leg{file: i, flow: flowKey(fl[0].flow.a, fl[0].flow.b, fl[0].flow.iface), stats: fl[0]}
		}
	} else {
		s := scans[0]
		cl, sv := matching(s, o.Client), matching(s, o.Server)
		// An end named alone must match one flow, and any end named at
		// least one: else the error is that flag's, not the other's.
		for i, fl := range [2][]*flowStats{cl, sv} {
			if r := roles[i]; r.ep.given() && (len(fl) == 0 || len(fl) > 1 && !roles[1-i].ep.given()) {
				return legs, flowChoiceError(s, fl, r.flag, r.who, r.ep)
			}
		}
		// The same endpoints on two interfaces (the lab's own captures):
		// the client's leg is the one whose first datagram comes first.
		sameTwo := len(cl) == 2 && len(sv) == 2 && (cl[0] == sv[0] && cl[1] == sv[1] || cl[0] == sv[1] && cl[1] == sv[0]) &&
			flowKey(cl[0].flow.a, cl[0].flow.b, 0) == flowKey(cl[1].flow.a, cl[1].flow.b, 0)
		switch {
		case sameTwo:
			first := slices.MinFunc(cl, func(x, y *flowStats) int { return cmp.Compare(x.first, y.first) })
			other := cl[0]
			if other == first {
				other = cl[1]
			}
			cl, sv = []*flowStats{first}, []*flowStats{other}
		case o.Client.given() && !o.Server.given() && len(cl) == 1:
			sv = busiest(s.sorted(func(st *flowStats) bool { return st != cl[0] }), 1)
		case o.Server.given() && !o.Client.given() && len(sv) == 1:
			cl = busiest(s.sorted(func(st *flowStats) bool { return st != sv[0] }), 1)
		case !o.Client.given() && !o.Server.given():
			all := busiest(s.sorted(func(*flowStats) bool { return true }), 2)
			if len(all) != 2 {
				return legs, &Error{File: s.name, Want: fmt.Sprintf("%d UDP flows, and one capture needs two: the client's leg and the server's (both legs of a relay such as lab proxy on one machine); name the game's ends with --client ADDR and --server ADDR, or give the server's capture as a second file. Its flows: %s",
					s.nflows, list(all))}
			}
			// The client's leg carries the first datagram.
			first := slices.MinFunc(all, func(x, y *flowStats) int { return cmp.Compare(x.first, y.first) })
			cl, sv = []*flowStats{first}, busiest(s.sorted(func(st *flowStats) bool { return st != first && (st == all[0] || st == all[1]) }), 1)
		}
		for i, fl := range [2][]*flowStats{cl, sv} {
			if len(fl) != 1 {
				return legs, flowChoiceError(s, fl, roles[i].flag, roles[i].who, roles[i].ep)
			}
			legs[i] = leg{file: 0, flow: flowKey(fl[0].flow.a, fl[0].flow.b, fl[0].flow.iface), stats: fl[0]}
		}
	}
	// Which end of each leg is the game's client (server): the one named;
	// else the client's is the end that is not the server named, and the
	// server's the end the client talks to (the same address, else the
	// same port: a server behind NAT); else, when one end's port is one
	// the system chose and the other's is not, the client's end is the
	// chosen one and the server's the other; else the end that sent
	// (received) the leg's first datagram.
	for i, r := range roles {
		l := &legs[i]
		a, b := l.stats.flow.a, l.stats.flow.b
		if r.ep.given() {
			if r.ep.match(a) && r.ep.match(b) {
				return legs, &Error{File: scans[l.file].name, Field: "--" + r.flag, Value: r.ep.String(),
					Want: fmt.Sprintf("one end of the flow %s, not both: give the address and the port", l.stats.flow)}
			}
			l.end = a
			if r.ep.match(b) {
				l.end = b
			}
			continue
		}
		var is func(netip.AddrPort) bool // is the end wanted
		if i == 0 {
			is = func(e netip.AddrPort) bool { return o.Server.given() && !o.Server.match(e) }
		} else {
			peer := legs[0].stats.flow.a
			if peer == legs[0].end {
				peer = legs[0].stats.flow.b
			}
			is = func(e netip.AddrPort) bool { return e == peer }
			if !is(a) && !is(b) {
				is = func(e netip.AddrPort) bool { return e.Port() == peer.Port() }
			}
		}
		// The client's end is the one whose port the system chose, the
		// server's the one someone configured, when the ports say so.
		chosen := func(e netip.AddrPort) bool { return (i == 0) == ephemeral(e.Port()) }
		switch {
		case is(a) != is(b) && is(b):
			l.end = b
		case is(a) != is(b):
			l.end = a
		case ephemeral(a.Port()) != ephemeral(b.Port()) && chosen(b):
			l.end = b
		case ephemeral(a.Port()) != ephemeral(b.Port()):
			l.end = a
		case i == 0:
			l.end = a
		default:
			l.end = b
		}
	}
	return legs, nil
}

// ephemeralFrom is where the ports a system chooses for a socket begin:
// Linux's default range starts at 32768, IANA's (Windows, macOS, BSD) at
// 49152, so any port from 32768 up is taken as one the system chose.
const ephemeralFrom = 32768

// ephemeral reports whether port p is in the range systems choose ports
// from (a client's socket, a relay's socket to the server), as opposed to
// a port someone configured (a server's, a relay's listening socket).
func ephemeral(p uint16) bool { return p >= ephemeralFrom }

// keepFlows is the flows of fl that keep says to keep.
func keepFlows(fl []*flowStats, keep func(*flowStats) bool) []*flowStats {
	var out []*flowStats
	for _, st := range fl {
		if keep(st) {
			out = append(out, st)
		}
	}
	return out
}

// flowChoiceError says why no single flow was chosen, naming the choices.
func flowChoiceError(s *fileScan, fl []*flowStats, flag, who string, ep Endpoint) error {
	if len(fl) == 0 {
		all := s.sorted(func(*flowStats) bool { return true })
		return &Error{File: s.name, Field: "--" + flag, Value: ep.String(),
			Want: fmt.Sprintf("an endpoint of one of its %d UDP flows: %s", s.nflows, list(all))}
	}
	if ep.given() {
		return &Error{File: s.name, Field: "--" + flag, Value: ep.String(),
			Want: fmt.Sprintf("an endpoint of one UDP flow, it matches %d: %s; give the address and the port, or keep one player's packets (tcpdump -r IN -w OUT 'udp and host ADDR')", len(fl), list(fl))}
	}
	return &Error{File: s.name, Want: fmt.Sprintf("%d UDP flows: name %s endpoint with --%s ADDR (IP:PORT, IP or :PORT). Its flows: %s",
		s.nflows, who, flag, list(fl))}
}

// stream is one side's view of one direction: the sequence numbers in
// capture order, unwrapped, with their times.
type stream struct {
	seqs  []int64 // unwrapped
	times []int64 // Unix ns
	pkts  []int   // the capture's packet numbers, for messages
	raw   uint64  // the last raw sequence number
	unwr  int64   // its unwrapped value
}

// add appends a raw sequence number, unwrapping it against the last one
// when the field is narrower than 8 bytes: the nearest value that has
// raw's low bits.
func (s *stream) add(raw uint64, width int, at int64, n int) {
	u := int64(raw)
	if width < 8 && len(s.seqs) > 0 {
		bits := uint(8 * width)
		m := uint64(1) << bits
		d := (raw - s.raw) & (m - 1)
		delta := int64(d)
		if d >= m/2 {
			delta -= int64(m)
		}
		u = s.unwr + delta
	}
	s.raw, s.unwr = raw, u
	s.seqs, s.times, s.pkts = append(s.seqs, u), append(s.times, at), append(s.pkts, n)
}

// shift moves every sequence number by k.
func (s *stream) shift(k int64) {
	for i := range s.seqs {
		s.seqs[i] += k
	}
}

// PcapSummary is what [ReadPcap] read: the legs it chose and what it
// skipped, as lines for the report.
type PcapSummary []string

// ReadPcap reads the game's traffic from pcap or pcapng captures of UDP
// whose payloads carry a sequence number (o.Seq): either two captures,
// the client's (taken on the client's machine) and the server's, or one
// capture that holds both legs of a relay (lab proxy on loopback).
//
// The client's leg is the UDP flow of the game client, the server's leg
// the flow of the game server. Up packets are sent by the client on the
// client's leg and received by the server on the server's leg; down
// packets the other way. With two captures, each capture's leg is its
// flow with the endpoint named (o.Client in the first, o.Server in the
// second), or its only UDP flow; the named end is the client (server),
// else the end that sent (received) the flow's first datagram. With one
// capture, the legs are the flows of the two endpoints named, or, with
// one named, that flow and the only other; with none, the capture's two
// flows, the client's the one whose first datagram comes first.
//
// A packet is matched by direction and sequence number: its send time is
// the sender's capture timestamp, its delay the receiver's timestamp
// minus that (the clocks' offset and drift included, which the fit
// removes). Sent and never received is lost; of sequence numbers sent
// more than once the first send counts; a packet received more than once
// counts its first arrival and a duplicate. Packets sent before the
// receiver's capture saw its first packet of that direction or after its
// last, or received and never seen sent, are not counted (the two captures
// need not start and stop together).
func ReadPcap(files []PcapFile, o PcapOptions) (*Trace, PcapSummary, error) {
	if len(files) < 1 || len(files) > 2 {
		return nil, nil, fmt.Errorf("want one capture (both legs of a relay) or two (the client's and the server's), got %d", len(files))
	}
	if o.Seq.Width == 0 {
		o.Seq = DefaultSeq
	}
	var scans []*fileScan
	for i, f := range files {
		// The flows that can be chosen: those with an endpoint named.
		eps := []Endpoint{o.Client, o.Server}
		if len(files) == 2 {
			eps = eps[i : i+1]
		}
		var match func(flow) bool
		for _, ep := range eps {
			if ep.given() {
				match = func(fl flow) bool {
					for _, ep := range eps {
						if ep.given() && (ep.match(fl.a) || ep.match(fl.b)) {
							return true
						}
					}
					return false
				}
			}
		}
		s, err := scan(f, match)
		if err != nil {
			return nil, nil, err
		}
		scans = append(scans, s)
	}
	legs, err := chooseLegs(scans, o)
	if err != nil {
		return nil, nil, err
	}
	// The four streams: [direction][0 sent, 1 received].
	var st [2][2]stream
	var short, cut [2]int
	total := 0
	for fi, f := range files {
		name := f.Name
		_, err := each(f, func(n int, data []byte, at int64, link, iface int) error {
			d, why := decode(link, data)
			if why != skipNone {
				return nil
			}
			k := flowKey(d.src, d.dst, iface)
			for li, l := range legs {
				if l.file != fi || l.flow != k {
					continue
				}
				// The client's leg: from the client is up sent, to it down
				// received; the server's leg: to the server is up received,
				// from it down sent.
				dir, side := 0, 0
				switch {
				case li == 0 && d.src == l.end:
					dir, side = 0, 0
				case li == 0:
					dir, side = 1, 1
				case d.dst == l.end:
					dir, side = 0, 1
				default:
					dir, side = 1, 0
				}
				seq, ok := o.Seq.read(d.payload)
				if !ok {
					if d.cut {
						cut[li]++
					} else {
						short[li]++
					}
					continue
				}
				if total >= MaxPackets {
					return &Error{File: name, Packet: n, Want: fmt.Sprintf("more than %d packets of the game's flows: split the capture (editcap -c)", MaxPackets)}
				}
				total++
				st[dir][side].add(seq, o.Seq.Width, at, n)
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	name := files[0].Name
	if len(files) == 2 {
		name += " + " + files[1].Name
	}
	sum := PcapSummary{fmt.Sprintf("sequence number: %d bytes at payload offset %d, %s", o.Seq.Width, o.Seq.Offset, map[bool]string{false: "big-endian", true: "little-endian"}[o.Seq.Little])}
	legName := [2]string{"the client's leg", "the server's leg"}
	for i, l := range legs {
		s := scans[l.file]
		other := l.stats.flow.a
		if other == l.end {
			other = l.stats.flow.b
		}
		var line string
		if i == 0 {
			line = fmt.Sprintf("%s: %s, game client %s ↔ %s, %d packets", s.name, legName[i], l.end, other, l.stats.packets)
		} else {
			line = fmt.Sprintf("%s: %s, %s ↔ game server %s, %d packets", s.name, legName[i], other, l.end, l.stats.packets)
		}
		if legs[0].file == legs[1].file && legs[0].flow.iface != legs[1].flow.iface {
			line += fmt.Sprintf(" on interface %d", l.flow.iface)
		}
		if short[i] > 0 {
			line += fmt.Sprintf("; %d with a payload too short for the sequence number, skipped", short[i])
		}
		if cut[i] > 0 {
			line += fmt.Sprintf("; %d cut by the snap length before the sequence number, skipped (capture with -s 0)", cut[i])
		}
		sum = append(sum, line)
	}
	for _, s := range scans {
		if s.cutAt > 0 {
			sum = append(sum, fmt.Sprintf("%s: cut short inside packet %d (still being written, or a partial copy): its %d whole packets are read", s.name, s.cutAt, s.cutAt-1))
		}
	}
	for fi, s := range scans {
		used, udp := 0, s.udp
		for li, l := range legs {
			if l.file == fi && (li == 0 || legs[0].file != fi || legs[0].flow != l.flow) {
				used += l.stats.packets
			}
		}
		if s.packets > used {
			var why []string
			if n := udp - used; n > 0 {
				why = append(why, fmt.Sprintf("%d of other UDP flows", n))
			}
			for k, n := range s.skipped {
				if n > 0 {
					why = append(why, fmt.Sprintf("%d %s", n, skipNames[k]))
				}
			}
			sum = append(sum, fmt.Sprintf("%s: %d other packets skipped (%s)", s.name, s.packets-used, strings.Join(why, ", ")))
		}
	}
	b := newBuilder(name)
	for dir := range 2 {
		if err := match(b, &st[dir], dir, o.Seq, files, legs, &sum); err != nil {
			return nil, nil, err
		}
	}
	c := twoClocks
	if len(files) == 1 {
		c = oneMachine
	}
	tr, err := b.trace("pcap", c)
	if err != nil {
		return nil, nil, &Error{File: name, Want: "no datagram of the game's flows carries a sequence number at --seq " + o.Seq.String()}
	}
	return tr, sum, nil
}

// match joins one direction's sent and received streams into packets.
func match(b *builder, s *[2]stream, dir int, seq SeqField, files []PcapFile, legs [2]leg, sum *PcapSummary) error {
	width := seq.Width
	sent, recv := &s[0], &s[1]
	dirName := [2]string{"up", "down"}[dir]
	// Which capture each side is in: up is sent on the client's leg.
	sentFile, recvFile := files[legs[dir].file].Name, files[legs[1-dir].file].Name
	if len(sent.seqs) == 0 {
		if len(recv.seqs) > 0 {
			*sum = append(*sum, fmt.Sprintf("%s: %d packets received, none seen sent in %s: not counted", dirName, len(recv.seqs), sentFile))
		}
		return nil
	}
	// The two sides unwrap on their own: move the receiver's numbers by
	// whole turns of the field to the sender's first.
	if width < 8 && len(recv.seqs) > 0 {
		m := int64(1) << uint(8*width)
		d := sent.seqs[0] - recv.seqs[0]
		k := (d + m/2) / m
		if d+m/2 < 0 {
			k = -((-(d + m/2) + m - 1) / m)
		}
		recv.shift(k * m)
	}
	// Arrivals: the first of each sequence number.
	arrive := make(map[int64]int64, len(recv.seqs))
	var lo, hi int64
	dups := 0
	for i, q := range recv.seqs {
		if i == 0 || q < lo {
			lo = q
		}
		if i == 0 || q > hi {
			hi = q
		}
		if t, ok := arrive[q]; ok {
			dups++
			arrive[q] = min(t, recv.times[i])
			continue
		}
		arrive[q] = recv.times[i]
	}
	base := slices.Min(sent.seqs)
	if len(recv.seqs) > 0 {
		base = min(base, lo)
	}
	// A packet numbered outside what the receiving side saw may have been
	// sent before its capture began or after it ended: not counted. One
	// capture of both legs saw the receiving leg all along, so only what
	// was sent after the last arrival (perhaps still in flight) is left out.
	oneCapture := legs[dir].file == legs[1-dir].file
	var lastArrival int64
	if len(recv.times) > 0 {
		lastArrival = slices.Max(recv.times)
	}
	seen := make(map[int64]bool, len(sent.seqs))
	resent, outside, lost := 0, 0, 0
	for i, q := range sent.seqs {
		if seen[q] {
			resent++
			continue
		}
		seen[q] = true
		if len(recv.seqs) > 0 && (!oneCapture && (q < lo || q > hi) || oneCapture && q > hi && sent.times[i] > lastArrival) {
			outside++
			continue
		}
		p := Packet{Seq: uint64(q - base), Send: sent.times[i], Status: Lost}
		if width == 8 {
			p.Seq = uint64(q)
		}
		if t, ok := arrive[q]; ok {
			delay, ok := diff(t, p.Send)
			if !ok {
				return &Error{File: recvFile, Packet: recv.pkts[slices.Index(recv.seqs, q)], Field: "timestamp", Value: strconv.FormatInt(t, 10),
					Want: fmt.Sprintf("within 1000 h of the send time in %s (packet %d, %d ns since 1970): are the two captures of the same session?", sentFile, sent.pkts[i], p.Send)}
			}
			p.Status, p.Delay = Delivered, delay
		} else {
			lost++
		}
		if err := b.add(dir, p, 0); err != nil {
			return err
		}
	}
	if resent > len(sent.seqs)/2 {
		return &Error{File: sentFile, Field: "--seq", Value: seq.String(),
			Want: fmt.Sprintf("a field that numbers the packets: %d of the %d %s datagrams sent repeat a number already sent (a field that stays the same: check the offset)", resent, len(sent.seqs), dirName)}
	}
	b.dups[dir] = dups
	never := 0
	for q := range arrive {
		if !seen[q] {
			never++
		}
	}
	line := fmt.Sprintf("%s: %d sent (%s), %d lost", dirName, len(seen)-outside, sentFile, lost)
	if len(recv.seqs) == 0 {
		line += fmt.Sprintf(": none of them seen in %s; check --seq and the captures", recvFile)
	}
	if dups > 0 {
		line += fmt.Sprintf(", %d duplicate arrivals", dups)
	}
	if resent > 0 {
		line += fmt.Sprintf("; %d sequence numbers sent again (the first send counts)", resent)
	}
	if outside > 0 {
		line += fmt.Sprintf("; %d sent before or after %s saw this direction, not counted", outside, recvFile)
	}
	if never > 0 {
		line += fmt.Sprintf("; %d received and never seen sent, not counted", never)
	}
	*sum = append(*sum, line)
	return nil
}
