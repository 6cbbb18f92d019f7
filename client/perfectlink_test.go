package client

import (
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/proto"
	"jitterlab/server"
	"jitterlab/sim"
)

// duel is a client and a server on a link that delays every message by
// the same latency each way and loses none: a perfect link. The client's
// clock is true time; the server's step k is due at true k·tick + phase.
// Events at one instant run in the order they were scheduled, as the
// lab's session orders them.
type duel struct {
	cl      *Client
	sv      *server.Server
	latency sim.Time
	phase   sim.Time

	seq      uint64
	frameSeq uint64 // the key of the armed frame and step
	stepSeq  uint64
	inFlight []flight
	knows    bool // the server has heard the login

	// Reconciliations that moved the prediction: when, and by how much.
	corrections []correction
}

type flight struct {
	at    sim.Time
	seq   uint64
	up    bool
	login bool
	move  proto.MoveInput
	state proto.PlayerState
	start uint32
}

type correction struct {
	at sim.Time
	m  float64
}

func newDuel(t *testing.T, cc Config, sc server.Config, latency, phase time.Duration) *duel {
	t.Helper()
	sv, err := server.New(sc)
	if err != nil {
		t.Fatal(err)
	}
	d := &duel{cl: newClient(t, cc, ScriptFunc(func(sim.Time) motion.Input { return motion.Input{Throttle: 1} })),
		sv: sv, latency: sim.Time(latency), phase: sim.Time(phase)}
	d.frameSeq, d.stepSeq = d.next(), d.next()
	return d
}

func (d *duel) next() uint64 { d.seq++; return d.seq }

// run advances the duel to true time until.
func (d *duel) run(until sim.Time) {
	for {
		// The earliest of the frame, the step and the messages in flight.
		at, seq, what := d.cl.NextFrame(), d.frameSeq, -1
		if st := d.sv.NextStep() + d.phase; st < at || st == at && d.stepSeq < seq {
			at, seq, what = st, d.stepSeq, -2
		}
		for i, f := range d.inFlight {
			if f.at < at || f.at == at && f.seq < seq {
				at, seq, what = f.at, f.seq, i
			}
		}
		if at > until {
			return
		}
		switch what {
		case -1:
			d.frame(at)
		case -2:
			d.step(at)
		default:
			f := d.inFlight[what]
			d.inFlight = append(d.inFlight[:what], d.inFlight[what+1:]...)
			d.deliver(f)
		}
	}
}

func (d *duel) frame(now sim.Time) {
	d.cl.Frame(now)
	d.frameSeq = d.next()
	if st := d.cl.Stats(); st.Reconciled > 0 && st.CorrectionM > 0 {
		d.corrections = append(d.corrections, correction{now, st.CorrectionM})
	}
	for _, m := range d.cl.Outbox() {
		d.inFlight = append(d.inFlight, flight{at: now + d.latency, seq: d.next(), up: true, login: m.Kind == MsgLogin, move: m.Move})
	}
}

func (d *duel) step(now sim.Time) {
	ps, broadcast := d.sv.Step()
	d.stepSeq = d.next()
	if broadcast && d.knows {
		d.inFlight = append(d.inFlight, flight{at: now + d.latency, seq: d.next(), state: ps})
	}
}

func (d *duel) deliver(f flight) {
	switch {
	case f.up && f.login:
		d.knows = true
		d.inFlight = append(d.inFlight, flight{at: f.at + d.latency, seq: d.next(), login: true, start: d.sv.Tick()})
	case f.up:
		d.sv.OnMoveInput(f.move)
	case f.login:
		d.cl.OnLoginAck(f.start)
	default:
		d.cl.OnPlayerState(f.state)
	}
}

// window is what happened in [from, to): the corrections, the units
// dropped, the inputs sent, and the server's input counts.
type window struct {
	corrections, dropped, sent            int
	applied, lateDropped, underruns, held int
	oddSize                               *correction // the first correction that is not one tick's motion
}

// measure runs the duel to to and reports [from, to); tickM is one tick's
// motion, every correction's expected size (to 1 nm).
func (d *duel) measure(from, to sim.Time, tickM float64) window {
	d.run(from)
	c0, s0 := d.cl.Counters(), d.sv.Counters()
	n0 := len(d.corrections)
	d.run(to)
	c1, s1 := d.cl.Counters(), d.sv.Counters()
	w := window{corrections: len(d.corrections) - n0, dropped: int(c1.UnitsDropped - c0.UnitsDropped), sent: int(c1.Sent - c0.Sent),
		applied: int(s1.Applied - s0.Applied), lateDropped: int(s1.LateDropped - s0.LateDropped),
		underruns: int(s1.Underruns - s0.Underruns), held: int(s1.Held - s0.Held)}
	for i := n0; i < len(d.corrections); i++ {
		if c := &d.corrections[i]; w.oddSize == nil && (c.m < tickM-1e-9 || c.m > tickM+1e-9) {
			w.oddSize = c
		}
	}
	return w
}

// A queue server and a consume client on a perfect link, one input sent
// per server step: the server applies every input, and the client is
// corrected only for an input the server acknowledged before a prediction
// unit had predicted it, by exactly that tick's motion. That happens when
// a unit comes due with no input waiting (it is dropped: fixed updates
// run before Update, which sends) and the PlayerState of the next input
// comes back before the next unit. The duel's client logs in at the first
// frame after the login answer (20 ms at latency 0, 60 ms at 30 ms) and
// sends then and every tick after; the server steps at k·tick + 5 ms, so
// the first input is applied at the first step after it arrives and the
// queue holds nothing in between (an input is applied within one tick of
// its arrival).
func TestConsumeOnAPerfectLinkIsCorrectedOnlyForInputsAcknowledgedBeforeTheirUnit(t *testing.T) {
	cases := []struct {
		name                   string
		fps                    int
		fixedDT, tick, latency time.Duration
		corrections, dropped   int // in the 2 s window
	}{
		// Frames, fixed updates and steps all 20 ms apart: each frame runs
		// one fixed update, whose unit predicts the input sent the frame
		// before; the server applies that input 5 ms after the send, and
		// its state is read in the next frame, after the unit.
		{"tick = fixed_dt = frame: 20 ms, 50 fps, latency 0", 50, 20 * ms, 20 * ms, 0, 0, 0},
		// Units every second fixed update, at frames 40k; inputs sent at
		// frames 40k + 20, predicted 20 ms later, applied at 40k + 45 and
		// read at frame 40k + 60, after their unit.
		{"tick 40 ms, fixed_dt 20 ms, 50 fps, latency 0", 50, 20 * ms, 40 * ms, 0, 0, 0},
		// Fixed updates at 16j: units at 32, 48, 64, 80 of every 80 ms,
		// none at 16, so frames 80m + 40, + 60, + 80, + 100 run 1, 1, 2
		// and 0 units. Frame 80m + 80's second unit finds nothing (the
		// frame's input is sent after it) and is dropped; that input is
		// applied 5 ms later and acknowledged in frame 80m + 100, which
		// runs no unit: one correction of 0.04 m per 80 ms, 25 in 2 s.
		{"fixed_dt 16 ms under a 20 ms tick, 50 fps, latency 0", 50, 16 * ms, 20 * ms, 0, 25, 25},
		// The same grids 30 ms apart: an input's state comes back 60 ms
		// or more after its send. The first dropped unit leaves one input
		// waiting, so the two-unit frames always find two and no unit is
		// dropped; an input then waits at most two frames (40 ms) for its
		// unit, less than the round trip: nothing to correct.
		{"fixed_dt 16 ms under a 20 ms tick, 50 fps, latency 30 ms", 50, 16 * ms, 20 * ms, 30 * ms, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cc := DefaultConfig
			cc.FPS, cc.FixedDT, cc.Cadence, cc.SendInterval = tc.fps, tc.fixedDT, tc.tick, tc.tick
			cc.Sender, cc.Corrector, cc.Predict = SenderAccumulator, Off, Consume
			sc := server.DefaultConfig
			sc.Tick, sc.Inputs = tc.tick, server.Queue
			d := newDuel(t, cc, sc, tc.latency, 5*ms)
			w := d.measure(sim.Time(1001*ms), sim.Time(3001*ms), float64(2*tc.tick.Seconds()))
			steps := int(2 * time.Second / tc.tick)
			if w.sent != steps || w.applied != steps || w.lateDropped != 0 || w.underruns != 0 || w.held != 0 {
				t.Errorf("in 2 s: %d sent, %d applied, %d late, %d underruns, %d held; want %d sent and applied, the rest 0",
					w.sent, w.applied, w.lateDropped, w.underruns, w.held, steps)
			}
			if w.corrections != tc.corrections || w.dropped != tc.dropped {
				t.Errorf("in 2 s: %d corrections, %d units dropped; want %d and %d", w.corrections, w.dropped, tc.corrections, tc.dropped)
			}
			if w.oddSize != nil {
				t.Errorf("correction of %.6f m at %v, want one tick's motion, %.6f m", w.oddSize.m, w.oddSize.at, 2*tc.tick.Seconds())
			}
		})
	}
}

// A client that sends one input per three server steps (every 60 ms at
// 50 fps; a 20 ms tick) underfeeds a queue server, whatever it predicts
// and whatever the latency. Each input arrives for a tick the queue has
// already simulated on a guess: it is late, nothing waits, so the queue
// resyncs and holds two steps (it expects the next tick one step after
// this one); the third step is an underrun that guesses the next tick
// with the last input and acknowledges it. Per input: none applied, one
// late, two held, one underrun; the tank advances one tick per input (a
// third of the commanded speed). The client is corrected twice per input,
// by one tick each: forward when it reconciles the guessed tick, which no
// unit had predicted, and back when the reconciliation prunes its own
// input for that tick, which a unit had predicted meanwhile.
func TestAnUnderfedQueueCorrectsEveryInputTwice(t *testing.T) {
	for _, predict := range []Predict{Consume, Attribute} {
		for _, latency := range []time.Duration{0, 30 * ms} {
			t.Run(PredictNames[predict]+"/latency "+latency.String(), func(t *testing.T) {
				cc := DefaultConfig
				cc.FPS, cc.FixedDT, cc.Cadence, cc.SendInterval = 50, 20*ms, 20*ms, 60*ms
				cc.Sender, cc.Corrector, cc.Predict = SenderAccumulator, Off, predict
				sc := server.DefaultConfig
				sc.Tick, sc.Inputs = 20*ms, server.Queue
				d := newDuel(t, cc, sc, latency, 5*ms)
				w := d.measure(sim.Time(1001*ms), sim.Time(2801*ms), 0.04)
				const inputs = 30 // 1.8 s of one every 60 ms
				if w.sent != inputs || w.applied != 0 || w.lateDropped != inputs || w.underruns != inputs || w.held != 2*inputs {
					t.Errorf("in 1.8 s: %d sent, %d applied, %d late, %d underruns, %d held; want 30, 0, 30, 30, 60",
						w.sent, w.applied, w.lateDropped, w.underruns, w.held)
				}
				if w.corrections != 2*inputs {
					t.Errorf("in 1.8 s: %d corrections, want 2 per input, %d", w.corrections, 2*inputs)
				}
				if w.oddSize != nil {
					t.Errorf("correction of %.6f m at %v, want one tick's motion, 0.04 m", w.oddSize.m, w.oddSize.at)
				}
			})
		}
	}
}
