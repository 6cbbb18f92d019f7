package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
		if strings.HasPrefix(p.Key, "link.") || (p.Key == "input.script" && cfg.Script == "custom") ||
			(strings.HasSuffix(p.Key, ".trace") && p.Get(&cfg) == "none") ||
			(strings.HasSuffix(p.Key, ".trace_loop") && p.Get(&cfg) == "true") {
			continue
		}
		h.Params = append(h.Params, [2]string{p.Key, p.Get(&cfg)})
	}
	for _, g := range cfg.Segments {
		h.Segments = append(h.Segments, recordings.Segment{DurNs: int64(g.Dur), Turn: g.Turn, Throttle: g.Throttle})
	}
	return h
}

// ConfigFromHeader rebuilds the configuration a recording started with,
// through the same checks as --set: every key and value by the parameter
// registry, then the whole configuration and its input script. A setting
// that names a file (a trace) is refused unless trust allows opening it.
func ConfigFromHeader(h recordings.Header, trust Trust) (Config, error) {
	cfg := DefaultConfig()
	for _, kv := range h.Params {
		p, ok := Lookup(kv[0])
		if !ok {
			return cfg, fmt.Errorf("recording header: %w", &UnknownKeyError{Key: kv[0], Similar: similarKeys(kv[0])})
		}
		if err := trust.Check("recording header", kv[0], kv[1]); err != nil {
			return cfg, err
		}
		if err := p.Set(&cfg, kv[1]); err != nil {
			return cfg, fmt.Errorf("recording header: %w", err)
		}
	}
	if len(h.Segments) > maxHeaderSegments {
		return cfg, fmt.Errorf("recording header: %d input script segments; at most %d", len(h.Segments), maxHeaderSegments)
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
	if _, err := cfg.newScript(); err != nil {
		return cfg, fmt.Errorf("recording header: %w", err)
	}
	return cfg, nil
}

// maxHeaderSegments bounds the custom input script a header may carry.
const maxHeaderSegments = 10000

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

// maxVerify bounds the simulated time a verification will spend on, and
// maxVerifyEvents the periodic events (server steps, client frames,
// samples) it will simulate for it: a hostile header cannot make it run
// for ever.
const (
	maxVerify       = 1000 * time.Hour
	maxVerifyEvents = 5e8
	verifyStep      = sim.Time(time.Second) // re-simulation runs this far between checks
)

// Verification is what re-simulating a recording found.
type Verification struct {
	Samples    int      // recorded samples compared: every one from From to Until
	Changes    int      // recorded changes replayed
	From       sim.Time // the first recorded sample
	Until      sim.Time // the recorded end
	SummaryOK  bool     // the recorded summary matched (false if none was recorded)
	HasSummary bool
	Simulated  sim.Time // how far the re-simulation ran, also when verify failed (0: refused before simulating)
}

// Verify proves a recording is a whole session: it re-simulates it from
// its header and change log and checks, sample by sample as both come,
// that every sample the re-simulation takes from the first recorded one
// to the recorded end is in the file, stored identically (see
// recordings.Same), and nothing else is; that the index agrees with the
// records; and that the recorded summary matches. A truncated, damaged,
// unclosed or empty recording does not verify. Before simulating, it reads
// the samples the file holds (see checkHeld): the re-simulation runs at
// most a period and a half past each, so a small file cannot claim hours
// of work. Memory stays constant
// whatever the length: nothing is collected but the change log. A header
// or a change that names a file (a trace) is refused unless trust allows
// opening it.
func Verify(r *recordings.Reader, trust Trust) (v Verification, err error) {
	switch {
	case r.Truncated:
		return v, fmt.Errorf("the recording is truncated at byte %d (data ends at %v): it does not hold the whole session", r.TruncatedAt, r.Duration())
	case len(r.Damage) > 0:
		return v, fmt.Errorf("the recording is damaged: %v", r.Damage[0])
	}
	onDamage := r.OnDamage
	r.OnDamage = nil // every frame must read
	defer func() { r.OnDamage = onDamage }()
	cfg, err := ConfigFromHeader(r.Header, trust)
	if err != nil {
		return v, err
	}
	if r.Header.Seed != cfg.Seed {
		return v, fmt.Errorf("recording header: seed %d but sim.seed %d", r.Header.Seed, cfg.Seed)
	}
	every := time.Duration(r.Header.EveryNs)
	if every <= 0 {
		return v, fmt.Errorf("recording header: sample period every_ns %d: allowed > 0", r.Header.EveryNs)
	}
	end, err := r.End()
	if err != nil {
		return v, err
	}
	switch {
	case end == nil:
		return v, errors.New("the recording was not closed (no end record): it does not prove a whole session")
	case end.Samples == 0:
		return v, errors.New("the recording holds no samples: there is nothing to verify")
	case end.At != r.Duration():
		return v, fmt.Errorf("the end record says %v but the index ends at %v", end.At, r.Duration())
	case end.At > sim.Time(maxVerify):
		return v, fmt.Errorf("recording claims %v of simulated time; verify re-simulates at most %v", end.At, maxVerify)
	}
	v.From, v.Until = end.First, end.At
	if err := verifyBudget(cfg, every, end.At); err != nil {
		return v, err
	}
	if err := checkHeld(r, end, every); err != nil {
		return v, err
	}
	changes, err := r.Changes()
	if err != nil {
		return v, err
	}
	cfg.Duration = max(cfg.Duration, time.Duration(end.At))
	s, err := New(cfg, every)
	if err != nil {
		return v, err
	}
	defer func() { v.Simulated = s.Now() }()
	for _, c := range changes {
		if err := trust.Check(fmt.Sprintf("recorded change at %v", c.At), c.Key, c.Value); err != nil {
			return v, err
		}
		if err := s.Schedule(c.At, c.Key, c.Value); err != nil {
			return v, fmt.Errorf("recorded change at %v: %w", c.At, err)
		}
	}
	v.Changes = len(changes)

	// The re-simulation runs up to each recorded sample in turn; the one
	// sample it takes at that instant is held for the comparison, any
	// other from the first recorded one on is missing from the file.
	want, have := sim.Time(-1), false
	var resim metrics.Sample
	var missing error
	s.OnSample = func(x *metrics.Sample) {
		at := sim.Time(float64(x.TS*1e9) + 0.5)
		switch {
		case missing != nil || at < end.First:
		case at == want:
			resim, have = *x, true
		default:
			missing = fmt.Errorf("the recording has no sample at %v, where the re-simulation has one: data is missing", at)
		}
	}
	runTo := func(t sim.Time) error {
		for s.Now() < t && missing == nil {
			if err := s.Run(min(s.Now()+verifyStep, t)); err != nil {
				return err
			}
		}
		return missing
	}
	err = r.Scan(0, sim.Time(math.MaxInt64), func(x *metrics.Sample) error {
		at := sim.Time(float64(x.TS*1e9) + 0.5)
		switch {
		case v.Samples == 0 && at != end.First:
			return fmt.Errorf("the first recorded sample is at %v but the end record says %v", at, end.First)
		case at > end.At:
			return fmt.Errorf("a recorded sample at %v, after the recorded end %v", at, end.At)
		}
		want, have = at, false
		if err := runTo(at); err != nil {
			return err
		}
		if !have {
			return fmt.Errorf("recorded sample at %v has no re-simulated counterpart", at)
		}
		if !recordings.Same(&resim, x) {
			return fmt.Errorf("sample at %v differs: recorded %+v, re-simulated %+v", at, *x, recordings.Stored(&resim))
		}
		v.Samples++
		return nil
	}, nil)
	if err != nil {
		return v, err
	}
	want = -1
	if err := runTo(end.At); err != nil {
		return v, err
	}
	if int64(v.Samples) != end.Samples {
		return v, fmt.Errorf("the end record counts %d samples but the file holds %d", end.Samples, v.Samples)
	}
	if len(end.Summary) > 0 {
		v.HasSummary = true
		got, _ := json.Marshal(s.Summary())
		v.SummaryOK = bytes.Equal(got, end.Summary)
		if !v.SummaryOK {
			return v, fmt.Errorf("the re-simulated summary differs from the recorded one:\nrecorded %s\nresim    %s", end.Summary, got)
		}
	}
	return v, nil
}

// checkHeld reads the samples the file holds, without simulating, and
// refuses a recording they do not cover: a session takes a sample every
// period from t 0, so from t 0 to the recorded end no two samples are more
// than a period apart (half a period more is allowed for rounding), and
// the end record counts what the file holds. The re-simulation then runs
// at most a period and a half past each recorded sample: its work is
// bounded by what the file holds, not by what its header or end record
// claim (a small file claiming hundreds of hours cost minutes).
func checkHeld(r *recordings.Reader, end *recordings.End, every time.Duration) error {
	gap := sim.Time(every + every/2)
	var n int64
	prev := sim.Time(0)
	err := r.Scan(0, sim.Time(math.MaxInt64), func(x *metrics.Sample) error {
		at := sim.Time(float64(x.TS*1e9) + 0.5)
		if at-prev > gap {
			return fmt.Errorf("the recording has no sample from %v to %v, where a session sampling every %v takes one each period: data is missing", prev, at, every)
		}
		prev = at
		n++
		return nil
	}, nil)
	switch {
	case err != nil:
		return err
	case end.At-prev > gap:
		return fmt.Errorf("the recording's samples end at %v but its end record says %v, where a session sampling every %v takes one each period: data is missing", prev, end.At, every)
	case n != end.Samples:
		return fmt.Errorf("the end record counts %d samples but the file holds %d: data is missing", end.Samples, n)
	}
	return nil
}

// verifyBudget refuses a re-simulation that would take more periodic
// events (server steps, client frames, samples) than maxVerifyEvents.
func verifyBudget(cfg Config, every time.Duration, until sim.Time) error {
	secs := time.Duration(until).Seconds()
	perSec := []struct {
		what string
		n    float64
	}{
		{fmt.Sprintf("server.tick %v", cfg.Server.Tick), float64(time.Second) / float64(cfg.Server.Tick)},
		{fmt.Sprintf("client.fps %d", cfg.Client.FPS), float64(cfg.Client.FPS)},
		{fmt.Sprintf("a sample every %v", every), float64(time.Second) / float64(every)},
	}
	total := 0.0
	for _, p := range perSec {
		total += float64(p.n * secs)
	}
	if total <= maxVerifyEvents {
		return nil
	}
	worst := perSec[0]
	for _, p := range perSec[1:] {
		if p.n > worst.n {
			worst = p
		}
	}
	return fmt.Errorf("re-simulating %v would take %.3g events (%s: %.3g per simulated second); verify simulates at most %.0e",
		time.Duration(until), total, worst.what, worst.n, float64(maxVerifyEvents))
}
