package game

import (
	"net/netip"
	"time"

	"jitterlab/client"
	"jitterlab/lab"
	"jitterlab/proto"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// Client is the model's game client on the wall clock: it renders its
// frames at the wall times its local clock reads their times, sends its
// Login and MoveInputs to the server's address and, with a telemetry
// address, a telemetry frame after every rendered frame. It is not safe
// for concurrent use.
type Client struct {
	cl      *client.Client
	clock   *localClock
	server  netip.AddrPort
	tel     netip.AddrPort // not valid: no telemetry
	nonce   uint64
	frames  uint64
	msg     proto.WireMessage
	inbox   []arrived // decoded, not yet handed to the client: they arrived after its last frame's time
	out     outbox
	counts  Counts
	telErr  error
	dropped uint64 // messages the encoder refused (none from the model's client)
}

// NewClient makes cfg's client, starting at wall time start, sending to
// server and, if tel is valid, its telemetry to tel.
func NewClient(cfg lab.Config, start time.Time, server, tel netip.AddrPort) (*Client, error) {
	cl, err := cfg.NewClient()
	if err != nil {
		return nil, err
	}
	clock, err := newLocalClock(start, "client", cfg.ClientDriftPPM, cfg.ClientWanderPPM, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return &Client{cl: cl, clock: clock, server: server, tel: tel, nonce: sim.NewRand(cfg.Seed, "game.login").Uint64()}, nil
}

// Next is the wall time of the next frame.
func (c *Client) Next() time.Time { return c.clock.wall(c.cl.NextFrame()) }

// Advance renders the frame due by wall time at, if one is, and returns
// what it sends: at most one frame a call. A frame is rendered as of its
// time on the frame grid (its vsync), however late the process woke to
// render it, as the model renders it: the wall clock's wake-up jitter is
// the host's, not the game's. A process more than a frame late renders
// the frames due one after another. Before the client's start it renders
// nothing: its frame 0 is due at its start.
func (c *Client) Advance(at time.Time) []Datagram {
	c.out.reset()
	local := c.cl.NextFrame()
	if at.Before(c.clock.start) || c.clock.local(at) < local {
		return nil // frame 0 is due at the start, not before it
	}
	// The frame reads what arrived by its time, as the model's does; a
	// datagram the late process read after that waits for the next frame.
	k := 0
	for k < len(c.inbox) && c.inbox[k].at <= local {
		switch a := &c.inbox[k]; a.kind {
		case proto.WireLoginAck:
			c.cl.OnLoginAck(a.start)
		case proto.WirePlayerState:
			c.cl.OnPlayerState(a.state)
		}
		k++
	}
	c.inbox = append(c.inbox[:0], c.inbox[k:]...)
	c.cl.Frame(local)
	for _, m := range c.cl.Outbox() {
		switch m.Kind {
		case client.MsgLogin:
			c.out.buf = proto.AppendLogin(c.out.buf, c.nonce)
		case client.MsgMoveInput:
			var err error
			if c.out.buf, err = proto.AppendMoveInput(c.out.buf, &m.Move, m.Earlier); err != nil {
				c.dropped++
				continue
			}
		default:
			continue
		}
		c.out.add(c.server)
	}
	if c.tel.IsValid() {
		f := lab.TelemetryFrame(c.cl, local, c.frames)
		var err error
		if c.out.buf, err = telemetry.AppendFrame(c.out.buf, &f); err != nil {
			c.telErr = err
		} else {
			c.out.add(c.tel)
		}
	}
	c.frames++
	return c.out.datagrams()
}

// Receive takes a datagram that arrived at wall time at from from. It
// returns an error to report when the datagram is the first malformed or
// the first foreign one, nil otherwise. The client sends nothing back.
func (c *Client) Receive(at time.Time, from netip.AddrPort, b []byte) ([]Datagram, error) {
	if !same(from, c.server) {
		return nil, c.counts.refuse(firstForeign, "a datagram from %s, not the server %s", from, c.server)
	}
	if err := proto.DecodeWire(b, &c.msg); err != nil {
		return nil, c.counts.refuse(firstMalformed, "a malformed datagram from the server: %s", oneLine(err.Error()))
	}
	switch c.msg.Kind {
	case proto.WireLoginAck, proto.WirePlayerState:
		if len(c.inbox) == maxInbox {
			c.inbox = c.inbox[1:] // a client that stopped rendering keeps the latest
		}
		c.inbox = append(c.inbox, arrived{at: c.clock.local(at), kind: c.msg.Kind, start: c.msg.Start, state: c.msg.State})
	default:
		return nil, c.counts.refuse(firstMalformed, "a %s from the server: the client takes login_ack and player_state", kindName(c.msg.Kind))
	}
	c.counts.Received++
	return nil, nil
}

// arrived is a message from the server and its arrival on the client's
// local clock.
type arrived struct {
	at    sim.Time
	kind  byte
	start uint32
	state proto.PlayerState
}

// maxInbox bounds the messages waiting for a frame: a second of
// PlayerStates at a 1 ms server tick.
const maxInbox = 1024

// Counts is the client's account so far.
func (c *Client) Counts() *Counts { return &c.counts }

// Frames is how many frames the client has rendered.
func (c *Client) Frames() uint64 { return c.frames }

// Model is the model's client inside, for tests and the final account.
func (c *Client) Model() *client.Client { return c.cl }

// TelemetryError is the first telemetry frame the encoder refused, if any
// (a pose beyond the protocol's bounds): such frames are not sent.
func (c *Client) TelemetryError() error { return c.telErr }

func kindName(k byte) string {
	switch k {
	case proto.WireLogin:
		return "login"
	case proto.WireLoginAck:
		return "login_ack"
	case proto.WireMoveInput:
		return "move_input"
	case proto.WirePlayerState:
		return "player_state"
	}
	return "?"
}
