package live

import (
	"fmt"
	"io"

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
}

// startTelemetry listens at addr; "" is no telemetry (a nil
// *telemetryRun, whose methods do nothing).
func startTelemetry(addr string, log *changeLog) (*telemetryRun, error) {
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
	t := &telemetryRun{given: addr, l: l, done: make(chan error, 1)}
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

// writeAccount writes, once stopped, what the telemetry received.
func (t *telemetryRun) writeAccount(w io.Writer) {
	if t == nil {
		return
	}
	c := t.l.Counts()
	fmt.Fprintf(w, "\ntelemetry on %s: %s\n", addrText(t.given, t.l.Addr()), c.Summary())
	if t.err != nil {
		fmt.Fprintf(w, "telemetry stopped early: %v\n", t.err)
	}
}
