package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"time"

	proxyctl "jitterlab/proxy/control"
	"jitterlab/telemetry"
)

// telemetryFlag registers lab proxy's --telemetry.
func telemetryFlag(fs *flag.FlagSet) *string {
	return fs.String("telemetry", "", "receive the game's telemetry (docs/reference/telemetry.md) on this `host:port`, e.g. 127.0.0.1:7790; the screen charts the game's tick offset, send interval and visible error, and the summary counts the frames and server ticks decoded and the datagrams refused, by class")
}

// proxyTelemetry is lab proxy's --telemetry: a telemetry.Listener beside
// the relay. The first refusal of each class goes to the change log (the
// counter lines print it on standard error, the screen's c lists it); the
// account goes in the closing summary.
type proxyTelemetry struct {
	given string
	l     *telemetry.Listener
	done  chan error
}

// startTelemetry listens at addr; "" is no telemetry (a nil
// *proxyTelemetry, whose methods do nothing). Each datagram decoded goes
// to record (the recordings' Switch), if not nil.
func startTelemetry(addr string, log *changeLog, record func(time.Time, *telemetry.Datagram)) (*proxyTelemetry, error) {
	if addr == "" {
		return nil, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, badUsage("--telemetry %q: want host:port, e.g. 127.0.0.1:7790 (%v)", addr, err)
	}
	l, err := telemetry.Listen(addr, time.Now, telemetry.Options{}, func(e *telemetry.Error) {
		what := fmt.Sprintf("telemetry: a datagram refused (%s), counted from now on: %s", e.Class, e.Msg)
		log.add(appliedChange{ch: proxyctl.Timed{What: what}, at: time.Now(), by: "telemetry"})
	})
	if err != nil {
		return nil, fmt.Errorf("--telemetry %s: %v", addr, err)
	}
	l.OnDatagram = record
	t := &proxyTelemetry{given: addr, l: l, done: make(chan error, 1)}
	go func() { t.done <- l.Run() }()
	return t, nil
}

// printAddr says where the telemetry goes, after the relay's first line.
func (t *proxyTelemetry) printAddr(w io.Writer) {
	if t != nil {
		fmt.Fprintf(w, "telemetry on %s: send the game's frames there (docs/reference/telemetry.md)\n", addrText(t.given, t.l.Addr()))
	}
}

// stop closes the socket and, with w, prints the account; a second stop
// does nothing.
func (t *proxyTelemetry) stop(w io.Writer) {
	if t == nil || t.done == nil {
		return
	}
	t.l.Close()
	err := <-t.done
	t.done = nil
	if w == nil {
		return
	}
	c := t.l.Counts()
	fmt.Fprintf(w, "\ntelemetry on %s: %s\n", addrText(t.given, t.l.Addr()), c.Summary())
	if err != nil {
		fmt.Fprintf(w, "telemetry stopped early: %v\n", err)
	}
}
