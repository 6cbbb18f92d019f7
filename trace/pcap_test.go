package trace

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"jitterlab/internal/testmem"
)

var (
	tClient = netip.MustParseAddrPort("10.0.0.2:5000")
	tServer = netip.MustParseAddrPort("10.0.0.1:27015")
	tDNS    = netip.MustParseAddrPort("10.0.0.53:53")
)

func readPcaps(t *testing.T, o PcapOptions, files ...[]byte) (*Trace, PcapSummary, error) {
	t.Helper()
	var in []PcapFile
	for i, b := range files {
		in = append(in, PcapFile{Name: []string{"client.pcapng", "server.pcapng"}[i], R: bytes.NewReader(b)})
	}
	return ReadPcap(in, o)
}

// packetsOfDir lists a direction as "seq:delay" or "seq:lost".
func packetsOfDir(d Direction) string {
	var b []string
	for _, p := range d.Packets {
		if p.Status == Lost {
			b = append(b, fmt.Sprintf("%d:lost", p.Seq))
		} else {
			b = append(b, fmt.Sprintf("%d:%d", p.Seq, p.Delay))
		}
	}
	return strings.Join(b, " ")
}

// Two captures, one on each machine: packets are matched by direction and
// sequence number; a packet the server never saw is lost, a second arrival
// is a duplicate, other traffic is skipped and counted, and the server's
// clock (offset 1 s here) is kept in the delays for the fit to remove.
func TestPcapMatchesBySequenceNumber(t *testing.T) {
	const ms = int64(1e6)
	const t0, off = int64(1_700_000_000e9), int64(1e9) // the server's clock is 1 s ahead
	var cf, sf []TestFrame
	up := func(seq uint64, at, delay int64, arrivals int) {
		cf = append(cf, TestFrame{At: t0 + at, Src: tClient, Dst: tServer, Payload: SeqPayload(seq, 4, 20)})
		for i := range arrivals {
			sf = append(sf, TestFrame{At: t0 + off + at + delay + int64(i)*ms, Src: tClient, Dst: tServer, Payload: SeqPayload(seq, 4, 20)})
		}
	}
	down := func(seq uint64, at, delay int64, arrived bool) {
		sf = append(sf, TestFrame{At: t0 + off + at, Src: tServer, Dst: tClient, Payload: SeqPayload(seq, 4, 30)})
		if arrived {
			cf = append(cf, TestFrame{At: t0 + at + delay, Src: tServer, Dst: tClient, Payload: SeqPayload(seq, 4, 30)})
		}
	}
	up(7, 0, 20*ms, 1)
	cf = append(cf, TestFrame{At: t0 + 1*ms, Src: tClient, Dst: tDNS, Payload: SeqPayload(1, 4, 30)})
	up(8, 10*ms, 25*ms, 0) // lost
	down(100, 12*ms, 30*ms, true)
	up(9, 20*ms, 22*ms, 2) // duplicated
	down(101, 28*ms, 31*ms, false)
	up(10, 30*ms, 21*ms, 1)
	down(102, 44*ms, 33*ms, true)
	cf = append(cf, TestFrame{At: t0 + 50*ms, Src: tClient, Dst: tServer, Payload: []byte{1, 2}}) // too short for the seq
	tr, sum, err := readPcaps(t, PcapOptions{}, WriteTestPcapng(t, LinkEthernet, sortFrames(cf)), WriteTestPcapng(t, LinkSLL2, sortFrames(sf)))
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(sum, "\n"))
	}
	// Up: 7 20 ms, 8 lost, 9 22 ms (and a duplicate), 10 21 ms, all +1 s.
	if got, want := packetsOfDir(tr.Up), "0:1020000000 1:lost 2:1022000000 3:1021000000"; got != want {
		t.Errorf("up: %s\nwant %s", got, want)
	}
	if got, want := packetsOfDir(tr.Down), "0:-970000000 1:lost 2:-967000000"; got != want {
		t.Errorf("down: %s\nwant %s", got, want)
	}
	if tr.Up.Duplicates != 1 || tr.Down.Duplicates != 0 {
		t.Errorf("duplicates up %d, down %d; want 1, 0", tr.Up.Duplicates, tr.Down.Duplicates)
	}
	if tr.SyncedClocks || tr.Format != "pcap" || tr.File != "client.pcapng + server.pcapng" {
		t.Errorf("trace %q %q synced %v", tr.File, tr.Format, tr.SyncedClocks)
	}
	text := strings.Join(sum, "\n")
	for _, want := range []string{
		"client.pcapng: the client's leg, game client 10.0.0.2:5000 ↔ 10.0.0.1:27015, 7 packets; 1 with a payload too short for the sequence number, skipped",
		"client.pcapng: 1 other packets skipped (1 of other UDP flows)",
		"up: 4 sent (client.pcapng), 1 lost, 1 duplicate arrivals",
		"down: 3 sent (server.pcapng), 1 lost",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
}

// summaryHas checks that a read's summary lines hold each of wants.
func summaryHas(t *testing.T, sum PcapSummary, wants ...string) {
	t.Helper()
	text := strings.Join(sum, "\n")
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
}

func sortFrames(f []TestFrame) []TestFrame {
	out := append([]TestFrame(nil), f...)
	for i := range out {
		for j := i; j > 0 && out[j].At < out[j-1].At; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// relayFrames is one capture of both legs of a relay on one machine: the
// client talks to the relay, the relay to the server; each datagram is
// seen on both legs, delay later on the second. Packet 3 is lost up.
func relayFrames(client, relayIn, relayOut, server netip.AddrPort, n int, width int, first uint64) []TestFrame {
	const ms = int64(1e6)
	var f []TestFrame
	for i := range n {
		seq := (first + uint64(i)) & (1<<(8*uint(width)) - 1)
		at := int64(i) * 10 * ms
		f = append(f, TestFrame{At: at, Src: client, Dst: relayIn, Payload: SeqPayload(seq, width, 24)})
		if i != 3 {
			f = append(f, TestFrame{At: at + 5*ms + int64(i%3)*ms, Src: relayOut, Dst: server, Payload: SeqPayload(seq, width, 24)})
		}
		f = append(f, TestFrame{At: at + 8*ms, Src: server, Dst: relayOut, Payload: SeqPayload(seq, width, 40)})
		f = append(f, TestFrame{At: at + 15*ms, Src: relayIn, Dst: client, Payload: SeqPayload(seq, width, 40)})
	}
	return sortFrames(f)
}

// One capture of both legs (a relay on loopback) reads alike on every
// link type, IPv4 and IPv6, pcap and pcapng.
func TestPcapLinkTypesAndFamilies(t *testing.T) {
	v4 := [4]netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("127.0.0.1:2113"),
		netip.MustParseAddrPort("127.0.0.1:40001"), netip.MustParseAddrPort("127.0.0.1:2112")}
	v6 := [4]netip.AddrPort{netip.MustParseAddrPort("[::1]:40000"), netip.MustParseAddrPort("[::1]:2113"),
		netip.MustParseAddrPort("[::1]:40001"), netip.MustParseAddrPort("[::1]:2112")}
	for _, link := range []int{LinkEthernet, LinkSLL, LinkSLL2, LinkRaw, LinkNull, LinkLoop} {
		for fam, a := range map[string][4]netip.AddrPort{"ipv4": v4, "ipv6": v6} {
			frames := relayFrames(a[0], a[1], a[2], a[3], 10, 4, 0)
			for form, b := range map[string][]byte{"pcapng": WriteTestPcapng(t, link, frames), "pcap": WriteTestPcap(t, link, frames)} {
				tr, sum, err := readPcaps(t, PcapOptions{}, b)
				if err != nil {
					t.Fatalf("link %d %s %s: %v", link, fam, form, err)
				}
				up, down := packetsOfDir(tr.Up), packetsOfDir(tr.Down)
				if want := "0:5000000 1:6000000 2:7000000 3:lost 4:6000000 5:7000000 6:5000000 7:6000000 8:7000000 9:5000000"; up != want {
					t.Errorf("link %d %s %s: up %s\nwant %s\n%s", link, fam, form, up, want, strings.Join(sum, "\n"))
				}
				if want := "0:7000000 1:7000000 2:7000000 3:7000000 4:7000000 5:7000000 6:7000000 7:7000000 8:7000000 9:7000000"; down != want {
					t.Errorf("link %d %s %s: down %s", link, fam, form, down)
				}
				if !tr.SyncedClocks {
					t.Errorf("link %d: one capture is one clock", link)
				}
			}
		}
	}
}

// A one-byte sequence number wraps every 256 packets; the server's
// capture starts 40 packets late and ends 30 early: the sequence is
// unwrapped, and what the server's capture did not cover is not counted
// as lost.
func TestPcapSequenceWrapsAndCapturesThatDoNotOverlap(t *testing.T) {
	const ms = int64(1e6)
	var cf, sf []TestFrame
	for i := range 1000 {
		seq := uint64(200+i) & 0xff
		at := int64(i) * 10 * ms
		cf = append(cf, TestFrame{At: at, Src: tClient, Dst: tServer, Payload: SeqPayload(seq, 1, 10)})
		if i >= 40 && i < 970 && i%100 != 50 { // every 100th lost
			sf = append(sf, TestFrame{At: at + 20*ms, Src: tClient, Dst: tServer, Payload: SeqPayload(seq, 1, 10)})
		}
	}
	// A single down packet so both directions exist.
	sf = append(sf, TestFrame{At: 500 * ms, Src: tServer, Dst: tClient, Payload: SeqPayload(9, 1, 10)})
	cf = append(cf, TestFrame{At: 530 * ms, Src: tServer, Dst: tClient, Payload: SeqPayload(9, 1, 10)})
	tr, sum, err := readPcaps(t, PcapOptions{Seq: SeqField{Offset: 0, Width: 1}}, WriteTestPcapng(t, LinkEthernet, sortFrames(cf)), WriteTestPcapng(t, LinkEthernet, sortFrames(sf)))
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for i, p := range tr.Up.Packets {
		if p.Seq != tr.Up.Packets[0].Seq+uint64(i) {
			t.Fatalf("up packet %d has seq %d: the unwrapped numbers have a gap", i, p.Seq)
		}
		if p.Status == Lost {
			lost++
		} else if p.Delay != 20*ms {
			t.Fatalf("up seq %d: delay %d", p.Seq, p.Delay)
		}
	}
	if len(tr.Up.Packets) != 930 || lost != 10 {
		t.Errorf("up: %d packets, %d lost; want 930 (the server's capture's span), 10\n%s", len(tr.Up.Packets), lost, strings.Join(sum, "\n"))
	}
	if !strings.Contains(strings.Join(sum, "\n"), "70 sent before or after server.pcapng saw this direction, not counted") {
		t.Errorf("summary:\n%s", strings.Join(sum, "\n"))
	}
}

// A capture with several flows names them when none is chosen; a flag that
// matches none, or both ends, says so.
func TestPcapErrorsNameTheChoices(t *testing.T) {
	const ms = int64(1e6)
	other := netip.MustParseAddrPort("10.0.0.9:7777")
	var cf, sf []TestFrame
	for i := range 5 {
		at := int64(i) * 10 * ms
		cf = append(cf, TestFrame{At: at, Src: tClient, Dst: tServer, Payload: SeqPayload(uint64(i), 4, 8)},
			TestFrame{At: at + ms, Src: tClient, Dst: other, Payload: SeqPayload(uint64(i), 4, 8)})
		sf = append(sf, TestFrame{At: at + 20*ms, Src: tClient, Dst: tServer, Payload: SeqPayload(uint64(i), 4, 8)})
	}
	client, server := WriteTestPcapng(t, LinkEthernet, cf), WriteTestPcapng(t, LinkEthernet, sf)
	for _, c := range []struct {
		o     PcapOptions
		files [][]byte
		want  string
	}{
		{PcapOptions{}, [][]byte{client, server},
			"client.pcapng: 2 UDP flows: name the game client's endpoint with --client ADDR (IP:PORT, IP or :PORT). Its flows: 10.0.0.2:5000 ↔ 10.0.0.1:27015 (5 packets, the first 10.0.0.2:5000 → 10.0.0.1:27015); 10.0.0.2:5000 ↔ 10.0.0.9:7777 (5 packets, the first 10.0.0.2:5000 → 10.0.0.9:7777)"},
		{PcapOptions{Client: Endpoint{Port: 5000}}, [][]byte{client, server},
			`client.pcapng: --client ":5000": want an endpoint of one UDP flow, it matches 2:`},
		{PcapOptions{Client: Endpoint{Port: 6000}}, [][]byte{client, server},
			`client.pcapng: --client ":6000": want an endpoint of one of its 2 UDP flows: 10.0.0.2:5000 ↔ 10.0.0.1:27015`},
		{PcapOptions{Client: Endpoint{Addr: netip.MustParseAddr("10.0.0.2")}, Server: Endpoint{Port: 27015}}, [][]byte{client},
			`client.pcapng: --client "10.0.0.2": want an endpoint of one UDP flow, it matches 2`},
		{PcapOptions{}, [][]byte{[]byte("dir,seq,send_ns,recv_ns\n")}, "client.pcapng: not a pcap or pcapng capture"},
		{PcapOptions{Server: Endpoint{Port: 27015}}, [][]byte{WriteTestPcapng(t, LinkEthernet, nil)}, "client.pcapng: the capture is empty"},
		{PcapOptions{}, [][]byte{WriteTestPcapng(t, 147, cf)}, "client.pcapng: no UDP datagram among its 10 packets (10 of another link type); its link types are 147, the reader decodes Ethernet (1)"},
		{PcapOptions{Client: Endpoint{Port: 5000}, Seq: SeqField{Offset: 100, Width: 4}}, [][]byte{cf1(t, client), server},
			"client.pcapng + server.pcapng: no datagram of the game's flows carries a sequence number at --seq 100:4:be"},
	} {
		_, _, err := readPcaps(t, c.o, c.files...)
		var e *Error
		if err == nil || !errors.As(err, &e) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v\nwant %s", c.o, err, c.want)
		}
	}
}

// cf1 is the client's capture with its game flow only.
func cf1(t *testing.T, _ []byte) []byte {
	var f []TestFrame
	for i := range 5 {
		f = append(f, TestFrame{At: int64(i) * 1e7, Src: tClient, Dst: tServer, Payload: SeqPayload(uint64(i), 4, 8)})
	}
	return WriteTestPcapng(t, LinkEthernet, f)
}

// Truncated frames: cut before the UDP header they are counted and
// skipped; cut after the sequence number they still count.
func TestPcapTruncatedFrames(t *testing.T) {
	frames := relayFrames(tClient, netip.MustParseAddrPort("10.0.0.1:2113"), netip.MustParseAddrPort("10.0.0.1:40001"), tServer, 10, 4, 0)
	frames[4].Snap = 14 + 20 + 8 + 4 // Ethernet, IPv4, UDP, the seq: the filler is cut
	frames[5].Snap = 14 + 10         // inside the IP header
	frames[6].Snap = 14 + 20 + 8 + 2 // half the seq
	tr, sum, err := readPcaps(t, PcapOptions{}, WriteTestPcapng(t, LinkEthernet, frames))
	if err != nil {
		t.Fatal(err)
	}
	summaryHas(t, sum, "1 cut by the snap length before the sequence number, skipped (capture with -s 0)", "1 cut before the UDP header (snap length)")
	if len(tr.Up.Packets)+len(tr.Down.Packets) < 18 {
		t.Errorf("%d packets: the frames cut after the seq were not counted\n%s", len(tr.Up.Packets)+len(tr.Down.Packets), strings.Join(sum, "\n"))
	}
}

func TestParseSeqFieldAndEndpoint(t *testing.T) {
	for in, want := range map[string]string{"0": "0:4:be", "4:2": "4:2:be", "8:8:le": "8:8:le", "3:1:be": "3:1:be"} {
		f, err := ParseSeqField(in)
		if err != nil || f.String() != want {
			t.Errorf("--seq %s: %v %v, want %s", in, f, err, want)
		}
	}
	for in, want := range map[string]string{"0:9": "the width is 1 to 8 bytes", "-1": "the offset", "1:2:xe": "the byte order", "a": "the offset", "1:2:3:4": "too many"} {
		if _, err := ParseSeqField(in); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--seq \""+in+"\"") {
			t.Errorf("--seq %s: %v, want %q", in, err, want)
		}
	}
	for in, want := range map[string]string{"10.0.0.2:5000": "10.0.0.2:5000", "[::1]:7": "[::1]:7", "::1": "::1", "10.0.0.2": "10.0.0.2", ":27015": ":27015"} {
		e, err := ParseEndpoint("client", in)
		if err != nil || e.String() != want {
			t.Errorf("--client %s: %v %v", in, e, err)
		}
	}
	for _, in := range []string{"", "x", ":0", ":99999", "10.0.0.2:"} {
		if _, err := ParseEndpoint("client", in); err == nil || !strings.Contains(err.Error(), "--client") {
			t.Errorf("--client %q: %v", in, err)
		}
	}
}

// A server's capture holds every player's flow: with --server naming the
// server, the flow with the client's own endpoint is taken (no NAT); behind
// NAT the error lists the flows to filter the capture by.
func TestPcapServerCaptureWithManyPlayers(t *testing.T) {
	const ms = int64(1e6)
	others := []netip.AddrPort{netip.MustParseAddrPort("10.0.0.7:5000"), netip.MustParseAddrPort("10.0.0.8:5000")}
	var cf, sf []TestFrame
	for i := range 30 {
		at := int64(i) * 10 * ms
		cf = append(cf, TestFrame{At: at, Src: tClient, Dst: tServer, Payload: SeqPayload(uint64(i), 4, 8)})
		sf = append(sf, TestFrame{At: at + 20*ms, Src: tClient, Dst: tServer, Payload: SeqPayload(uint64(i), 4, 8)})
		for _, o := range others {
			sf = append(sf, TestFrame{At: at + 3*ms, Src: o, Dst: tServer, Payload: SeqPayload(uint64(i), 4, 8)})
		}
	}
	server := WriteTestPcapng(t, LinkEthernet, sortFrames(sf))
	tr, _, err := readPcaps(t, PcapOptions{Server: Endpoint{Port: 27015}}, WriteTestPcapng(t, LinkEthernet, cf), server)
	if err != nil {
		t.Fatal(err)
	}
	if got := packetsOfDir(tr.Up); !strings.HasPrefix(got, "0:20000000 1:20000000") || len(tr.Up.Packets) != 30 {
		t.Errorf("up: %s", got)
	}
	// The client behind NAT: its own endpoint is not in the server's capture.
	var nat []TestFrame
	for _, f := range cf {
		f.Src = netip.MustParseAddrPort("192.168.1.20:61000")
		nat = append(nat, f)
	}
	_, _, err = readPcaps(t, PcapOptions{Server: Endpoint{Port: 27015}}, WriteTestPcapng(t, LinkEthernet, nat), server)
	if want := `server.pcapng: --server ":27015": want an endpoint of one UDP flow, it matches 3: `; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("behind NAT: %v\nwant %s", err, want)
	}
}

// A capture full of other traffic costs memory for the game's packets
// only: 300 000 datagrams of 300 000 different flows beside a game flow of
// 100 take a bounded table of flows (65 536, the rest counted together),
// not one entry each.
func TestPcapMemoryIsBoundedByTheGamesPackets(t *testing.T) {
	var frames []TestFrame
	for i := range 300_000 {
		src := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), uint16(30000+i%30000))
		frames = append(frames, TestFrame{At: int64(i) * 1000, Src: src, Dst: tDNS, Payload: []byte{1, 2, 3, 4}})
		if i%3000 == 0 {
			frames = append(frames, TestFrame{At: int64(i)*1000 + 1, Src: tClient, Dst: tServer, Payload: SeqPayload(uint64(i/3000), 4, 8)},
				TestFrame{At: int64(i)*1000 + 2, Src: tServer, Dst: tClient, Payload: SeqPayload(uint64(i/3000), 4, 8)})
		}
	}
	data := WriteTestPcap(t, LinkRaw, frames)
	frames = nil
	// With the ends named, flows that match neither are counted up to 4096;
	// without, up to 65 536, and one capture's table is gone before the
	// next is read.
	for _, c := range []struct {
		o     PcapOptions
		bound uint64
	}{{PcapOptions{Client: Endpoint{Port: 5000}, Server: Endpoint{Port: 27015}}, 8 << 20}, {PcapOptions{}, 32 << 20}} {
		var err error
		var sum PcapSummary
		peak := testmem.Within(t, c.bound, fmt.Sprintf("ReadPcap of 300 000 flows, %+v", c.o), func() {
			_, sum, err = ReadPcap([]PcapFile{{Name: "busy.pcap", R: bytes.NewReader(data)}, {Name: "busy2.pcap", R: bytes.NewReader(data)}}, c.o)
		})
		t.Logf("%+v: the heap grew by %.1f MB at most", c.o, float64(peak)/(1<<20))
		if err != nil {
			t.Fatal(err)
		}
		if text := strings.Join(sum, "\n"); !strings.Contains(text, "busy.pcap: 300000 other packets skipped (300000 of other UDP flows)") {
			t.Errorf("summary:\n%s", text)
		}
	}
}

// One capture of a relay's two legs: a --server (or --client) that matches
// no flow, or more than one while the other end is not named, is that
// flag's error, naming its value and the flows, not a request to name the
// other end.
func TestPcapOneCaptureNamedEndThatMatchesNoFlow(t *testing.T) {
	frames := relayFrames(tClient, netip.MustParseAddrPort("10.0.0.1:2113"), netip.MustParseAddrPort("10.0.0.1:40001"), tServer, 10, 4, 0)
	one := WriteTestPcapng(t, LinkEthernet, frames)
	for _, c := range []struct {
		o    PcapOptions
		want string
	}{
		{PcapOptions{Server: Endpoint{Port: 9999}}, `client.pcapng: --server ":9999": want an endpoint of one of its 2 UDP flows:`},
		{PcapOptions{Client: Endpoint{Port: 9999}}, `client.pcapng: --client ":9999": want an endpoint of one of its 2 UDP flows:`},
		{PcapOptions{Server: Endpoint{Addr: netip.MustParseAddr("10.0.0.1")}}, `client.pcapng: --server "10.0.0.1": want an endpoint of one UDP flow, it matches 2:`},
	} {
		_, _, err := readPcaps(t, c.o, one)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v\nwant %s", c.o, err, c.want)
		}
	}
}

// --seq pointing at a field that does not count the packets (irtt's magic
// bytes at 0, a constant, instead of its number at 12) makes most
// datagrams repeat a number already sent: one error naming --seq and what
// was seen, not a fit of the 2 packets left.
func TestPcapSeqThatDoesNotCount(t *testing.T) {
	frames := relayFrames(tClient, netip.MustParseAddrPort("10.0.0.1:2113"), netip.MustParseAddrPort("10.0.0.1:40001"), tServer, 100, 4, 0)
	for i := range frames {
		frames[i].Payload = append([]byte{0xca, 0xfe, 0xba, 0xbe}, frames[i].Payload...)
	}
	_, _, err := readPcaps(t, PcapOptions{Seq: SeqField{Offset: 0, Width: 4}}, WriteTestPcapng(t, LinkEthernet, frames))
	want := `client.pcapng: --seq "0:4:be": want a field that numbers the packets: 99 of the 100 up datagrams sent repeat a number already sent (a field that stays the same: check the offset)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// A capture that ends inside a packet (tcpdump killed, a live capture
// copied while being written) is read up to its last whole packet, and
// the read: lines say where it was cut: its packets are as good as any.
func TestPcapCutShortIsReadToItsLastWholePacket(t *testing.T) {
	const ms = int64(1e6)
	var cf, sf []TestFrame
	for i := range 40 {
		at := int64(i) * 10 * ms
		cf = append(cf, TestFrame{At: at, Src: tClient, Dst: tServer, Payload: SeqPayload(uint64(i), 4, 8)})
		sf = append(sf, TestFrame{At: at + 20*ms, Src: tClient, Dst: tServer, Payload: SeqPayload(uint64(i), 4, 8)})
	}
	client, server := WriteTestPcapng(t, LinkEthernet, cf), WriteTestPcapng(t, LinkEthernet, sf)
	tr, sum, err := readPcaps(t, PcapOptions{}, client, server[:len(server)-10])
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(sum, "\n")
	if !strings.Contains(text, "server.pcapng: cut short inside packet 40 (still being written, or a partial copy): its 39 whole packets are read") {
		t.Errorf("read: lines:\n%s", text)
	}
	if n := len(tr.Up.Packets); n != 39 {
		t.Errorf("%d up packets, want the 39 the server's capture holds whole", n)
	}
}

// One capture of both legs saw the receiving leg all along: the first
// datagram lost is lost (not "sent before the capture saw this
// direction"), and so is one lost near the end that was sent before the
// last arrival; only what was sent after the last arrival, perhaps still
// in flight, is left out.
func TestPcapOneCaptureCountsLossesAtItsEdges(t *testing.T) {
	const ms = int64(1e6)
	c, in, out, s := netip.MustParseAddrPort("127.0.0.1:40000"), netip.MustParseAddrPort("127.0.0.1:2113"),
		netip.MustParseAddrPort("127.0.0.1:40001"), netip.MustParseAddrPort("127.0.0.1:2112")
	var f []TestFrame
	for i := range 10 {
		at := int64(i) * 10 * ms
		f = append(f, TestFrame{At: at, Src: c, Dst: in, Payload: SeqPayload(uint64(i), 4, 24)})
		if i != 0 && i != 7 && i != 9 { // 0 and 7 lost; 9 sent after the last arrival
			f = append(f, TestFrame{At: at + 5*ms, Src: out, Dst: s, Payload: SeqPayload(uint64(i), 4, 24)})
		}
		if i > 0 && i < 9 { // the server sends its own stream once it has heard from the client
			f = append(f, TestFrame{At: at + 6*ms, Src: s, Dst: out, Payload: SeqPayload(uint64(i), 4, 40)})
			f = append(f, TestFrame{At: at + 7*ms, Src: in, Dst: c, Payload: SeqPayload(uint64(i), 4, 40)})
		}
	}
	tr, sum, err := readPcaps(t, PcapOptions{}, WriteTestPcapng(t, LinkEthernet, sortFrames(f)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := packetsOfDir(tr.Up), "0:lost 1:5000000 2:5000000 3:5000000 4:5000000 5:5000000 6:5000000 7:lost 8:5000000"; got != want {
		t.Errorf("up: %s\nwant %s\n%s", got, want, strings.Join(sum, "\n"))
	}
}

// Two captures through a relay, each started mid-game with a reply: the
// first datagram of each leg is the wrong way round. Which end is the
// game's is then read from the ports: a client's socket and a relay's
// socket to the server have ports the system chose (32768 and up on
// Linux, 49152 and up elsewhere), a server's and a relay's listening
// socket ports someone configured below them. Where both ends' ports are
// alike the first datagram still decides.
func TestPcapTwoCapturesStartedWithAReplyFindTheGamesEnds(t *testing.T) {
	const ms = int64(1e6)
	client := netip.MustParseAddrPort("10.0.0.2:51000")
	relayIn := netip.MustParseAddrPort("10.0.0.1:27877")
	relayOut := netip.MustParseAddrPort("10.0.0.1:40001")
	server := netip.MustParseAddrPort("10.0.0.3:27878")
	var cf, sf []TestFrame
	for i := range 20 {
		at := int64(i) * 50 * ms
		if i > 0 { // each capture starts with the replies to seq 0
			cf = append(cf, TestFrame{At: at, Src: client, Dst: relayIn, Payload: SeqPayload(uint64(i), 4, 24)})
			sf = append(sf, TestFrame{At: at + 20*ms, Src: relayOut, Dst: server, Payload: SeqPayload(uint64(i), 4, 24)})
		}
		sf = append(sf, TestFrame{At: at + 25*ms, Src: server, Dst: relayOut, Payload: SeqPayload(uint64(i), 4, 40)})
		cf = append(cf, TestFrame{At: at + 45*ms, Src: relayIn, Dst: client, Payload: SeqPayload(uint64(i), 4, 40)})
	}
	_, sum, err := readPcaps(t, PcapOptions{}, WriteTestPcapng(t, LinkEthernet, sortFrames(cf)), WriteTestPcapng(t, LinkEthernet, sortFrames(sf)))
	if err != nil {
		t.Fatal(err)
	}
	summaryHas(t, sum, "game client 10.0.0.2:51000", "game server 10.0.0.3:27878")
}
