package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// readBack is one packet of a capture file as pcapgo reads it.
type readBack struct {
	side     int
	at       time.Time
	src, dst netip.AddrPort
	payload  []byte
	length   int
	comments []string
}

func readAll(t *testing.T, b []byte) (*pcapgo.NgReader, []readBack) {
	t.Helper()
	r, err := pcapgo.NewNgReader(bytes.NewReader(b), pcapgo.DefaultNgReaderOptions)
	if err != nil {
		t.Fatal(err)
	}
	var out []readBack
	for {
		data, ci, opts, err := r.ReadPacketDataWithOptions()
		if errors.Is(err, io.EOF) {
			return r, out
		}
		if err != nil {
			t.Fatal(err)
		}
		p := gopacket.NewPacket(data, layers.LayerTypeIPv4, gopacket.Default)
		if data[0]>>4 == 6 {
			p = gopacket.NewPacket(data, layers.LayerTypeIPv6, gopacket.Default)
		}
		if el := p.ErrorLayer(); el != nil {
			t.Fatalf("packet %d does not decode: %v", len(out)+1, el.Error())
		}
		udp, _ := p.Layer(layers.LayerTypeUDP).(*layers.UDP)
		if udp == nil {
			t.Fatalf("packet %d has no UDP layer", len(out)+1)
		}
		var src, dst netip.Addr
		if ip, ok := p.NetworkLayer().(*layers.IPv4); ok {
			src, _ = netip.AddrFromSlice(ip.SrcIP.To4())
			dst, _ = netip.AddrFromSlice(ip.DstIP.To4())
		} else {
			ip := p.NetworkLayer().(*layers.IPv6)
			src, _ = netip.AddrFromSlice(ip.SrcIP)
			dst, _ = netip.AddrFromSlice(ip.DstIP)
		}
		out = append(out, readBack{side: ci.InterfaceIndex, at: ci.Timestamp, payload: udp.Payload, length: ci.Length,
			src: netip.AddrPortFrom(src, uint16(udp.SrcPort)), dst: netip.AddrPortFrom(dst, uint16(udp.DstPort)), comments: opts.Comments})
	}
}

func mustInterface(t *testing.T, r *pcapgo.NgReader, i int) pcapgo.NgInterface {
	t.Helper()
	intf, err := r.Interface(i)
	if err != nil {
		t.Fatal(err)
	}
	return intf
}

// Events the writer never saw are counted in the file.
func TestDroppedEventsAreInTheFile(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Options{})
	w.Dropped(ServerSide, 7)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, _ := readAll(t, buf.Bytes())
	if st := mustInterface(t, r, 1).Statistics; st.PacketsDropped != 7 || st.PacketsReceived != 0 {
		t.Fatalf("server side statistics %+v", st)
	}
}

func write(t *testing.T, o Options, events ...Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		if err := w.Write(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A simulated session's datagrams read back as written: a sent one on the
// sender's side at its send time, an arrived one on the receiver's side at
// its arrival, each exact to the nanosecond, with the example addresses,
// the synthetic payload of the message's size and the fate as comment.
func TestSimulatedPacketsReadBack(t *testing.T) {
	events := []Event{
		{At: 468186832, Dir: Up, Seq: 1, Kind: "login", Size: 9, Copies: [2]Copy{{Delivered, 55694547}}},
		{At: 500000000, Dir: Down, Seq: 7, Kind: "player_state", Size: 21, Copies: [2]Copy{{Lost, 0}, {Delivered, 31 * time.Millisecond}}},
		{Arrived: true, At: 523881379, Dir: Up, Seq: 1, Kind: "login", Size: 9, Delay: 55694547},
		{Arrived: true, At: 531000000, Dir: Down, Seq: 7, Kind: "player_state", Size: 21, Delay: 31 * time.Millisecond, Duplicate: true, Reordered: true},
		{At: 550000000, Dir: Up, Seq: 2, Kind: "move_input", Size: 13, Copies: [2]Copy{{QueueDropped, 0}}},
	}
	want := []struct {
		side     int
		src, dst netip.AddrPort
		kind     byte
		comment  string
	}{
		{0, SimClient, SimServer, 1, "up #1 login: delivered, delay added 55.694547 ms"},
		{1, SimServer, SimClient, 4, "down #7 player_state: duplicated: lost; copy delivered, delay added 31 ms"},
		{1, SimClient, SimServer, 1, "up #1 login: arrived, delay added 55.694547 ms"},
		{0, SimServer, SimClient, 4, "down #7 player_state: arrived, delay added 31 ms, duplicate, reordered"},
		{0, SimClient, SimServer, 3, "up #2 move_input: queue-dropped"},
	}
	r, got := readAll(t, write(t, Options{Epoch: time.Unix(0, 0)}, events...))
	for i, n := range []uint64{3, 2} {
		if st := mustInterface(t, r, i).Statistics; st.PacketsReceived != n || st.PacketsDropped != 0 || st.LastUpdate.UnixNano() != 550000000 {
			t.Errorf("interface %d statistics %+v; want %d packets, none dropped, at the last packet's time", i, st, n)
		}
	}
	if r.NInterfaces() != 2 {
		t.Fatalf("%d interfaces; want the client's and the server's side", r.NInterfaces())
	}
	for i, name := range []string{"client", "server"} {
		if intf, _ := r.Interface(i); intf.Name != name || intf.LinkType != layers.LinkTypeRaw || intf.TimestampResolution != 9 {
			t.Errorf("interface %d: %q, link type %v, resolution %v; want %q, raw IP, ns", i, intf.Name, intf.LinkType, intf.TimestampResolution, name)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d packets read back, %d written", len(got), len(want))
	}
	for i, w := range want {
		g, e := got[i], events[i]
		if g.side != w.side || g.src != w.src || g.dst != w.dst {
			t.Errorf("packet %d: side %d %v → %v; want side %d %v → %v", i+1, g.side, g.src, g.dst, w.side, w.src, w.dst)
		}
		if g.at.UnixNano() != int64(e.At) {
			t.Errorf("packet %d at %d ns; want %d", i+1, g.at.UnixNano(), e.At)
		}
		if len(g.payload) != e.Size || g.payload[0] != w.kind || binary.BigEndian.Uint32(g.payload[1:]) != uint32(e.Seq) {
			t.Errorf("packet %d payload % x; want %d bytes, kind %d, seq %d", i+1, g.payload, e.Size, w.kind, e.Seq)
		}
		if len(g.comments) != 1 || g.comments[0] != w.comment {
			t.Errorf("packet %d comments %q; want %q", i+1, g.comments, w.comment)
		}
	}
}

// The relay's datagrams keep their own addresses (IPv4 or IPv6) and bytes.
func TestRelayedPacketsKeepTheirAddressesAndBytes(t *testing.T) {
	c6, l6 := netip.MustParseAddrPort("[::1]:5001"), netip.MustParseAddrPort("[::1]:7777")
	c4, s4 := netip.MustParseAddrPort("127.0.0.1:40312"), netip.MustParseAddrPort("127.0.0.1:7778")
	events := []Event{
		{At: time.Millisecond, Dir: Up, Flow: 1, Payload: []byte("hello"), Size: 5, Src: c6, Dst: l6, Copies: [2]Copy{{Delivered, 20 * time.Millisecond}}},
		{Arrived: true, At: 21*time.Millisecond + 130*time.Microsecond, Dir: Up, Flow: 1, Payload: []byte("hello"), Size: 5, Src: c4, Dst: s4, Delay: 20*time.Millisecond + 130*time.Microsecond},
		{At: 22 * time.Millisecond, Dir: Down, Flow: 1, Payload: []byte{}, Src: s4, Dst: c4, Copies: [2]Copy{{OverLimit, 0}}},
	}
	epoch := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	_, got := readAll(t, write(t, Options{Epoch: epoch}, events...))
	if len(got) != 3 {
		t.Fatalf("%d packets", len(got))
	}
	if got[0].src != c6 || got[0].dst != l6 || string(got[0].payload) != "hello" || got[0].side != 0 {
		t.Errorf("IPv6 packet: %+v", got[0])
	}
	if got[1].src != c4 || got[1].dst != s4 || got[1].side != 1 || !got[1].at.Equal(epoch.Add(events[1].At)) {
		t.Errorf("IPv4 packet: %+v", got[1])
	}
	if got[1].comments[0] != "up flow 1: arrived, delay added 20.13 ms" || got[2].comments[0] != "down flow 1: over-limit" {
		t.Errorf("comments %q, %q", got[1].comments, got[2].comments)
	}
	if len(got[2].payload) != 0 || got[2].side != 1 {
		t.Errorf("empty datagram: %+v", got[2])
	}
}

// A datagram larger than an IPv4 packet carries is captured cut, its
// length whole.
func TestOversizeDatagramIsCapturedCut(t *testing.T) {
	big := make([]byte, 65535)
	_, got := readAll(t, write(t, Options{}, Event{Dir: Up, Payload: big, Size: len(big), Copies: [2]Copy{{Lost, 0}}}))
	if len(got) != 1 || len(got[0].payload) != maxPayload || got[0].length != 28+65535 {
		t.Fatalf("captured %d of %d bytes", len(got[0].payload), got[0].length)
	}
}

// The same events make the same bytes: nothing of the machine or the
// clock goes in the file.
func TestSameEventsSameBytes(t *testing.T) {
	e := Event{At: 5, Dir: Up, Seq: 3, Kind: "move_input", Size: 13, Copies: [2]Copy{{Delivered, 7}}}
	if a, b := write(t, Options{}, e), write(t, Options{}, e); !bytes.Equal(a, b) {
		t.Fatal("two writes of the same event differ")
	}
}

func TestAppendMs(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{0, "0 ms"}, {20 * time.Millisecond, "20 ms"}, {50123456, "50.123456 ms"}, {1, "0.000001 ms"}, {1500 * time.Microsecond, "1.5 ms"}, {-2500 * time.Microsecond, "-2.5 ms"}} {
		if got := string(appendMs(nil, c.d)); got != c.want {
			t.Errorf("%d ns: %q, want %q", c.d, got, c.want)
		}
	}
}

// BenchmarkWrite writes a simulated datagram's send and arrival: the cost
// per packet, and the file's bytes per packet.
func BenchmarkWrite(b *testing.B) {
	sent := Event{Dir: Up, Seq: 1, Kind: "move_input", Size: 13, Copies: [2]Copy{{Delivered, 50123456}}}
	arrived := Event{Arrived: true, Dir: Up, Seq: 1, Kind: "move_input", Size: 13, Delay: 50123456}
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Options{})
	header := buf.Len()
	for i := range 1000 {
		sent.At, arrived.At = time.Duration(i), time.Duration(i)+50123456
		w.Write(&sent)
		w.Write(&arrived)
	}
	w.ng.Flush()
	perPacket := float64(buf.Len()-header) / 2000
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if buf.Len() > 64<<20 {
			buf.Reset()
		}
		sent.At, arrived.At = time.Duration(n), time.Duration(n)+50123456
		w.Write(&sent)
		w.Write(&arrived)
		n++
	}
	b.ReportMetric(perPacket, "file-B/packet")
}

// An IPv6 packet carries a UDP payload of up to 65,527 bytes (its length
// field counts the UDP header, not the IP header): captured whole, not
// cut to IPv4's 65,507 (issue 27.15); one longer is cut to that.
func TestIPv6DatagramIsCapturedToItsOwnLimit(t *testing.T) {
	src, dst := netip.MustParseAddrPort("[::1]:5000"), netip.MustParseAddrPort("[::1]:7777")
	for _, n := range []int{65_507 + 1, 65_527, 65_535} {
		big := make([]byte, n)
		big[len(big)-1] = 7
		_, got := readAll(t, write(t, Options{}, Event{Dir: Up, Src: src, Dst: dst, Payload: big, Size: n, Copies: [2]Copy{{Lost, 0}}}))
		want := min(n, 65_527)
		if len(got) != 1 || len(got[0].payload) != want || got[0].length != 48+n {
			t.Errorf("IPv6 datagram of %d bytes: captured %d of %d; want %d of %d", n, len(got[0].payload), got[0].length, want, 48+n)
		}
	}
}
