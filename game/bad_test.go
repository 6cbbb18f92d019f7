package game

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"jitterlab/lab"
	"jitterlab/motion"
	"jitterlab/proto"
)

// A malformed datagram, one of a kind this end does not take, or one from
// an address that is not the peer is counted and dropped; the first of
// each class comes back to report, once, in one line.
func TestBadDatagramsAreCountedAndReportedOnce(t *testing.T) {
	cl, sv := endpoints(t, lab.DefaultConfig())
	move, _ := proto.AppendMoveInput(nil, &proto.MoveInput{Tick: 1, Input: motion.Input{Throttle: 1}}, nil)
	state, _ := proto.AppendPlayerState(nil, &proto.PlayerState{ServerTick: 1})
	at := t0.Add(time.Second)
	for _, c := range []struct {
		name string
		e    Endpoint
		from string
		b    []byte
		want string // the first report; "" none
	}{
		{"client: garbage", cl, serverAddr.String(), []byte("hello"), "a malformed datagram from the server: a datagram of kind 104 (5 bytes): allowed kinds 1 to 4"},
		{"client: garbage again", cl, serverAddr.String(), []byte{4, 1}, ""},
		{"client: a move input", cl, serverAddr.String(), move, ""},
		{"client: from elsewhere", cl, "10.0.0.1:9", state, "a datagram from 10.0.0.1:9, not the server 127.0.0.1:40002"},
		{"client: from elsewhere again", cl, "10.0.0.1:9", state, ""},
		{"client: the server's, mapped to IPv6", cl, "[::ffff:127.0.0.1]:40002", state, ""},
		{"server: a move input before any login", sv, clientAddr.String(), move, "a move_input from 127.0.0.1:40001, which has not logged in (the client is none yet)"},
		{"server: a player state", sv, clientAddr.String(), state, "a player_state from 127.0.0.1:40001: the server takes login and move_input"},
		{"server: empty", sv, clientAddr.String(), nil, ""},
		{"server: a login", sv, clientAddr.String(), proto.AppendLogin(nil, 1), ""},
		{"server: the client's move", sv, clientAddr.String(), move, ""},
		{"server: another's move", sv, "127.0.0.1:5", move, ""},
	} {
		_, first := c.e.Receive(at, netip.MustParseAddrPort(c.from), c.b)
		got := ""
		if first != nil {
			got = first.Error()
		}
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) || strings.Contains(got, "\n") {
			t.Errorf("%s: reported %q, want %q", c.name, got, c.want)
		}
	}
	if c := cl.Counts(); c.Malformed != 3 || c.Foreign != 2 || c.Received != 1 {
		t.Errorf("client: %+v: want 3 malformed (2 garbage, a move input), 2 foreign, 1 received", *c)
	}
	if c := sv.Counts(); c.Malformed != 2 || c.Foreign != 2 || c.Received != 2 {
		t.Errorf("server: %+v: want 2 malformed, 2 foreign, 2 received", *c)
	}
	if got := sv.Counts().Summary(); got != "2 datagrams received, 2 malformed, 2 foreign; 0 sent, 0 failed" {
		t.Errorf("summary %q", got)
	}
}

// The server answers a Login with its tick, and takes the inputs of the
// client that logged in last.
func TestServerAnswersLoginWithItsTick(t *testing.T) {
	sv, err := NewServer(lab.DefaultConfig(), t0, telAddr)
	if err != nil {
		t.Fatal(err)
	}
	at := t0.Add(175 * time.Millisecond) // three steps of 50 ms due
	sv.Advance(at)
	out, err := sv.Receive(at, clientAddr, proto.AppendLogin(nil, 7))
	if err != nil || len(out) != 1 || out[0].To != clientAddr {
		t.Fatalf("%v, %+v", err, out)
	}
	var m proto.WireMessage
	if err := proto.DecodeWire(out[0].B, &m); err != nil || m.Kind != proto.WireLoginAck || m.Start != 3 {
		t.Errorf("answer %+v, %v: want a login_ack at tick 3", m, err)
	}
	other := netip.MustParseAddrPort("127.0.0.1:7")
	sv.Receive(at, other, proto.AppendLogin(nil, 8))
	move, _ := proto.AppendMoveInput(nil, &proto.MoveInput{Tick: 1}, nil)
	if _, err := sv.Receive(at, clientAddr, move); err == nil || !strings.Contains(err.Error(), "(the client is 127.0.0.1:7)") {
		t.Errorf("the first client's input after another logged in: %v", err)
	}
	ds := sv.Advance(at.Add(50 * time.Millisecond))
	if len(ds) != 2 || ds[0].To != other || ds[1].To != telAddr {
		t.Errorf("a step's datagrams %+v: want the state to %s and a tick to %s", ds, other, telAddr)
	}
}

// The settings are the registry's: the game's keys take, the others are
// refused naming the key and what lab game takes.
func TestConfigureTakesTheGamesKeys(t *testing.T) {
	cfg, err := Configure([]string{"client.sender=accumulator", "server.inputs=queue", "input.script=steady", "sim.seed=7", "server.tick=40ms"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 7 || cfg.Server.Tick != 40*time.Millisecond || cfg.Server.Inputs.String() != "queue" {
		t.Errorf("%+v", cfg)
	}
	for _, c := range []struct{ set, want string }{
		{"up.latency=50ms", "--set up.latency=50ms: up.latency is not a setting of the game: lab game takes client.*, server.*, input.* and sim.seed; put lab proxy --set between client and server for the link"},
		{"view.interp=fixed", "view.interp is not a setting of the game"},
		{"sim.duration=10s", "sim.duration does not apply: the game runs in wall time; give the client --duration"},
		{"client.start=100ms", "client.start does not apply"},
		{"client.sendr=frame", `--set client.sendr=frame: unknown parameter "client.sendr"; did you mean client.sender?`},
		{"server.tick=0", "--set server.tick=0: server.tick"},
		{"nonsense", `--set: bad assignment "nonsense"`},
	} {
		if _, err := Configure([]string{c.set}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.set, err, c.want)
		}
	}
}

// The clocks drift as the model's: a server at +1000 ppm steps every
// 50 ms of its own clock, 49.95 ms of the wall's.
func TestServerClockDrifts(t *testing.T) {
	cfg, err := Configure([]string{"server.drift_ppm=+1000ppm"})
	if err != nil {
		t.Fatal(err)
	}
	sv, err := NewServer(cfg, t0, telAddr)
	if err != nil {
		t.Fatal(err)
	}
	var at []time.Duration
	for range 3 {
		n := sv.Next()
		at = append(at, n.Sub(t0))
		sv.Advance(n)
	}
	if want := []time.Duration{49950050, 99900100, 149850150}; at[0] != want[0] || at[1] != want[1] || at[2] != want[2] {
		t.Errorf("steps at %v, want %v", at, want)
	}
}

// A frame reads what arrived by its time on the frame grid, as the
// model's frame does: a process that wakes late for a frame does not
// hand that frame a datagram that arrived after the frame's time; the
// next frame reads it.
func TestAFrameReadsWhatArrivedByItsTime(t *testing.T) {
	cl, err := NewClient(lab.DefaultConfig(), t0, serverAddr, telAddr)
	if err != nil {
		t.Fatal(err)
	}
	cl.Advance(t0) // frame 0 at 0: sends the login
	next := cl.Next()
	if want := t0.Add(16666667); !next.Equal(want) {
		t.Fatalf("frame 1 at %v, want %v", next.Sub(t0), want.Sub(t0))
	}
	// The login's answer arrives 1 ms after frame 1's time; the process
	// wakes for frame 1 only 3 ms late.
	if _, err := cl.Receive(next.Add(time.Millisecond), serverAddr, proto.AppendLoginAck(nil, 5)); err != nil {
		t.Fatal(err)
	}
	cl.Advance(next.Add(3 * time.Millisecond))
	if cl.Frames() != 2 || cl.Model().LoggedIn() {
		t.Fatalf("frame 1 (of %d) read an answer that arrived after its time: logged in %v", cl.Frames(), cl.Model().LoggedIn())
	}
	cl.Advance(cl.Next())
	if !cl.Model().LoggedIn() {
		t.Error("frame 2 did not read the answer that arrived before it")
	}
}
