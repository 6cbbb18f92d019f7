package game

import (
	"net/netip"
	"time"

	"jitterlab/lab"
	"jitterlab/proto"
	"jitterlab/server"
	"jitterlab/telemetry"
)

// Server is the model's game server on the wall clock: it steps at the
// wall times its local clock reads its step times, answers a Login with
// its tick, applies the MoveInputs of the client that logged in last and
// broadcasts its PlayerStates to it; with a telemetry address, it sends a
// telemetry tick after every step. It is not safe for concurrent use.
type Server struct {
	sv     *server.Server
	clock  *localClock
	tel    netip.AddrPort
	peer   netip.AddrPort // the client: the address of the latest Login
	logins uint64
	ps     proto.PlayerState
	msg    proto.WireMessage
	out    outbox
	counts Counts
}

// NewServer makes cfg's server, starting at wall time start and, if tel
// is valid, sending its telemetry to tel.
func NewServer(cfg lab.Config, start time.Time, tel netip.AddrPort) (*Server, error) {
	sv, err := cfg.NewServer()
	if err != nil {
		return nil, err
	}
	clock, err := newLocalClock(start, "server", cfg.ServerDriftPPM, cfg.ServerWanderPPM, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return &Server{sv: sv, clock: clock, tel: tel}, nil
}

// Next is the wall time of the next step.
func (s *Server) Next() time.Time { return s.clock.wall(s.sv.NextStep()) }

// Advance runs every step due by wall time at, in order (a server that
// falls behind catches up, as the model's does), and returns what they
// send.
func (s *Server) Advance(at time.Time) []Datagram {
	s.out.reset()
	local := s.clock.local(at)
	for s.sv.NextStep() <= local {
		step := s.sv.NextStep()
		if s.sv.StepInto(&s.ps) && s.peer.IsValid() {
			// A pose beyond float32 is lost; the client hears the next.
			var err error
			if s.out.buf, err = proto.AppendPlayerState(s.out.buf, &s.ps); err == nil {
				s.out.add(s.peer)
			}
		}
		if s.tel.IsValid() {
			c := s.sv.Counters()
			t := telemetry.Tick{TS: step.Seconds(), Tick: s.sv.Tick(), Applied: c.Applied, Overwritten: c.Overwritten, Starved: c.Starved, Depth: max(0, int64(s.ps.BufferDepth))}
			var err error
			if s.out.buf, err = telemetry.AppendTick(s.out.buf, &t); err == nil {
				s.out.add(s.tel)
			}
		}
	}
	return s.out.datagrams()
}

// Receive takes a datagram that arrived at wall time at from from (call
// Advance(at) first: the steps due before it run before it lands) and
// returns the answer to a Login. It returns an error to report when the
// datagram is the first malformed or the first foreign one, nil otherwise.
func (s *Server) Receive(at time.Time, from netip.AddrPort, b []byte) ([]Datagram, error) {
	s.out.reset()
	if err := proto.DecodeWire(b, &s.msg); err != nil {
		return nil, s.counts.refuse(firstMalformed, "a malformed datagram from %s: %s", from, oneLine(err.Error()))
	}
	switch s.msg.Kind {
	case proto.WireLogin:
		s.peer = from
		s.logins++
		s.out.buf = proto.AppendLoginAck(s.out.buf, s.sv.Tick())
		s.out.add(from)
	case proto.WireMoveInput:
		if !s.peer.IsValid() || !same(from, s.peer) {
			return nil, s.counts.refuse(firstForeign, "a move_input from %s, which has not logged in (the client is %s)", from, peerText(s.peer))
		}
		s.sv.OnMoveInputAt(s.clock.local(at), s.msg.Move, s.msg.Earlier)
	default:
		return nil, s.counts.refuse(firstMalformed, "a %s from %s: the server takes login and move_input", kindName(s.msg.Kind), from)
	}
	s.counts.Received++
	return s.out.datagrams(), nil
}

func peerText(p netip.AddrPort) string {
	if !p.IsValid() {
		return "none yet"
	}
	return p.String()
}

// Counts is the server's account so far.
func (s *Server) Counts() *Counts { return &s.counts }

// Logins is how many Logins the server has answered.
func (s *Server) Logins() uint64 { return s.logins }

// Model is the model's server inside, for tests and the final account.
func (s *Server) Model() *server.Server { return s.sv }
