package live

import (
	"time"

	"jitterlab/client"
	"jitterlab/telemetry"
)

// Snapshot is the relay's state at one moment; counters are totals
// since it started.
type Snapshot struct {
	Wall           time.Duration // since the relay started
	Listen, Target string
	Clients        int
	Errors         uint64   // socket errors
	Evicted        uint64   // clients evicted to make room for a new one, so far
	MaxClients     int      // the client table's size (--max-clients)
	ErrorKinds     []string // each kind of socket error once, in the order first seen
	Up, Down       Dir
	// Groups split the traffic by the link each client is on, when some
	// client has settings of its own: everybody's link first (Addr ""),
	// then each such client. Nil: every client is on everybody's link,
	// whose figures are Up and Down.
	Groups    []Group
	Changes   []Change // applied so far (timeline and live), oldest first
	Stopped   bool     // the relay has stopped (its --duration ended): so does the screen
	Recording string   // the recording running now (R's or --record's), or ""
	// Game is the game's telemetry (nil: the relay receives none, and the
	// screen shows the link's charts alone).
	Game *Game
}

// Group is the clients on one link, as relayed: everybody's (Addr
// "") or one client's settings of its own. Its counters are totals since
// it got its link (everybody's: since the start).
type Group struct {
	Addr    string            // the client's address ("": everybody's link)
	Own     string            // its own assignments, e.g. "up.loss=5%"
	Clients int               // clients relayed now on this link
	Set     map[string]string // the link keys in force for it (up.latency, …); nil: the source's Get
	Up      Dir
	Down    Dir
}

// Change is one change of the links, made or refused.
type Change struct {
	At       time.Duration
	What     string
	Timeline bool   // the scenario's timeline made it (not the editor)
	By       string // who else made it: "API", "--flow" ("" and not Timeline: the editor)
	Refused  string // why it was refused ("": it applied)
}

// Who is who made the change, for the change log ("": the editor).
func (c *Change) Who() string {
	if c.Timeline {
		return "timeline"
	}
	return c.By
}

// Dir is one direction as relayed. A figure the source does not
// measure is NaN (or < 0 for the counts marked so): the screen shows "–".
type Dir struct {
	In         uint64 // datagrams that reached the proxy
	Delivered  uint64 // copies written out
	Lost       uint64 // dropped by the link model (loss and its queue)
	Dropped    uint64 // dropped by the proxy itself (limits, kernel, write errors)
	Duplicated uint64 // extra copies the link made
	Reordered  uint64 // copies that overtook a later-sent one
	Bytes      int64  // payload bytes delivered (< 0: not measured)
	LossBursts int64  // runs of consecutive losses (< 0: not measured)

	JitterMs        float64 // RFC 3550 jitter of the relayed stream as it leaves
	ArrivalJitterMs float64 // RFC 3550 jitter of the game's own stream as it arrives
	// DelaysMs are the added delays of the copies released since the
	// previous Snapshot (nil: not measured; empty: none released), for
	// the delay chart and the realised delay: each Snapshot hands them
	// over once.
	DelaysMs []float64
}

// Game is what the game told the lab about itself (lab proxy --telemetry,
// docs/reference/telemetry.md): the screen charts its tick offset, send
// interval and visible error as the lab charts its model's.
type Game struct {
	Frames  uint64 // frames decoded so far
	Refused uint64 // datagrams refused so far, whatever the class
	// Points are the frames decoded since the previous Snapshot, oldest
	// first: each Snapshot hands them over once, as Dir.DelaysMs.
	Points []GamePoint
}

// GamePoint is one frame of the game's, as the screen charts it.
type GamePoint struct {
	At            time.Duration // when it reached the lab, since the relay started
	TickOffset    int64         // as the game sent it
	SendIntervalS float64       // as the game sent it
	VisibleErrorM float64       // |visible − predicted| (client.VisibleError), metres
}

// GamePoints appends to dst one point per frame, in their order: when it
// arrived since start, its tick offset and send interval as sent, and its
// visible error as the lab's model defines it (client.VisibleError of the
// visible and the predicted pose).
func GamePoints(dst []GamePoint, frames []telemetry.Received[telemetry.Frame], start time.Time) []GamePoint {
	for i := range frames {
		f := &frames[i].D
		dst = append(dst, GamePoint{At: frames[i].At.Sub(start), TickOffset: f.TickOffset, SendIntervalS: f.SendIntervalS,
			VisibleErrorM: client.VisibleError(f.Visible, f.Predicted)})
	}
	return dst
}
