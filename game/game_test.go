package game

import (
	"math"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"jitterlab/compare"
	"jitterlab/lab"
	"jitterlab/netem"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

var (
	clientAddr = netip.MustParseAddrPort("127.0.0.1:40001")
	serverAddr = netip.MustParseAddrPort("127.0.0.1:40002")
	telAddr    = netip.MustParseAddrPort("127.0.0.1:40003")
	t0         = time.Unix(1_000_000, 0)
)

// inFlight is a datagram on the test's link, due at at.
type inFlight struct {
	at   time.Time
	from netip.AddrPort
	d    Datagram
}

// endpoints are cfg's client at clientAddr and server at serverAddr,
// started at t0, both sending telemetry to telAddr.
func endpoints(t *testing.T, cfg lab.Config) (*Client, *Server) {
	t.Helper()
	cl, err := NewClient(cfg, t0, serverAddr, telAddr)
	if err != nil {
		t.Fatal(err)
	}
	sv, err := NewServer(cfg, t0, telAddr)
	if err != nil {
		t.Fatal(err)
	}
	return cl, sv
}

// played is what a game played on the test's link left.
type played struct {
	cl     *Client
	sv     *Server
	frames []telemetry.Frame
	ticks  []telemetry.Tick
}

// play runs a client and a server on a link of one-way delay each way
// for dur of a fake wall clock ([playOn]).
func play(t *testing.T, cfg lab.Config, dur, delay time.Duration) played {
	t.Helper()
	return playOn(t, cfg, dur, netem.Pair{Up: netem.Params{Latency: delay}, Down: netem.Params{Latency: delay}})
}

// playOn runs a client and a server on the model's link (netem, seeded
// by cfg.Seed) for dur of a fake wall clock, event by event as Run would
// meet them, with no sleep: the wall clock jumps to the next frame, step
// or arrival.
func playOn(t *testing.T, cfg lab.Config, dur time.Duration, pair netem.Pair) played {
	t.Helper()
	cl, sv := endpoints(t, cfg)
	p := played{cl: cl, sv: sv}
	up, err := netem.New(cfg.Seed, "up", pair.Up)
	if err != nil {
		t.Fatal(err)
	}
	down, err := netem.New(cfg.Seed+1, "down", pair.Down)
	if err != nil {
		t.Fatal(err)
	}
	var link []inFlight
	route := func(now time.Time, from netip.AddrPort, ds []Datagram) {
		for _, d := range ds {
			if d.To == telAddr {
				var g telemetry.Datagram
				if err := telemetry.Decode(d.B, &g); err != nil {
					t.Fatalf("telemetry from %s: %v", from, err)
				}
				if g.Kind == telemetry.KindFrame {
					p.frames = append(p.frames, g.Frame)
				} else {
					p.ticks = append(p.ticks, g.Tick)
				}
				continue
			}
			d.B = slices.Clone(d.B)
			l := up
			if d.To == clientAddr {
				l = down
			}
			res := l.Send(sim.Time(now.Sub(t0)), netem.Packet{Size: len(d.B)})
			for l.InFlight() > 0 { // the arrival times are all this test needs
				l.Deliver(sim.Time(1 << 62))
			}
			for _, at := range res.At[:res.Scheduled] {
				link = append(link, inFlight{at: t0.Add(time.Duration(at)), from: from, d: d})
			}
			slices.SortStableFunc(link, func(a, b inFlight) int { return a.at.Compare(b.at) })
		}
	}
	end := t0.Add(dur)
	for {
		now := cl.Next()
		if n := sv.Next(); n.Before(now) {
			now = n
		}
		if len(link) > 0 && link[0].at.Before(now) {
			now = link[0].at
		}
		if !now.Before(end) {
			return p
		}
		route(now, clientAddr, cl.Advance(now))
		route(now, serverAddr, sv.Advance(now))
		for len(link) > 0 && !link[0].at.After(now) {
			f := link[0]
			link = link[1:]
			var out []Datagram
			var err error
			switch f.d.To {
			case serverAddr:
				out, err = sv.Receive(now, f.from, f.d.B)
				route(now, serverAddr, out)
			case clientAddr:
				_, err = cl.Receive(now, f.from, f.d.B)
			}
			if err != nil {
				t.Fatalf("at %v: %v", now.Sub(t0), err)
			}
		}
	}
}

// The reference game on a 20 ms link each way, 20 s of a fake wall clock:
// the client logs in once, sends at the server's rate once its corrector
// latches, and the server applies nearly every step's input, as the model
// on the same link does (within a handful of steps over the run); every
// frame and step sends its telemetry.
func TestReferenceGameOnAFakeClockPlaysAsTheModel(t *testing.T) {
	cfg := lab.DefaultConfig()
	const dur, delay = 20 * time.Second, 20 * time.Millisecond
	p := play(t, cfg, dur, delay)
	if p.sv.Logins() != 1 || !p.cl.Model().LoggedIn() {
		t.Fatalf("logins %d, logged in %v", p.sv.Logins(), p.cl.Model().LoggedIn())
	}
	if want := uint64(dur / (time.Second / 60)); p.cl.Frames() < want-1 || p.cl.Frames() > want {
		t.Errorf("%d frames in %v at 60 fps, want %d", p.cl.Frames(), dur, want)
	}
	if uint64(len(p.frames)) != p.cl.Frames() || len(p.ticks) != int(p.sv.Model().Tick()) || len(p.ticks) != int(dur/cfg.Server.Tick)-1 {
		t.Errorf("%d telemetry frames of %d, %d ticks of %d steps", len(p.frames), p.cl.Frames(), len(p.ticks), p.sv.Model().Tick())
	}
	for i, f := range p.frames {
		if f.Frame != uint64(i) || (i > 0 && f.TS <= p.frames[i-1].TS) {
			t.Fatalf("frame %d: %+v after %+v", i, f, p.frames[max(i-1, 0)])
		}
	}
	last := p.frames[len(p.frames)-1]
	if last.SendIntervalS != 0.048 && last.SendIntervalS != 0.05 {
		t.Errorf("send interval %v at the end: want the latch's 0.048 s or the base 0.05 s", last.SendIntervalS)
	}
	if last.Visible.Y < 30 || last.PendingInputs < 1 || last.AckTick == 0 {
		t.Errorf("the last frame: %+v: want the tank ~38 m along, inputs pending, ticks acknowledged", last)
	}
	mc := cfg
	mc.Duration, mc.ClientStart = dur, 0
	mc.Up.Latency, mc.Down.Latency = delay, delay
	s, err := lab.New(mc, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(sim.Time(mc.Duration)); err != nil {
		t.Fatal(err)
	}
	sum := s.Summary()
	game := p.sv.Model().Counters()
	t.Logf("game: applied %d starved %d overwritten %d; model: applied %d starved %d", game.Applied, game.Starved, game.Overwritten, sum.Applied, sum.Starved)
	if d := int64(game.Starved) - int64(sum.Starved); d < -5 || d > 5 {
		t.Errorf("starved: the game %d, the model %d", game.Starved, sum.Starved)
	}
	if d := int64(game.Applied) - int64(sum.Applied); d < -5 || d > 5 {
		t.Errorf("applied: the game %d, the model %d", game.Applied, sum.Applied)
	}
}

// The reference game on a fake clock, beside the model over 20 seeds
// (lab compare's code): on a perfect link and on 40 ms each way (the
// model's own netem, driven by the fake clock), every figure of its report
// card falls inside the model's interval for one run. Not yet on
// jitter-fix's link: over seeds 1000–1011 the game hesitates 9 times a
// minute on average against the model's 1.9, and 8 of 12 seeds have a
// figure outside (docs/explanation/architecture.md, what is not yet).
func TestReferenceGameFallsInsideTheModel(t *testing.T) {
	for _, c := range []struct {
		name string
		link netem.Pair
	}{
		{"perfect", netem.Pair{}},
		{"40 ms each way", netem.Pair{Up: netem.Params{Latency: 40 * time.Millisecond}, Down: netem.Params{Latency: 40 * time.Millisecond}}},
	} {
		cfg := lab.DefaultConfig()
		cfg.Seed = 1000
		p := playOn(t, cfg, 30*time.Second, c.link)
		g := &compare.Game{Name: c.name, Config: lab.DefaultConfig(), Frames: p.frames,
			Duration: time.Duration(math.Round((p.frames[len(p.frames)-1].TS - p.frames[0].TS) * 1e9))}
		g.Config.Up, g.Config.Down = c.link.Up, c.link.Down
		res, err := compare.Run(g, 20, 2)
		if err != nil {
			t.Fatal(err)
		}
		if out := res.Outside(); len(out) > 0 {
			var b strings.Builder
			res.WriteText(&b)
			t.Errorf("%s: %d figures outside:\n%s", c.name, len(out), b.String())
		}
	}
}
