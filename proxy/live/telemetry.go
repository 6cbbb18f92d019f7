package live

import (
	"fmt"
	"io"
	"sync"
	"time"

	"jitterlab/check"
	"jitterlab/lab"
	proxyctl "jitterlab/proxy/control"
	"jitterlab/telemetry"
)

// telemetryRun is lab proxy's --telemetry: a telemetry.Listener beside
// the relay. The first refusal of each class goes to the change log (the
// counter lines print it on standard error, the screen's c lists it); the
// account goes in the closing summary.
type telemetryRun struct {
	given string
	l     *telemetry.Listener
	done  chan error
	err   error // the listener's, once stopped
	// The game's report card, fed each frame as it comes by the lab's
	// own rules (lab.TelemetryMeter): the listener keeps only the latest
	// frames.
	mu    sync.Mutex
	meter *lab.TelemetryMeter
}

// startTelemetry listens at addr; "" is no telemetry (a nil
// *telemetryRun, whose methods do nothing). The game's report card is
// computed for a game with cfg's settings (client.move_speed,
// client.snap); each datagram decoded also goes to record (the
// recordings' Switch), if not nil.
func startTelemetry(addr string, log *changeLog, cfg *lab.Config, record func(time.Time, *telemetry.Datagram)) (*telemetryRun, error) {
	if addr == "" {
		return nil, nil
	}
	l, err := telemetry.Listen(addr, log.clock.Now, telemetry.Options{}, func(e *telemetry.Error) {
		what := fmt.Sprintf("telemetry: a datagram refused (%s), counted from now on: %s", e.Class, e.Msg)
		log.log(proxyctl.Timed{What: what}, nil, "telemetry")
	})
	if err != nil {
		return nil, fmt.Errorf("--telemetry %s: %v", addr, err)
	}
	t := &telemetryRun{given: addr, l: l, done: make(chan error, 1), meter: lab.NewTelemetryMeter(cfg)}
	l.OnDatagram = func(at time.Time, d *telemetry.Datagram) {
		if record != nil {
			record(at, d)
		}
		if d.Kind == telemetry.KindFrame {
			t.mu.Lock()
			t.meter.Frame(&d.Frame)
			t.mu.Unlock()
		}
	}
	go func() { t.done <- l.Run() }()
	return t, nil
}

// printAddr says where the telemetry goes, after the relay's first line.
func (t *telemetryRun) printAddr(w io.Writer) {
	if t != nil {
		fmt.Fprintf(w, "telemetry on %s: send the game's frames there (docs/reference/telemetry.md)\n", addrText(t.given, t.l.Addr()))
	}
}

// stop closes the socket; a second stop does nothing.
func (t *telemetryRun) stop() {
	if t == nil || t.done == nil {
		return
	}
	t.l.Close()
	t.err = <-t.done
	t.done = nil
}

// card is the game's report card so far and how many frames it counts
// (none before the warm-up after login).
func (t *telemetryRun) card() (lab.ReportCard, uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.meter.Card(), t.meter.Counted()
}

// writeAccount writes, once stopped, what the telemetry received and the
// game's report card from its frames.
func (t *telemetryRun) writeAccount(w io.Writer) {
	if t == nil {
		return
	}
	c := t.l.Counts()
	fmt.Fprintf(w, "\ntelemetry on %s: %s\n", addrText(t.given, t.l.Addr()), c.Summary())
	if t.err != nil {
		fmt.Fprintf(w, "telemetry stopped early: %v\n", t.err)
	}
	card, n := t.card()
	if n == 0 {
		fmt.Fprintf(w, "the game's report card: no frame after the warm-up (%v after login)\n", lab.WarmUp)
		return
	}
	fmt.Fprintf(w, "the game's report card from %d frames (lab's rules; – where telemetry does not carry the figure):\n", n)
	card.WriteText(w)
}

// Check judges g, a gate on one game run (check.LoadGame), on the game's
// report card at the end of the run: every frame the telemetry counted
// (nil without telemetry).
func (res *Result) Check(g *check.Gate, strict bool, version string) *check.Report {
	if res.tel == nil {
		return nil
	}
	card, n := res.tel.card()
	return check.GameReport(g, &card, check.GameRun{Frames: n, Wall: res.Wall}, strict, version)
}
