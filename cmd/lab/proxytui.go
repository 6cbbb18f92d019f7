package main

import (
	"context"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"jitterlab/lab"
	"jitterlab/proxy"
	"jitterlab/tui"
)

// relaySource is the proxy screen's view of a proxy.Relay. The relay's
// current API gives counters only: the added delay, the jitter, the bytes
// and the loss bursts show as dashes on the screen.
type relaySource struct {
	r              *proxy.Relay
	listen, target string
	start          time.Time

	mu      sync.Mutex
	cfg     lab.Config // the links in force
	changes []tui.ProxyChange
	stopped bool
}

func newRelaySource(r *proxy.Relay, cfg lab.Config, target string) *relaySource {
	return &relaySource{r: r, cfg: cfg, listen: r.Addr().String(), target: target, start: time.Now()}
}

// timeline notes a timeline change the relay applied.
func (s *relaySource) timeline(c proxy.Change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Up, s.cfg.Down = c.Up, c.Down
	s.changes = append(s.changes, tui.ProxyChange{At: c.At, What: c.What, Timeline: true})
}

func (s *relaySource) Snapshot() tui.ProxySnapshot {
	st := s.r.Stats()
	var errs uint64
	var kinds []string
	for _, e := range s.r.Errors() {
		errs += e.Count
		kinds = append(kinds, e.Msg)
	}
	dir := func(c proxy.Counters) tui.ProxyDir {
		nan := math.NaN()
		return tui.ProxyDir{In: c.Received + c.KernelDropped, Delivered: c.Delivered, Lost: c.Lost + c.QueueDropped,
			Dropped: c.Dropped() - c.Lost - c.QueueDropped, Duplicated: c.Duplicated, Reordered: c.Reordered,
			Bytes: -1, LossBursts: -1, DelayP50Ms: nan, DelayP99Ms: nan, JitterMs: nan, ArrivalJitterMs: nan}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return tui.ProxySnapshot{Wall: time.Since(s.start), Listen: s.listen, Target: s.target, Clients: st.Flows, Errors: errs, ErrorKinds: kinds,
		Up: dir(st.Up), Down: dir(st.Down), Changes: append([]tui.ProxyChange(nil), s.changes...), Stopped: s.stopped}
}

func (s *relaySource) Get(key string) string {
	p, ok := lab.Lookup(key)
	if !ok {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return p.Get(&s.cfg)
}

// Apply checks the assignments as --set does and hands both links to the
// relay for the packets it receives from now on.
func (s *relaySource) Apply(sets [][2]string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.cfg
	var what []string
	for _, kv := range sets {
		if err := lab.Set(&next, kv[0], kv[1]); err != nil {
			return err
		}
		what = append(what, kv[0]+"="+kv[1])
	}
	if err := next.Validate(); err != nil {
		return err
	}
	if err := s.r.SetParams(next.Up, next.Down); err != nil {
		return err
	}
	s.cfg = next
	s.changes = append(s.changes, tui.ProxyChange{At: time.Since(s.start), What: strings.Join(what, " ")})
	return nil
}

// proxyScreen runs the relay under its live screen until q, a signal or
// the relay's end (--duration); the summary follows on stdout once the
// screen has closed.
func proxyScreen(ctx context.Context, r *proxy.Relay, cfg lab.Config, target string, changes <-chan proxy.Change, stdout, stderr io.Writer) error {
	src := newRelaySource(r, cfg, target)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		err := r.Run(ctx)
		src.mu.Lock()
		src.stopped = true
		src.mu.Unlock()
		done <- err
	}()
	go func() {
		for {
			select {
			case c := <-changes:
				src.timeline(c)
			case <-ctx.Done():
				return
			}
		}
	}()
	view := tui.NewProxyView(src, tui.ProxyOptions{})
	verr := view.Run(nil)
	cancel()
	err := <-done
	writeProxySummary(stdout, time.Since(src.start), r.Stats(), r.Errors())
	if sig := view.Signal(); sig != nil {
		io.WriteString(stderr, "lab proxy: stopped by "+sig.String()+"\n")
	}
	if verr != nil {
		return verr
	}
	return err
}
