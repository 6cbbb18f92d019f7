package trace_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"jitterlab/fit"
	"jitterlab/netem"
	"jitterlab/trace"
)

// The closed loop of the pcap input: a known link (up 40 ms ± 8 ms
// normal, 3 % loss; down 30 ms ± 5 ms uniform, 1 % loss) carries a game's
// 60 Hz datagrams with 2-byte sequence numbers (they wrap) for 5 minutes;
// the client's machine captures on Ethernet (pcapng), the server's behind
// NAT on Linux's cooked capture (classic pcap), starting 2 s later, with
// a clock that drifts 40 ppm (zero on average over the session) and DNS
// traffic beside the game's. The fit of the two captures recovers the
// link: latency within 5σ/√n, jitter within 5/√n relative, the
// distribution, and the loss rate within 4 standard errors.
func TestPcapClosedLoopRecoversTheLink(t *testing.T) {
	const (
		ms       = 1e6
		n        = 18000 // per direction: 5 min at 60 Hz
		interval = 1e9 / 60
		t0       = 1_700_000_000e9
		drift    = 40e-6
	)
	rng := rand.New(rand.NewPCG(14, 2))
	var (
		clientSeen  = netip.MustParseAddrPort("192.168.1.20:61000") // the client, on its machine
		serverSeen  = netip.MustParseAddrPort("198.51.100.1:27015") // the server, as the client sees it
		clientAtSrv = netip.MustParseAddrPort("203.0.113.7:40123")  // the client, as the server sees it (NAT)
		serverLocal = netip.MustParseAddrPort("10.0.0.1:27015")     // the server, on its machine
		dns         = [2]netip.AddrPort{netip.MustParseAddrPort("192.168.1.1:53"), netip.MustParseAddrPort("10.0.0.2:53")}
	)
	// serverClock is the server's clock reading at true time at (ns).
	serverClock := func(at float64) int64 { return int64(at + drift*(at-t0-150e9)) }
	link := []struct {
		latency, jitter, loss float64
		dist                  netem.Dist
	}{{40 * ms, 8 * ms, 0.03, netem.Normal}, {30 * ms, 5 * ms, 0.01, netem.Uniform}}
	var cf, sf []trace.TestFrame
	for i := range n {
		seq := uint64(60000+i) & 0xffff
		for d, l := range link {
			sent := t0 + float64(i)*interval + float64(d)*interval/2
			lost := rng.Float64() < l.loss
			jit := rng.NormFloat64()
			if l.dist == netem.Uniform {
				jit = 2*rng.Float64() - 1
			}
			arrive := sent + max(l.latency+l.jitter*jit, 0)
			if d == 0 {
				cf = append(cf, trace.TestFrame{At: int64(sent), Src: clientSeen, Dst: serverSeen, Payload: trace.SeqPayload(seq, 2, 32)})
				if !lost {
					sf = append(sf, trace.TestFrame{At: serverClock(arrive), Src: clientAtSrv, Dst: serverLocal, Payload: trace.SeqPayload(seq, 2, 32)})
				}
			} else {
				sf = append(sf, trace.TestFrame{At: serverClock(sent), Src: serverLocal, Dst: clientAtSrv, Payload: trace.SeqPayload(seq, 2, 120)})
				if !lost {
					cf = append(cf, trace.TestFrame{At: int64(arrive), Src: serverSeen, Dst: clientSeen, Payload: trace.SeqPayload(seq, 2, 120)})
				}
			}
		}
		if i%600 == 0 { // a DNS query every 10 s on each machine
			cf = append(cf, trace.TestFrame{At: int64(t0 + float64(i)*interval + 1), Src: clientSeen, Dst: dns[0], Payload: []byte("query")})
			sf = append(sf, trace.TestFrame{At: serverClock(t0 + float64(i)*interval + 1), Src: serverLocal, Dst: dns[1], Payload: []byte("query")})
		}
	}
	sortByTime(cf)
	sortByTime(sf)
	for len(sf) > 0 && sf[0].At < t0+2e9 { // the server's capture starts 2 s late
		sf = sf[1:]
	}
	client, server := trace.WriteTestPcapng(t, trace.LinkEthernet, cf), trace.WriteTestPcap(t, trace.LinkSLL, sf)
	tr, sum, err := trace.ReadPcap([]trace.PcapFile{{Name: "client.pcapng", R: bytes.NewReader(client)}, {Name: "server.pcap", R: bytes.NewReader(server)}}, trace.PcapOptions{Seq: trace.SeqField{Width: 2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + strings.Join(sum, "\n"))
	res, err := fit.Fit(tr, fit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range res.Dirs {
		l := link[i]
		p := d.Params()
		nd := float64(d.Delivered)
		sigma := l.jitter
		if l.dist == netem.Uniform {
			sigma /= math.Sqrt(3)
		}
		check := func(what string, got, want, tol float64) {
			t.Helper()
			if math.Abs(got-want) > tol {
				t.Errorf("%s %s: fitted %.4g, configured %.4g, tolerance %.3g", d.Name, what, got, want, tol)
			}
		}
		check("latency ms", float64(p.Latency)/ms, l.latency/ms, 5*sigma/ms/math.Sqrt(nd)+0.002)
		check("jitter ms", float64(p.Jitter)/ms, l.jitter/ms, l.jitter/ms*5/math.Sqrt(nd))
		check("loss", p.Loss, l.loss, 4*math.Sqrt(l.loss*(1-l.loss)/float64(d.Sent)))
		if p.JitterDist != l.dist {
			t.Errorf("%s: fitted %s, configured %s", d.Name, p.JitterDist, l.dist)
		}
		if d.Sent < n-2*60-10 || d.Sent > n-2*60+10 {
			t.Errorf("%s: %d packets counted; want those sent after the server's capture began, about %d", d.Name, d.Sent, n-2*60)
		}
	}
	if t.Failed() {
		var b strings.Builder
		res.WriteText(&b)
		t.Log(b.String())
	}
}

func sortByTime(f []trace.TestFrame) {
	// Frames are nearly sorted: insertion sort is quick.
	for i := range f {
		for j := i; j > 0 && f[j].At < f[j-1].At; j-- {
			f[j], f[j-1] = f[j-1], f[j]
		}
	}
}
