package live

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"sync"
	"time"

	"jitterlab/lab"
	"jitterlab/proxy"
	proxyctl "jitterlab/proxy/control"
	proxyrec "jitterlab/proxy/record"
	"jitterlab/recordings"
)

// File is an output a run writes (a capture, a recording): Commit closes
// it and says the first error of its writes; Abort drops it.
type File interface {
	io.Writer
	Commit() error
	Abort()
}

// recorder is the proxy screen's R: it starts a proxy recording of
// the relayed traffic from now into a new file (made by create), through the
// captures' switch, and R again closes it. The recording starts with the
// clients already relayed and their own settings, so it reads as one that
// ran from the start would from then on.
type recorder struct {
	sw    *proxyrec.Switch
	r     relay
	cond  *conditions
	clock Clock
	// create makes a new file named base+ext, or base-2+ext, … when that
	// exists (never over a file); path is its name.
	create func(base, ext string) (f File, path string, err error)
	name   string    // the scenario's
	bound  time.Time // the captures' zero
	flags  string    // the --record/--pcap capture running from the start ("": none)
	path   string    // the screen's recording running now ("": none)
	mu     sync.Mutex
}

// recording is what records now: R's file, or --record's and --pcap's
// ("" for none; nil recorder: none).
func (s *recorder) recording() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return cmp.Or(s.path, s.flags)
}

// toggle starts or stops the screen's recording; the text is for the
// status line.
func (s *recorder) toggle() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.flags != "" {
		return "", fmt.Errorf("already capturing from the start (%s), closed when the proxy stops: R records only without them", s.flags)
	}
	if s.path != "" {
		path := s.path
		s.path = ""
		note, err := s.sw.Stop(s.clock.Now().Sub(s.bound), s.r.Stats())
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if note != "" {
			note = " (" + note + ")"
		}
		return "recorded " + path + note + "; lab replay, export and plot read it", nil
	}
	cfg, _ := s.cond.Config(netip.AddrPort{})
	out, path, err := s.create("jitterlab-proxy-"+s.clock.Now().Format("20060102-150405"), ".jlrec")
	if err != nil {
		return "", err
	}
	w, err := recordings.NewWriter(out, proxyrec.Header(lab.HeaderOf(cfg, s.name, 0)))
	if err != nil {
		out.Abort()
		return "", err
	}
	flows := s.r.Audit().Flows // the clients relayed now, numbered as they came
	var last proxy.FlowID
	for _, fl := range flows {
		last = max(last, fl.ID) // the relay's hook names the later ones
	}
	c := proxyrec.New(proxyrec.Options{Recording: w, Listen: s.r.Addr(), Files: []proxyrec.Committer{out}, Base: s.r.Stats(), LastFlow: last})
	if err := s.sw.Start(c); err != nil {
		c.Finish(s.clock.Now().Sub(s.bound), s.r.Stats())
		return "", errors.Join(err, os.Remove(path))
	}
	now := s.clock.Now()
	for _, fl := range flows { // named first: their own settings then carry their flow
		if a, err := netip.ParseAddrPort(fl.Addr); err == nil {
			c.FlowStarted(fl.ID, a, now)
		}
	}
	for _, a := range s.cond.Flows() { // the clients' own settings in force
		_, own := s.cond.Config(a)
		c.Applied(proxyctl.Applied{Flow: a, Set: own}, now)
	}
	s.path = path
	return "recording to " + path + " (R stops)", nil
}
