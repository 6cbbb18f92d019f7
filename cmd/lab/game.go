package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"syscall"
	"time"

	"jitterlab/game"
)

// gameUsage is lab game's own -h: both subcommands' flags.
func gameUsage(w io.Writer) {
	fmt.Fprint(w, `usage: lab game server [--listen HOST:PORT] [--telemetry HOST:PORT] [--set key=value]
       lab game client --to HOST:PORT [--telemetry HOST:PORT] [--duration D] [--set key=value]

The lab's reference game (the model's client and server) on real UDP, in
wall time: put lab proxy between them to try the whole path with no engine.
Give both the same --set keys: client.*, server.*, input.* and sim.seed.
`)
	for _, role := range []string{"server", "client"} {
		fs, _ := gameFlags(role, w)
		fmt.Fprintf(w, "\nlab game %s flags:\n", role)
		printDefaults(fs)
	}
	withExamples(gameParams,
		"lab game server --listen 127.0.0.1:7778",
		"lab proxy --listen 127.0.0.1:7777 --to 127.0.0.1:7778 --telemetry 127.0.0.1:7790",
		"lab game client --to 127.0.0.1:7777 --telemetry 127.0.0.1:7790 --duration 30s")(w)
}

func cmdGame(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "lab game: want server or client (see 'lab game -h')")
		return errUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		gameUsage(stdout)
		return nil
	case "server", "client":
		return runGame(args[0], args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "lab game: unknown subcommand %q: want server or client (see 'lab game -h')\n", args[0])
	return errUsage
}

// gameOptions are the flags of lab game server or client.
type gameOptions struct {
	sets            setFlags
	listen, to, tel string
	duration        time.Duration
	isClient        bool
}

// gameParams lists the registry keys lab game takes.
func gameParams(w io.Writer) { writeParamHelp(w, game.Takes, "--duration takes %s.\n") }

// gameFlags defines the flags of lab game role (server or client).
func gameFlags(role string, stderr io.Writer) (*flag.FlagSet, *gameOptions) {
	o := &gameOptions{isClient: role == "client"}
	examples := []string{"lab game server --listen 127.0.0.1:7778 --set server.inputs=queue",
		"lab game server --listen 127.0.0.1:7778 --telemetry 127.0.0.1:7790 --duration 10m"}
	if o.isClient {
		examples = []string{"lab game client --to 127.0.0.1:7777 --telemetry 127.0.0.1:7790 --duration 30s",
			"lab game client --to 127.0.0.1:7778 --duration 10s --set client.corrector=proportional"}
	}
	fs := newFlagSet("game "+role, "[flags]", stderr, withExamples(gameParams, examples...))
	fs.Var(&o.sets, "set", "game setting `key=value` (repeatable; client.*, server.*, input.* and sim.seed, listed below)")
	fs.StringVar(&o.tel, "telemetry", "", "send the telemetry (docs/reference/telemetry.md) to this `host:port`, e.g. lab proxy --telemetry's 127.0.0.1:7790: a frame after every rendered frame (client), a tick after every step (server)")
	if o.isClient {
		fs.StringVar(&o.to, "to", "127.0.0.1:7777", "the game server, or lab proxy's --listen (`host:port`)")
		fs.StringVar(&o.listen, "listen", "127.0.0.1:0", "the client's own socket (`host:port`; port 0 picks one)")
		durationVar(fs, &o.duration, "duration", time.Minute, false, "30s", "play for this much wall time, a `duration`")
	} else {
		fs.StringVar(&o.listen, "listen", "127.0.0.1:7778", "where the server listens (`host:port`)")
		durationVar(fs, &o.duration, "duration", 0, true, "10m", "stop after this much wall time, a `duration` (default: run until interrupted)")
	}
	return fs, o
}

// runGame is lab game server and lab game client: flags, one endpoint on
// one socket until --duration or a signal, and the account.
func runGame(role string, args []string, stdout, stderr io.Writer) error {
	fs, o := gameFlags(role, stderr)
	isClient := o.isClient
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	cfg, err := game.Configure(o.sets)
	if err != nil {
		return cmdLineErr(err)
	}
	var toAddr, telAddr netip.AddrPort
	if isClient {
		if toAddr, err = resolveFlag("to", o.to); err != nil {
			return err
		}
	}
	if o.tel != "" {
		if telAddr, err = resolveFlag("telemetry", o.tel); err != nil {
			return err
		}
	}
	la, err := net.ResolveUDPAddr("udp", o.listen)
	if err != nil {
		return badUsage("--listen %q: want host:port, e.g. 127.0.0.1:7778 (%v)", o.listen, err)
	}
	conn, err := net.ListenUDP("udp", la)
	if err != nil {
		return fmt.Errorf("--listen %s: %v", o.listen, err)
	}
	defer conn.Close()
	start := time.Now()
	var e game.Endpoint
	if isClient {
		e, err = game.NewClient(cfg, start, toAddr, telAddr)
	} else {
		e, err = game.NewServer(cfg, start, telAddr)
	}
	if err != nil {
		return cmdLineErr(err)
	}
	fmt.Fprintf(stdout, "lab game %s on %s", role, conn.LocalAddr())
	if isClient {
		fmt.Fprintf(stdout, ", sending to %s for %v", toAddr, o.duration)
	}
	if telAddr.IsValid() {
		fmt.Fprintf(stdout, ", telemetry to %s", telAddr)
	}
	fmt.Fprintln(stdout)

	// A signal closes the socket, which ends Run.
	ctx, stop, caught := signalContext(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	context.AfterFunc(ctx, func() { conn.Close() })
	var until time.Time
	if o.duration > 0 {
		until = start.Add(o.duration)
	}
	runErr := game.Run(conn, e, time.Now, until, func(err error) {
		fmt.Fprintf(stderr, "lab game %s: %v\n", role, err)
	})
	wall := time.Since(start)
	e.WriteAccount(stdout, wall) // as every line above: a failed write to standard output is not the game's failure
	switch sig := caught(); {
	case sig != nil:
		return interrupted(sig, fmt.Sprintf("stopped after %.1fs; the account above covers the run so far", wall.Seconds()))
	case runErr != nil:
		return fmt.Errorf("lab game %s: %v", role, runErr)
	}
	return nil
}

// resolveFlag reads a host:port flag as one UDP address.
func resolveFlag(name, v string) (netip.AddrPort, error) {
	if _, _, err := net.SplitHostPort(v); err != nil {
		return netip.AddrPort{}, badUsage("--%s %q: want host:port, e.g. 127.0.0.1:7790 (%v)", name, v, err)
	}
	ua, err := net.ResolveUDPAddr("udp", v)
	if err != nil {
		return netip.AddrPort{}, badUsage("--%s %q: %v", name, v, err)
	}
	ap := ua.AddrPort()
	if !ap.Addr().IsValid() || ap.Port() == 0 {
		return netip.AddrPort{}, badUsage("--%s %q: want a host and a port other than 0, e.g. 127.0.0.1:7790", name, v)
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
}
