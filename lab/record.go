package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"jitterlab/metrics"
	"jitterlab/recordings"
	"jitterlab/scenarios"
	"jitterlab/sim"
)

// HeaderOf describes cfg for a recording: every registry key (link.*
// excepted: up.* and down.* cover it) with its value, the custom script.
func HeaderOf(cfg Config, scenario string, every time.Duration) recordings.Header {
	h := recordings.Header{Scenario: scenario, Seed: cfg.Seed, EveryNs: int64(every)}
	for _, p := range registry {
		if strings.HasPrefix(p.Key, "link.") || (p.Key == "input.script" && cfg.Script == "custom") {
			continue
		}
		h.Params = append(h.Params, [2]string{p.Key, p.Get(&cfg)})
	}
	for _, g := range cfg.Segments {
		h.Segments = append(h.Segments, recordings.Segment{DurNs: int64(g.Dur), Turn: g.Turn, Throttle: g.Throttle})
	}
	return h
}

// ConfigFromHeader rebuilds the configuration a recording started with.
func ConfigFromHeader(h recordings.Header) (Config, error) {
	cfg := DefaultConfig()
	for _, kv := range h.Params {
		p, ok := Lookup(kv[0])
		if !ok {
			return cfg, fmt.Errorf("recording header: %w", &UnknownKeyError{Key: kv[0], Similar: similarKeys(kv[0])})
		}
		if err := p.Set(&cfg, kv[1]); err != nil {
			return cfg, fmt.Errorf("recording header: %w", err)
		}
	}
	if len(h.Segments) > 0 {
		cfg.Script, cfg.Segments = "custom", nil
		for _, g := range h.Segments {
			cfg.Segments = append(cfg.Segments, scenarios.Segment{Dur: time.Duration(g.DurNs), Turn: g.Turn, Throttle: g.Throttle})
		}
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("recording header: %w", err)
	}
	return cfg, nil
}

// Recorder writes a session to a recording as it runs.
type Recorder struct {
	w   *recordings.Writer
	s   *Session
	err error
}

// Record starts recording s: the header describes its initial
// configuration, the changes and samples so far (pass the kept samples in
// past) are written first, and from then on every sample and change.
// Chain other OnSample/OnChange consumers through the returned Recorder's
// Sample and Change methods.
func Record(s *Session, w *recordings.Writer, past []metrics.Sample) *Recorder {
	r := &Recorder{w: w, s: s}
	var ci int
	changes := s.Changes()
	for i := range past {
		at := sim.Time(float64(past[i].TS*1e9) + 0.5)
		for ci < len(changes) && changes[ci].At <= at {
			r.Change(changes[ci])
			ci++
		}
		r.Sample(&past[i])
	}
	for ; ci < len(changes); ci++ {
		r.Change(changes[ci])
	}
	return r
}

// Sample records one sample.
func (r *Recorder) Sample(x *metrics.Sample) {
	if r.err == nil {
		r.err = r.w.Sample(x)
	}
}

// Change records one change.
func (r *Recorder) Change(c Change) {
	if r.err == nil {
		r.err = r.w.Change(recordings.Change{At: c.At, Key: c.Key, Value: c.Value})
	}
}

// Close writes the end record with the session's summary.
func (r *Recorder) Close() error {
	if r.err != nil {
		return r.err
	}
	sum, err := json.Marshal(r.s.Summary())
	if err != nil {
		return err
	}
	return r.w.Close(recordings.End{At: r.s.Now(), Summary: sum})
}

// maxVerify bounds the simulated time a verification will spend on.
const maxVerify = 1000 * time.Hour

// Verification is what re-simulating a recording found.
type Verification struct {
	Samples    int      // recorded samples compared
	Changes    int      // recorded changes replayed
	Until      sim.Time // how far it re-simulated
	SummaryOK  bool     // the recorded summary matched (false if none was recorded)
	HasSummary bool
}

// Verify re-simulates a recording from its header and change log and checks
// that every recorded sample is byte-identical to the re-simulated one at
// the same time, and that the recorded summary (if the recording was
// closed) matches.
func Verify(r *recordings.Reader) (Verification, error) {
	var v Verification
	cfg, err := ConfigFromHeader(r.Header)
	if err != nil {
		return v, err
	}
	changes, err := r.Changes()
	if err != nil {
		return v, err
	}
	end, err := r.End()
	if err != nil {
		return v, err
	}
	v.Until = r.Duration()
	if end != nil {
		v.Until = end.At
	}
	if v.Until > sim.Time(maxVerify) {
		return v, fmt.Errorf("recording claims %v of simulated time; verify re-simulates at most %v", v.Until, maxVerify)
	}
	cfg.Duration = max(cfg.Duration, time.Duration(v.Until))
	s, err := New(cfg, time.Duration(r.Header.EveryNs))
	if err != nil {
		return v, err
	}
	for _, c := range changes {
		if err := s.Schedule(c.At, c.Key, c.Value); err != nil {
			return v, fmt.Errorf("recorded change at %v: %w", c.At, err)
		}
	}
	v.Changes = len(changes)
	// Re-simulated samples by time, to meet the recorded ones in order.
	resim := map[sim.Time][]byte{}
	s.OnSample = func(x *metrics.Sample) {
		resim[sim.Time(float64(x.TS*1e9)+0.5)] = recordings.EncodeSample(nil, x)
	}
	if err := s.Run(v.Until); err != nil {
		return v, err
	}
	err = r.Scan(0, v.Until, func(x *metrics.Sample) error {
		at := sim.Time(float64(x.TS*1e9) + 0.5)
		got, ok := resim[at]
		if !ok {
			return fmt.Errorf("recorded sample at %v has no re-simulated counterpart", at)
		}
		if !bytes.Equal(got, recordings.EncodeSample(nil, x)) {
			re, _ := recordings.DecodeSample(got)
			return fmt.Errorf("sample at %v differs: recorded %+v, re-simulated %+v", at, *x, re)
		}
		v.Samples++
		return nil
	}, nil)
	if err != nil {
		return v, err
	}
	if end != nil && len(end.Summary) > 0 {
		v.HasSummary = true
		got, _ := json.Marshal(s.Summary())
		v.SummaryOK = bytes.Equal(got, end.Summary)
		if !v.SummaryOK {
			return v, fmt.Errorf("the re-simulated summary differs from the recorded one:\nrecorded %s\nresim    %s", end.Summary, got)
		}
	}
	return v, nil
}
