package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"jitterlab/lab"
	"jitterlab/proxy"
)

func cmdProxy(args []string, stdout, stderr io.Writer) error {
	var o runOptions
	var listen, target string
	var every time.Duration
	fs := newFlagSet("proxy", "--listen 127.0.0.1:7777 --to 127.0.0.1:7778 [--scenario NAME] [--set up.loss=2%]", stderr, paramHelp)
	o.register(fs)
	fs.StringVar(&listen, "listen", "127.0.0.1:7777", "where the game client sends (`host:port`)")
	fs.StringVar(&target, "to", "", "the game server (`host:port`)")
	fs.DurationVar(&every, "every", time.Second, "how often to print the counters")
	fs.Lookup("duration").Usage = "stop after this much wall time (default: until interrupted)"
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if target == "" {
		return fmt.Errorf("--to: name the game server, e.g. --to 127.0.0.1:7778")
	}
	cfg, _, err := o.config()
	if err != nil {
		return err
	}
	r, err := proxy.Listen(proxy.Options{Listen: listen, Target: target, Seed: cfg.Seed, Up: cfg.Up, Down: cfg.Down})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if o.given("duration") {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	fmt.Fprintf(stdout, "relaying %v → %s: up %s, down %s (seed %d); Ctrl-C stops\n",
		r.Addr(), target, linkText(&cfg, "up"), linkText(&cfg, "down"), cfg.Seed)
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	tick := time.NewTicker(every)
	defer tick.Stop()
	print := func() {
		up, down, flows, errs := r.Stats()
		fmt.Fprintf(stdout, "clients %d  up sent %d delivered %d lost %d dup %d reordered %d  down sent %d delivered %d lost %d dup %d reordered %d\n",
			flows, up.Sent, up.Delivered, up.Lost+up.QueueDropped, up.Duplicated, up.Reordered,
			down.Sent, down.Delivered, down.Lost+down.QueueDropped, down.Duplicated, down.Reordered)
		for _, e := range errs {
			fmt.Fprintf(stderr, "lab proxy: %s\n", e)
		}
	}
	for {
		select {
		case err := <-done:
			print()
			return err
		case <-tick.C:
			print()
		}
	}
}

// linkText is one direction's main knobs as the registry prints them.
func linkText(cfg *lab.Config, dir string) string {
	out := ""
	for _, k := range []string{"latency", "jitter", "loss", "duplicate", "reorder", "rate"} {
		p, _ := lab.Lookup(dir + "." + k)
		out += fmt.Sprintf("%s %s ", k, p.Get(cfg))
	}
	return out[:len(out)-1]
}
