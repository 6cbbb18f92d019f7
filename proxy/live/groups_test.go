package live

import (
	"net"
	"net/netip"
	"testing"
	"time"

	proxyctl "jitterlab/proxy/control"
)

// The proxy screen's source splits the traffic by link once a client has
// settings of its own (issue 12, proxyscreen 1): two real UDP clients,
// one with up.loss=50% of its own; everybody's link counts only the other
// (nothing lost), the client's own link its own datagrams (about half
// lost) with its settings, and each knows its clients.
func TestRelaySourceSplitsClientsByLink(t *testing.T) {
	run := screenRun(t, testOptions(t, nil, nil, nil))
	src, r, cond := run.Source(), run.r, run.cond

	if s := src.Snapshot(); s.Groups != nil {
		t.Fatalf("every client on everybody's link: want no split, got %+v", s.Groups)
	}
	var clients [2]*net.UDPConn
	for i := range clients {
		var err error
		if clients[i], err = net.DialUDP("udp", nil, r.Addr().(*net.UDPAddr)); err != nil {
			t.Fatal(err)
		}
		defer clients[i].Close()
	}
	own := netip.MustParseAddrPort(clients[1].LocalAddr().String())
	if err := cond.Set(own, []proxyctl.Assignment{{Key: "up.loss", Value: "50%"}}); err != nil {
		t.Fatal(err)
	}
	const n = 200
	buf := make([]byte, 16)
	for i := range n { // paced by the first client's echoes: no socket overflows
		for _, c := range clients {
			c.Write([]byte{byte(i)})
		}
		clients[0].SetReadDeadline(time.Now().Add(5 * time.Second)) // a bound on a broken relay
		if _, err := clients[0].Read(buf); err != nil {
			t.Fatalf("echo %d: %v", i, err)
		}
	}
	// Every datagram read and every echo written (a bound on a broken
	// relay, not a measurement).
	var g []Group
	sum := func(d func(*Group) uint64) (t uint64) {
		for i := range g {
			t += d(&g[i])
		}
		return t
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if g = src.Snapshot().Groups; len(g) == 2 && sum(func(x *Group) uint64 { return x.Up.In }) == 2*n &&
			sum(func(x *Group) uint64 { return x.Down.Delivered }) == 2*n-g[1].Up.Lost {
			break
		}
	}
	if len(g) != 2 {
		t.Fatalf("want everybody's link and the client's own; got %+v", g)
	}
	every, mine := g[0], g[1]
	if every.Addr != "" || every.Clients != 1 || every.Up.In != n || every.Up.Lost != 0 || every.Up.Delivered != n || every.Down.Delivered != n {
		t.Errorf("everybody's link: want 1 client, %d in and out, nothing lost; got %+v", n, every)
	}
	// 50 % of 200 lost: within 4.5 standard deviations (7.1) of 100.
	if mine.Addr != own.String() || mine.Own != "up.loss=50%" || mine.Set["up.loss"] != "50%" || mine.Set["up.latency"] != "0" ||
		mine.Clients != 1 || mine.Up.In != n || mine.Up.Lost < 68 || mine.Up.Lost > 132 || mine.Up.Delivered != n-mine.Up.Lost || mine.Up.LossBursts == 0 {
		t.Errorf("the client's own link: want up.loss=50%%, 1 client, %d in, about half lost; got %+v", n, mine)
	}
	// Put back on everybody's link, the client's packets count there again.
	cond.Clear(own)
	if g := src.Snapshot().Groups; g != nil {
		t.Errorf("every client back on everybody's link: want no split, got %+v", g)
	}
}
