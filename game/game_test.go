package game

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"jitterlab/compare"
	"jitterlab/lab"
	"jitterlab/netem"
	"jitterlab/proxy"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

var (
	clientAddr = netip.MustParseAddrPort("127.0.0.1:40001")
	serverAddr = netip.MustParseAddrPort("127.0.0.1:40002")
	telAddr    = netip.MustParseAddrPort("127.0.0.1:40003")
	t0         = time.Unix(1_000_000, 0)
)

// inFlight is a datagram on the test's link, due at at; seq is when it
// was sent among the run's events. Through the proxy's core (relayed) it
// is a wake-up: what is delivered then is what the core releases.
type inFlight struct {
	at      time.Time
	seq     uint64
	from    netip.AddrPort
	d       Datagram
	relayed bool
}

// endpoints are cfg's client at clientAddr and server at serverAddr,
// both started at t0 and sending telemetry to telAddr.
func endpoints(t *testing.T, cfg lab.Config) (*Client, *Server) {
	t.Helper()
	return endpointsAt(t, cfg, 0)
}

// endpointsAt are endpoints with the client started start after the
// server.
func endpointsAt(t *testing.T, cfg lab.Config, start time.Duration) (*Client, *Server) {
	t.Helper()
	cl, err := NewClient(cfg, t0.Add(start), serverAddr, telAddr)
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
// for dur of a fake wall clock, both started at t0 ([playOn]).
func play(t *testing.T, cfg lab.Config, dur, delay time.Duration) played {
	t.Helper()
	return playOn(t, cfg, dur, setup{link: netem.Pair{Up: netem.Params{Latency: delay}, Down: netem.Params{Latency: delay}}})
}

// setup is the test's link and how its game starts.
type setup struct {
	link  netem.Pair
	start time.Duration // the client's start after the server's
	// late is how long after a datagram arrives the client reads it: 0
	// for the reference game, more for a wrong one.
	late time.Duration
	// proxied: the datagrams go through the relay's own scheduling state
	// (proxy.Core, the code 'lab proxy' runs between its sockets, seeded
	// as the relay seeds its first client) instead of the model's link.
	proxied bool
}

// playOn runs a client and a server on the model's link (netem, its
// directions seeded by cfg.Seed as a session's) for dur of a fake wall
// clock, with no sleep: the wall clock jumps to the next frame, step or
// arrival. Events due at one instant run in the order they were
// scheduled, as the session runs them: a frame or a step when the one
// before it ran (the first frame before the first step), an arrival when
// its datagram was sent.
func playOn(t *testing.T, cfg lab.Config, dur time.Duration, su setup) played {
	t.Helper()
	cl, sv := endpointsAt(t, cfg, su.start)
	p := played{cl: cl, sv: sv}
	up, err := netem.New(cfg.Seed, "up", su.link.Up)
	if err != nil {
		t.Fatal(err)
	}
	down, err := netem.New(cfg.Seed, "down", su.link.Down)
	if err != nil {
		t.Fatal(err)
	}
	core, err := proxy.NewCore(cfg.Seed, su.link.Up, su.link.Down, proxy.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	var link []inFlight
	var seq uint64
	next := func() uint64 { seq++; return seq }
	// relay hands d to the proxy's core and returns when its copies are
	// due.
	relay := func(now sim.Time, d Datagram) []sim.Time {
		id, _, err := core.Flow(now, clientAddr)
		if err != nil {
			t.Fatal(err)
		}
		dir := proxy.Up
		if d.To == clientAddr {
			dir = proxy.Down
		}
		out := core.Send(now, id, dir, d.B)
		var at []sim.Time
		for i := range out.Copies {
			if out.Copy[i] == proxy.FateScheduled {
				at = append(at, now.Add(out.Delay[i]))
			}
		}
		return at
	}
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
			var due []sim.Time
			if su.proxied {
				due = relay(sim.Time(now.Sub(t0)), d)
			} else {
				l := up
				if d.To == clientAddr {
					l = down
				}
				res := l.Send(sim.Time(now.Sub(t0)), netem.Packet{Size: len(d.B)})
				for l.InFlight() > 0 { // the arrival times are all this test needs
					l.Deliver(sim.Time(1 << 62))
				}
				due = res.At[:res.Scheduled]
			}
			for _, at := range due {
				if d.To == clientAddr {
					at = at.Add(su.late)
				}
				link = append(link, inFlight{at: t0.Add(time.Duration(at)), seq: next(), from: from, d: d, relayed: su.proxied})
			}
			slices.SortFunc(link, func(a, b inFlight) int {
				if c := a.at.Compare(b.at); c != 0 {
					return c
				}
				return cmp.Compare(a.seq, b.seq)
			})
		}
	}
	end := t0.Add(dur)
	frameSeq, stepSeq := next(), next()
	for {
		// The earliest (time, sequence) of the next frame, the next step
		// and the first arrival.
		now, first, which := cl.Next(), frameSeq, "frame"
		if n := sv.Next(); n.Before(now) || (n.Equal(now) && stepSeq < first) {
			now, first, which = n, stepSeq, "step"
		}
		if len(link) > 0 && (link[0].at.Before(now) || (link[0].at.Equal(now) && link[0].seq < first)) {
			now, which = link[0].at, "arrival"
		}
		if !now.Before(end) {
			return p
		}
		switch which {
		case "frame":
			n := cl.Frames()
			route(now, clientAddr, cl.Advance(now))
			if cl.Frames() != n+1 {
				t.Fatalf("at %v, its next frame's time, the client rendered %d frames", now.Sub(t0), cl.Frames()-n)
			}
			frameSeq = next()
		case "step":
			route(now, serverAddr, sv.Advance(now))
			stepSeq = next()
		default:
			f := link[0]
			link = link[1:]
			arrived := []inFlight{f}
			if f.relayed { // what the core releases now, in its order
				arrived = arrived[:0]
				for _, dl := range core.Due(sim.Time(now.Sub(t0)), nil) {
					to, from := serverAddr, clientAddr
					if dl.Dir == proxy.Down {
						to, from = clientAddr, serverAddr
					}
					arrived = append(arrived, inFlight{from: from, d: Datagram{To: to, B: dl.Payload}})
				}
			}
			for _, f := range arrived {
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

// jitterFix is the jitter-fix scenario's settings: 50 ± 20 ms each way,
// uniform.
func jitterFix(t *testing.T) lab.Config {
	t.Helper()
	sc, err := lab.LoadScenario("jitter-fix")
	if err != nil {
		t.Fatal(err)
	}
	cfg := lab.DefaultConfig()
	if err := lab.ApplyScenario(&cfg, sc); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The reference game on a fake clock plays the model's own session when
// both draw the same: its client started at the session's client.start
// and the link's directions seeded as the session's, every telemetry
// frame of the game equals the session's (time, frame, input, tick
// offset, send interval, acknowledged tick, pending inputs), its poses
// within the float32 the wire carries them in, and the server applies,
// overwrites and starves as many inputs. So the order of the game's frames, steps and
// arrivals is the model's: on jitter-fix's link at each seed's phase, and
// where events meet at one instant, on a perfect link and on 50 ms each
// way with the client in phase with the server (a frame at 50 ms, the
// step at 50 ms and the datagrams it sends, all at once: the model runs
// them in the order they were scheduled, the game's frame does not read
// what arrives at its own instant).
func TestTheGameIsTheModelOnTheSameDraws(t *testing.T) {
	const dur = 30 * time.Second
	ms50 := lab.DefaultConfig()
	ms50.Up.Latency, ms50.Down.Latency = 50*time.Millisecond, 50*time.Millisecond
	for _, c := range []struct {
		name  string
		cfg   lab.Config
		seed  uint64
		start time.Duration
	}{
		{"jitter-fix", jitterFix(t), 1000, lab.SeedStart(1000)}, {"jitter-fix", jitterFix(t), 1001, lab.SeedStart(1001)},
		{"jitter-fix", jitterFix(t), 1002, lab.SeedStart(1002)}, {"jitter-fix", jitterFix(t), 1003, lab.SeedStart(1003)},
		{"perfect, in phase", lab.DefaultConfig(), 1000, 0}, {"50 ms each way, in phase", ms50, 1000, 0},
	} {
		cfg := c.cfg
		cfg.Seed, cfg.ClientStart, cfg.Duration = c.seed, c.start, dur
		p := playOn(t, cfg, dur, setup{link: netem.Pair{Up: cfg.Up, Down: cfg.Down}, start: c.start})
		s, err := lab.New(cfg, 0)
		if err != nil {
			t.Fatal(err)
		}
		var model []telemetry.Frame
		s.OnFrame = func(f *telemetry.Frame) { model = append(model, *f) }
		if err := s.Run(sim.Time(dur) - 1); err != nil { // the fake clock stops before dur
			t.Fatal(err)
		}
		if len(p.frames) != len(model) {
			t.Errorf("%s, seed %d: the game rendered %d frames, the model %d", c.name, c.seed, len(p.frames), len(model))
		}
		var worst float64
		for i := range min(len(p.frames), len(model)) {
			g, m := p.frames[i], model[i]
			for _, d := range []float64{g.Visible.X - m.Visible.X, g.Visible.Y - m.Visible.Y, g.Visible.Rot - m.Visible.Rot,
				g.Predicted.X - m.Predicted.X, g.Predicted.Y - m.Predicted.Y, g.Predicted.Rot - m.Predicted.Rot} {
				worst = max(worst, math.Abs(d))
			}
			g.Visible, g.Predicted = m.Visible, m.Predicted
			if g != m || worst > 4e-6 {
				t.Fatalf("%s, seed %d, frame %d:\n  game  %+v\n  model %+v", c.name, c.seed, i, p.frames[i], m)
			}
		}
		game, sum := p.sv.Model().Counters(), s.Summary()
		if game.Starved != sum.Starved || game.Applied != sum.Applied || game.Overwritten != sum.Overwritten {
			t.Errorf("%s, seed %d: the game's server applied %d, overwrote %d and starved %d; the model's %d, %d and %d", c.name, c.seed,
				game.Applied, game.Overwritten, game.Starved, sum.Applied, sum.Overwritten, sum.Starved)
		}
		t.Logf("%s, seed %d, client start %v: %d frames alike, poses within %.2g m; both servers applied %d, overwrote %d, starved %d", c.name, c.seed, c.start, len(model), worst, game.Applied, game.Overwritten, game.Starved)
	}
}

// A client started after the wall time it is first advanced to renders
// nothing before its start: its frame 0 is due at its start. (It rendered
// frame 0 at once and logged in before it started.)
func TestClientRendersNothingBeforeItsStart(t *testing.T) {
	start := t0.Add(300 * time.Millisecond)
	cl, err := NewClient(lab.DefaultConfig(), start, serverAddr, netip.AddrPort{})
	if err != nil {
		t.Fatal(err)
	}
	if ds := cl.Advance(t0.Add(50 * time.Millisecond)); len(ds) != 0 || cl.Frames() != 0 {
		t.Fatalf("before its start: %d datagrams, %d frames rendered", len(ds), cl.Frames())
	}
	if !cl.Next().Equal(start) {
		t.Errorf("next frame at %v, want its start %v", cl.Next().Sub(t0), start.Sub(t0))
	}
	if ds := cl.Advance(start); len(ds) != 1 || cl.Frames() != 1 {
		t.Errorf("at its start: %d datagrams (want its Login), %d frames", len(ds), cl.Frames())
	}
}

// games is how many games TestReferenceGameFallsInsideTheModel plays on
// each link: seeds 1000 on (the model's runs take 1 to modelSeeds).
var games = flag.Int("games", 12, "games a link in TestReferenceGameFallsInsideTheModel (seeds 1000 on)")

const modelSeeds = 20

// judged plays n games on cfg's link, each with its client
// started at its seed's phase (a real client starts at any phase of the
// server's steps), and sets each beside the model (lab compare's code).
// It returns how many fall outside the model, and the text of the first.
func judged(t *testing.T, name string, cfg lab.Config, late time.Duration, proxied bool, n int) (outside int, text string) {
	t.Helper()
	for seed := uint64(1000); seed < 1000+uint64(n); seed++ {
		gc := cfg
		gc.Seed = seed
		p := playOn(t, gc, 30*time.Second, setup{link: netem.Pair{Up: cfg.Up, Down: cfg.Down}, start: lab.SeedStart(seed), late: late, proxied: proxied})
		g := &compare.Game{Name: fmt.Sprintf("%s, seed %d", name, seed), Config: cfg, Frames: p.frames,
			Duration: time.Duration(math.Round((p.frames[len(p.frames)-1].TS - p.frames[0].TS) * 1e9))}
		res, err := compare.Run(g, modelSeeds, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Inside() {
			outside++
			if text == "" {
				var b strings.Builder
				res.WriteText(&b)
				text = b.String()
			}
		}
	}
	return outside, text
}

// allowedOutside is how many of n games that are the model may fall
// outside it: lab compare's verdict fails for at most 5 % of them, so the
// count is at most Binomial(n, 0.05), and it exceeds the bound returned
// with a probability below 1 %.
func allowedOutside(n int) int {
	p := 1 - compare.Family
	for m := 0; m <= n; m++ {
		tail := 0.0 // P(X > m)
		for x := m + 1; x <= n; x++ {
			tail += binomial(n, x) * math.Pow(p, float64(x)) * math.Pow(1-p, float64(n-x))
		}
		if tail < 0.01 {
			return m
		}
	}
	return n
}

func binomial(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return c
}

// allowedOutside by hand: Binomial(12, 0.05) exceeds 2 with a
// probability of 1 − (0.5404 + 0.3413 + 0.0988) = 0.0196 and 3 with
// 0.0022; Binomial(40, 0.05) exceeds 5 with 0.0138 and 6 with 0.0034.
func TestAllowedOutsideByHand(t *testing.T) {
	for _, c := range []struct{ n, want int }{{1, 1}, {12, 3}, {40, 6}} {
		if got := allowedOutside(c.n); got != c.want {
			t.Errorf("allowedOutside(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

// The reference game on a fake clock, beside the model over 20 seeds
// (lab compare's code), 12 games a link (-games N for more), each with its
// client started at its seed's phase: on a perfect link and on jitter-fix's
// 50 ± 20 ms through the proxy's core (the relay's scheduling, as 'lab
// proxy' runs it between its sockets), and on 40 ms each way and
// jitter-fix on the model's own link, at most allowedOutside(12) = 3 of the
// 12 fall outside the model (compare's verdict, family-wise at 95 %).
// Measured: 0, 0, 2 and 1; with -games 40, 0, 0, 4 and 5 (hesitations are
// skewed, and the interval assumes a normal spread). With every client
// started in phase with the server's steps, as this test's harness once
// did, jitter-fix gives 4 of 12.
func TestReferenceGameFallsInsideTheModel(t *testing.T) {
	perfect := lab.DefaultConfig()
	ms40 := lab.DefaultConfig()
	ms40.Up.Latency, ms40.Down.Latency = 40*time.Millisecond, 40*time.Millisecond
	for _, c := range []struct {
		name    string
		cfg     lab.Config
		proxied bool
	}{
		{"perfect, through the proxy", perfect, true},
		{"40 ms each way", ms40, false},
		{"jitter-fix", jitterFix(t), false},
		{"jitter-fix, through the proxy", jitterFix(t), true},
	} {
		out, text := judged(t, c.name, c.cfg, 0, c.proxied, *games)
		t.Logf("%s: %d of %d games outside the model", c.name, out, *games)
		if out > allowedOutside(*games) {
			t.Errorf("%s: %d of %d games outside the model, at most %d allowed; the first:\n%s", c.name, out, *games, allowedOutside(*games), text)
		}
	}
}

// The test above can fail: a game whose client reads each datagram one
// frame after it arrives (it reads its socket after rendering) falls
// outside the model on jitter-fix's link for more than allowedOutside(12)
// = 3 of 12 seeds (6, through the proxy's core): its inputs reach the server with more lead, so it
// hesitates less and loses less progress than the model.
func TestAGameThatReadsLateFallsOutsideTheModel(t *testing.T) {
	const n = 12
	out, text := judged(t, "jitter-fix, reading a frame late", jitterFix(t), time.Second/60, true, n)
	t.Logf("%d of %d games outside the model; the first:\n%s", out, n, text)
	if out <= allowedOutside(n) {
		t.Errorf("%d of %d games that read a frame late outside the model, want more than %d", out, n, allowedOutside(n))
	}
}
