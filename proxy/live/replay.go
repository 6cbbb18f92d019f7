package live

import (
	"errors"
	"math"
	"sync"
	"time"

	"jitterlab/lab"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/recordings"
	"jitterlab/sim"
	"jitterlab/telemetry"
)

// ReplaySource plays a proxy recording back as the proxy's screen reads
// a running relay (lab replay --tui of a proxy recording), in wall time
// from when it was made: each [ReplaySource.Snapshot] hands over the
// packets and the game's frames recorded since the previous one, once.
// Its contract:
//   - the counters are the recorded copies' fates: In counts the
//     datagrams read (first copies), Delivered, Lost (the link's loss and
//     queue), Dropped (the relay's limits, a client gone, a failed write),
//     Duplicated (second copies) and Reordered; Bytes the payload
//     delivered. The loss bursts and the jitter are not recorded: NaN, < 0;
//   - the links in force (Get) are the recording's start, changed by
//     everybody's settings as recorded up to now; Apply refuses: a
//     replay's links are the recording's;
//   - the game's report card is computed from the recorded frames by the
//     lab's rules ([lab.TelemetryMeter]), as the live proxy's;
//   - at the recording's end the time stops and the screen stays.
type ReplaySource struct {
	r      *recordings.Reader
	name   string
	clock  Clock
	start  time.Time
	end    sim.Time
	cfg    lab.Config          // the links at the start
	sets   []proxyrec.Setting  // everybody's settings, in time order
	flows  map[uint64]struct{} // clients seen
	hasTel bool

	mu     sync.Mutex
	last   sim.Time // handed over up to, inclusive (−1: nothing yet)
	up, dn Dir
	meter  *lab.TelemetryMeter
	frames uint64
	err    error // the first read error, which stops the replay
}

// errStop ends a scan early.
var errStop = errors.New("stop")

// NewReplaySource plays r, a proxy recording called name, from now on
// clock's time.
func NewReplaySource(r *recordings.Reader, name string, clock Clock) (*ReplaySource, error) {
	if r.Header.Kind != recordings.KindProxy {
		return nil, errors.New(name + ": a session recording, not a proxy recording")
	}
	cfg, err := lab.ConfigFromHeader(r.Header, lab.Untrusted)
	if err != nil {
		return nil, err
	}
	changes, err := r.Changes()
	if err != nil {
		return nil, err
	}
	s := &ReplaySource{r: r, name: name, clock: clock, start: clock.Now(), end: r.Duration(), cfg: cfg,
		flows: map[uint64]struct{}{}, last: -1, meter: lab.NewTelemetryMeter(&cfg)}
	for _, c := range changes {
		if st := proxyrec.ParseChange(c); st.Flow == 0 && st.Client == "" && !st.Cleared {
			if _, ok := lab.Lookup(st.Key); ok {
				s.sets = append(s.sets, st)
			}
		}
	}
	err = r.ScanTelemetry(0, s.end, func(sim.Time, *telemetry.Datagram) error { s.hasTel = true; return errStop })
	if err != nil && err != errStop {
		return nil, err
	}
	s.up.Bytes, s.dn.Bytes = 0, 0
	s.up.LossBursts, s.dn.LossBursts = -1, -1
	return s, nil
}

// now is the recording's time the replay is at.
func (s *ReplaySource) now() sim.Time {
	return min(sim.Time(s.clock.Now().Sub(s.start)), s.end)
}

// Snapshot is the recording as of now.
func (s *ReplaySource) Snapshot() Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	up, dn := s.up, s.dn
	up.DelaysMs, dn.DelaysMs = []float64{}, []float64{}
	var game *Game
	if s.hasTel {
		game = &Game{}
	}
	if now > s.last && s.err == nil {
		s.err = s.r.ScanPackets(s.last+1, now, func(p *recordings.Packet) error {
			d := &up
			if p.Dir == 1 {
				d = &dn
			}
			s.flows[p.Flow] = struct{}{}
			if p.Copy == 0 {
				d.In++
			} else {
				d.Duplicated++
			}
			switch p.Fate {
			case recordings.PacketDelivered:
				d.Delivered++
				d.Bytes += int64(p.Size)
				d.DelaysMs = append(d.DelaysMs, float64(p.Out-p.In)/1e6)
			case recordings.PacketLost, recordings.PacketQueueDropped:
				d.Lost++
			default:
				d.Dropped++
			}
			if p.Reordered {
				d.Reordered++
			}
			return nil
		})
		if s.err == nil && game != nil {
			s.err = s.r.ScanTelemetry(s.last+1, now, func(at sim.Time, d *telemetry.Datagram) error {
				if d.Kind != telemetry.KindFrame {
					return nil
				}
				s.frames++
				s.meter.Frame(&d.Frame)
				game.Points = GamePoints(game.Points, []telemetry.Received[telemetry.Frame]{{At: s.start.Add(time.Duration(at)), D: d.Frame}}, s.start)
				return nil
			})
		}
		s.last = now
	}
	keep := func(d Dir) Dir { d.DelaysMs = nil; return d }
	s.up, s.dn = keep(up), keep(dn)
	for _, d := range []*Dir{&up, &dn} {
		d.JitterMs, d.ArrivalJitterMs = math.NaN(), math.NaN()
	}
	snap := Snapshot{Wall: time.Duration(now), Listen: s.name, Target: "(recorded)", Clients: len(s.flows), Up: up, Down: dn}
	for _, st := range s.sets {
		if st.At <= now {
			snap.Changes = append(snap.Changes, Change{At: time.Duration(st.At), What: st.Key + "=" + st.Value, By: "recording"})
		}
	}
	if s.err != nil {
		snap.Errors, snap.ErrorKinds = 1, []string{"replay stopped: " + s.err.Error()}
	}
	if game != nil {
		game.Frames, game.CardFrames, game.Card = s.frames, s.meter.Counted(), s.meter.Card()
	}
	snap.Game = game
	return snap
}

// Get is a link key's value in force now, as recorded ("": no such key).
func (s *ReplaySource) Get(key string) string {
	p, ok := lab.Lookup(key)
	if !ok {
		return ""
	}
	s.mu.Lock()
	now := s.now()
	s.mu.Unlock()
	cfg := s.cfg
	for _, st := range s.sets {
		if st.At <= now {
			if q, _ := lab.Lookup(st.Key); q.Live {
				_ = q.Set(&cfg, st.Value) // recorded as applied
			}
		}
	}
	return p.Get(&cfg)
}

// Apply refuses: a replay's links are the recording's.
func (s *ReplaySource) Apply([][2]string) error {
	return errors.New("a replay shows the links as recorded; lab proxy changes them live")
}
