package proxyscreen

import (
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"jitterlab/internal/golden"

	"github.com/gdamore/tcell/v2"
)

// twoLinkProxy is a relay with two clients, 60 packets/s each way each:
// 127.0.0.1:5000 on everybody's link (20 ms up, nothing lost) and
// 127.0.0.1:5001 with up.loss=5% and up.latency=80ms of its own (one up
// packet in 20 lost).
type twoLinkProxy struct {
	*fakeProxy
	groups []Group
}

func newTwoLinkProxy(t *testing.T) *twoLinkProxy {
	f := newFakeProxy(t)
	f.cfg.Up.Jitter, f.cfg.Up.Loss, f.cfg.Up.Latency = 0, 0, 20*time.Millisecond
	own := map[string]string{}
	for _, k := range []string{"latency", "jitter", "loss", "loss_burst", "reorder", "duplicate", "rate"} {
		own["up."+k], own["down."+k] = f.Get("up."+k), f.Get("down."+k)
	}
	own["up.loss"], own["up.latency"] = "5%", "80ms"
	nan := math.NaN()
	return &twoLinkProxy{fakeProxy: f, groups: []Group{
		{Clients: 1, Up: Dir{JitterMs: 0.5}, Down: Dir{JitterMs: nan, LossBursts: -1, Bytes: -1}},
		{Addr: "127.0.0.1:5001", Own: "up.loss=5% up.latency=80ms", Clients: 1, Set: own,
			Up: Dir{JitterMs: 1.5}, Down: Dir{JitterMs: nan, LossBursts: -1, Bytes: -1}},
	}}
}

func (p *twoLinkProxy) tick() {
	p.snap.Wall += 100 * time.Millisecond
	p.n++
	for i := range p.groups {
		u, d := &p.groups[i].Up, &p.groups[i].Down
		u.DelaysMs, d.DelaysMs = []float64{}, nil
		for k := range 6 {
			u.In++
			d.In++
			d.Delivered++
			if i == 1 && (p.n*6+k)%20 == 0 {
				u.Lost++
				u.LossBursts++
				continue
			}
			u.Delivered++
			u.Bytes += 100
			u.DelaysMs = append(u.DelaysMs, []float64{20, 80}[i]+float64(k)/10)
		}
	}
	// Up and Down are every client's.
	a, b := &p.groups[0], &p.groups[1]
	p.snap.Up = Dir{In: a.Up.In + b.Up.In, Delivered: a.Up.Delivered + b.Up.Delivered, Lost: a.Up.Lost + b.Up.Lost,
		Bytes: a.Up.Bytes + b.Up.Bytes, LossBursts: a.Up.LossBursts + b.Up.LossBursts, JitterMs: 1,
		DelaysMs: append(append([]float64{}, a.Up.DelaysMs...), b.Up.DelaysMs...)}
	p.snap.Down = Dir{In: a.Down.In + b.Down.In, Delivered: a.Down.Delivered + b.Down.Delivered, LossBursts: -1, Bytes: -1, JitterMs: math.NaN()}
	p.snap.Clients = 2
}

func (p *twoLinkProxy) Snapshot() Snapshot {
	s := p.fakeProxy.Snapshot()
	s.Groups = append([]Group(nil), p.groups...)
	for i := range p.groups {
		p.groups[i].Up.DelaysMs = nil
	}
	return s
}

// With a client on a link of its own (issue 12, proxyscreen 1), the box
// shows one link at a time and says which: everybody's, its figures
// leaving that client out (20 ms, nothing lost, 60 packets/s: not a mix
// of both clients), with a last line listing the links; f shows the
// client's own, its settings in the set row (80ms, 5%) and its realised
// figures beside them (80 ms, 5 % lost), and f again everybody's. The
// delay chart, of every client, then gives no p50 that would mix links.
func TestProxyScreenShowsEachClientsOwnLink(t *testing.T) {
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		p := newTwoLinkProxy(t)
		v, screen := openProxy(p, Options{}, sz.w, sz.h, 200)
		realUp := regexp.MustCompile(`│    real\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+\S+\s+(\S+)`)
		check := func(name, title, set string, real []string) {
			t.Helper()
			out := drawProxy(v, screen)
			m := realUp.FindStringSubmatch(out)
			if !strings.Contains(out, title) || !strings.Contains(out, set) || m == nil || !slicesEqual(m[1:], real) {
				t.Errorf("%d×%d, %s: want the title %q, the set row %q and up real %v; got real %v:\n%s", sz.w, sz.h, name, title, set, real, m, out)
			}
			if !strings.Contains(out, "added delay (ms) ─ all clients") {
				t.Errorf("%d×%d, %s: the delay chart's title mixes the links:\n%s", sz.w, sz.h, name, out)
			}
			if !strings.Contains(out, "f shows everybody's 1 client · 127.0.0.1:5001 up.loss=5% up.latency=80ms") {
				t.Errorf("%d×%d, %s: no line listing the links:\n%s", sz.w, sz.h, name, out)
			}
			golden.Check(t, filepath.Join("testdata", "proxy-own-"+name+"-"+map[int]string{80: "80x24", 120: "120x40"}[sz.w]+".txt"), []byte(out))
		}
		check("everybody", " everybody's link, 1 client: set and real (real: the last 10s) ",
			" up set        ≈20.0  ≈20.0            0%", []string{"20.2", "20.5", "0.5", "0.0%", "60"})
		proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'f', 0))
		check("own", " 127.0.0.1:5001's own link: set and real (real: the last 10s) ",
			" up set        ≈80.0  ≈80.0            5%", []string{"80.3", "80.5", "1.5", "5.0%", "57"})
		proxyKey(v, tcell.NewEventKey(tcell.KeyRune, 'f', 0))
		if out := drawProxy(v, screen); !strings.Contains(out, " everybody's link, 1 client") {
			t.Errorf("f again does not come back to everybody's link:\n%s", out)
		}
	}
}

func slicesEqual(a, b []string) bool { return strings.Join(a, "|") == strings.Join(b, "|") }
