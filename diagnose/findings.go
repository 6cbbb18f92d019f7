package diagnose

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"jitterlab/client"
	"jitterlab/detmath"
	"jitterlab/lab"
	"jitterlab/scenarios"
	"jitterlab/server"
	"jitterlab/stats"
)

// Finding is one mechanism at work in the reference, in plain words tied
// to a measured number. Fix is the change that removes the mechanism, with
// its measured effect on the reference; Problem says whether that effect
// is a significant improvement (otherwise the mechanism is harmless here).
type Finding struct {
	Rule       string     `json:"rule"`
	Text       string     `json:"text"`
	Fix        string     `json:"change"`
	FixPrimary stats.Diff `json:"change_primary"`
	FixTie     stats.Diff `json:"change_tie_break"`
	// Better and Worse are what the change makes significantly better and
	// worse on the report card ([Change]).
	Better []string `json:"change_better"`
	Worse  []string `json:"change_worse"`
	// Counters are the mechanism counters the change moves significantly,
	// per run ("overwritten -399 ± 85"); Confirmed says whether the
	// counter the rule's mechanism implies moves the way it must (a rule
	// without such a counter: true).
	Counters  []string `json:"change_counters"`
	Confirmed bool     `json:"confirmed_by_counters"`
	// Cost is what the mechanism costs in the primary metric, measured:
	// the reference against the same runs without the mechanism (a
	// timeline mechanism taken out of the timeline, or the rule's change),
	// seed by seed. Findings are ranked by it.
	Cost    stats.Diff `json:"cost"`
	Problem bool       `json:"problem"`
	// PresentationOnly: the change improves the report card significantly
	// and its runs are the same game underneath on every seed, so the
	// mechanism is in what is drawn alone: the game's own, link or none.
	PresentationOnly bool `json:"presentation_only"`
}

// rule inspects a diagnosis and returns a finding when its mechanism is at
// work. Each rule's mechanism is proven by a test (findings_test.go).
type rule func(d *diag, r *Result) (Finding, bool)

// The timeline's mechanisms (blackouts, periodic latency) are measured
// apart (timeline.go).
var rules = []rule{presentationRule, overwriteRule, predictLatestRule, slowClockRule, latchRule, substepRule, uplinkLossRule, downlinkLossRule, smoothingRateRule}

// implied is the counter each rule's mechanism drives, which its change
// must lower: the overwrites of latest-wins.
var implied = map[string]string{"latest-wins-overwrite": "overwritten"}

func findings(d *diag, r *Result, ms []mechanism) ([]Finding, error) {
	fs := []Finding{}
	for _, rl := range rules {
		f, ok := rl(d, r)
		if !ok {
			continue
		}
		f.Better, f.Worse, f.Counters, f.Confirmed = []string{}, []string{}, []string{}, true
		if i := slices.IndexFunc(r.Changes, func(c Change) bool { return c.Set == f.Fix }); i >= 0 {
			c := r.Changes[i]
			f.FixPrimary, f.FixTie, f.Problem = c.Primary, c.TieBreak, c.helps()
			f.Better, f.Worse = c.Better, c.Worse
			f.Counters = counterDiffs(r.Reference, c.arm)
			if name, ok := implied[f.Rule]; ok {
				f.Confirmed = slices.ContainsFunc(f.Counters, func(s string) bool { return strings.HasPrefix(s, name+" -") })
				// A mechanism its counters do not show is no problem of its own.
				f.Problem = f.Problem && f.Confirmed
			}
			// Without the mechanism: the rule's change removes it.
			f.Cost = d.diff(c.arm, r.Reference, d.primary)
			f.PresentationOnly = c.helps() && sameUnderneath(r.Reference, c.arm) == len(r.Reference.Runs)
		} else if f.Rule == "uplink-loss" || f.Rule == "downlink-loss" {
			// No change removes it: the runs without loss measure it,
			// unless they remove a blackout too (its finding's own).
			blackout := slices.ContainsFunc(ms, func(m mechanism) bool { return m.rule == "blackout" })
			if i := slices.IndexFunc(r.Attribution, func(a Attribution) bool { return a.Condition == "loss → 0" }); i >= 0 && !blackout {
				a := r.Attribution[i]
				f.Cost = d.diff(a.arm, r.Reference, d.primary)
				tie := d.diff(a.arm, r.Reference, d.tie)
				f.Problem = (f.Cost.Significant && f.Cost.Mean > 0) || (tie.Significant && tie.Mean > 0)
			}
		}
		fs = append(fs, f)
	}
	fs = append(fs, conditionFindings(d, r, fs)...)
	tl, err := d.timelineFindings(r, ms)
	if err != nil {
		return nil, err
	}
	fs = append(fs, tl...)
	for i := range fs {
		if fs[i].Counters == nil { // a rule without a change, a timeline's: no counter implied
			fs[i].Counters, fs[i].Confirmed = []string{}, true
		}
	}
	rank(fs)
	return fs, nil
}

// rank orders findings: the main cause first. Problems first, then the
// mechanisms with a measured effect (they cost the primary significantly,
// or their change improves the tie-break significantly), then the rest:
// what changes nothing here, and what only harms when removed; within
// each, by what each mechanism costs (most first), then by the change's
// tie-break.
func rank(fs []Finding) {
	first := func(a, b bool) int {
		switch {
		case a == b:
			return 0
		case a:
			return -1
		}
		return 1
	}
	effect := func(f Finding) bool {
		return (f.Cost.Significant && f.Cost.Mean > 0) || (f.FixTie.Significant && f.FixTie.Mean < 0)
	}
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if c := first(a.Problem, b.Problem); c != 0 {
			return c
		}
		if c := first(effect(a), effect(b)); c != 0 {
			return c
		}
		if c := cmpTol(b.Cost.Mean, a.Cost.Mean); c != 0 {
			return c
		}
		return cmpTol(a.FixTie.Mean, b.FixTie.Mean)
	})
}

// perSeed computes f of every reference run.
func perSeed(r *Result, f func(s *lab.Summary) float64) stats.Interval {
	return stats.Mean(seedValues(r, f))
}

// perTrace computes f of every reference run's trace.
func perTrace(r *Result, f func(t *Trace) float64) stats.Interval {
	return stats.Mean(traceValues(r, f))
}

func traceValues(r *Result, f func(t *Trace) float64) []float64 {
	vs := make([]float64, len(r.Reference.Traces))
	for i := range r.Reference.Traces {
		vs[i] = f(&r.Reference.Traces[i])
	}
	return vs
}

// seedValues computes f of every reference run, in seed order.
func seedValues(r *Result, f func(s *lab.Summary) float64) []float64 {
	return runValues(r.Reference, f)
}

// percent writes a share in % over the seeds: "13.8 ± 3.1 %", or, when the
// interval is wider than the value (few seeds, a share that varies), the
// mean with the seeds' range: "52 % on average (4 to 100 % by seed)".
func percent(vs []float64, prec int) string {
	iv := stats.Mean(vs)
	if iv.Half <= iv.Mean {
		return iv.Format(prec) + " %"
	}
	return fmt.Sprintf("%.*f %% on average (%.*f to %.*f %% by seed)", prec, iv.Mean, prec, slices.Min(vs), prec, slices.Max(vs))
}

// timelineTouches reports whether the (unpinned) timeline changes any key.
func (d *diag) timelineTouches(keys ...string) bool {
	sc := d.scenario(nil)
	if sc == nil {
		return false
	}
	gen, err := sc.Generated(d.o.Base.Duration)
	if err != nil {
		return true // Run has scheduled it already: not reached
	}
	keep, _ := scenarios.Unpinned(sc.Pinned, slices.Concat(sc.Timeline, gen))
	for _, ch := range keep {
		for _, a := range ch.Set {
			if slices.Contains(keys, a.Key) {
				return true
			}
		}
	}
	return false
}

// overwriteRule: the latest-wins server keeps one pending input per step,
// so of two inputs arriving within one step the first is never applied and
// its step of motion is lost: the server's tank (and with it the
// reconciled visible tank) moves slower than commanded. The rule names the
// mechanism only when the tank is not faster than that loss would leave
// it.
func overwriteRule(d *diag, r *Result) (Finding, bool) {
	c := &d.o.Base
	if c.Server.Inputs != server.Latest || d.timelineTouches("server.inputs") {
		return Finding{}, false
	}
	overwritten := func(s *lab.Summary) float64 {
		if s.Arrived == 0 {
			return 0
		}
		return float64(s.Overwritten) / float64(s.Arrived)
	}
	shares := seedValues(r, func(s *lab.Summary) float64 { return 100 * overwritten(s) })
	if stats.Mean(shares).Lo() <= 0.5 {
		return Finding{}, false
	}
	speed := perSeed(r, func(s *lab.Summary) float64 { return s.MeanVisibleSpeedMPS })
	cmd := perSeed(r, func(s *lab.Summary) float64 { return s.CommandedSpeedMPS })
	// The overwrites explain commanded × (1 − overwritten share); the rest
	// of the deficit is another mechanism's.
	explained := perSeed(r, func(s *lab.Summary) float64 { return float64(s.CommandedSpeedMPS * (1 - overwritten(s))) })
	rest := perSeed(r, func(s *lab.Summary) float64 {
		return float64(s.CommandedSpeedMPS*(1-overwritten(s))) - s.MeanVisibleSpeedMPS
	})
	// A tank faster than the overwrites alone would leave it, by more than
	// the progress deficit's floor, loses no input's motion to them (each
	// applied input moves it a whole step): not this mechanism.
	if pd, _ := LookupMetric("progress_deficit_mps"); rest.Hi() < -pd.floorOf().Min {
		return Finding{}, false
	}
	// Unexplained only when the rest is above 0 by more than half the last
	// digit shown (0.005 m/s): "0.00 ± 0.00 not explained" says nothing.
	account := "which accounts for the deficit"
	if rest.Lo() > 0.005 {
		account = fmt.Sprintf("the other %s m/s of the deficit is not explained by this rule", rest.Format(2))
	}
	where := ""
	if c.Up.Jitter > 0 {
		where = " on a jittery uplink"
	}
	return Finding{Rule: "latest-wins-overwrite", Fix: "server.inputs=queue",
		Text: fmt.Sprintf("the server overwrote %s of inputs (latest-wins%s: of two inputs arriving "+
			"within one server step only the last is applied, and the first one's motion is lost): "+
			"the tank moves at %s of %.2f m/s; the overwrites alone would leave it at %s m/s (commanded × the share applied), %s",
			percent(shares, 1), where, speed.Format(2), cmd.Mean, explained.Format(2), account)}, true
}

// FramesPerSend is how often the frame sender sends at interval iv and fps
// frames per second of its clock: on the first frame more than iv after
// the last send, so every m-th frame with m = ⌊iv·fps / 1 s⌋ + 1 (0.050 s
// at 60 fps: 4 frames, 15 Hz; 0.048 s: 3 frames, 20 Hz).
func FramesPerSend(iv time.Duration, fps int) int64 {
	return int64(iv)*int64(fps)/int64(time.Second) + 1
}

// fastestInterval is the shortest send interval the corrector chooses.
func fastestInterval(c *client.Config) time.Duration {
	switch c.Corrector {
	case client.Off:
		return c.SendInterval
	case client.Proportional:
		return time.Duration(float64(c.SendInterval)/1.1 + 0.5)
	}
	return c.IntervalFast
}

// tickRateChange is the change that sends at the server's tick rate, when
// the corrector's fastest send interval is longer than the tick (a client
// that cannot keep pace at any frame rate, SlowSenderCause): the send
// interval at the tick, and the corrector's latched intervals scaled the
// same way, keeping their ratio to it (48 and 52 ms of 50 ms become 15.36
// and 16.64 ms at a 16 ms tick), to the microsecond. One change of three
// settings (assignments): the send interval alone leaves the dead band
// latching the intervals of the old rate. "" when the fastest interval
// keeps pace, or when the registry refuses a value.
func tickRateChange(cfg *lab.Config) string {
	c, tick := &cfg.Client, cfg.Server.Tick
	if fastestInterval(c) <= tick || c.SendInterval <= 0 {
		return ""
	}
	scaled := func(iv time.Duration) time.Duration {
		return time.Duration(math.Round(float64(float64(tick)*float64(iv))/float64(c.SendInterval)/1e3)) * time.Microsecond
	}
	try := *cfg
	var sets []string
	for _, s := range []struct {
		key string
		iv  time.Duration
	}{{"client.send_interval", tick}, {"client.interval_fast", scaled(c.IntervalFast)}, {"client.interval_slow", scaled(c.IntervalSlow)}} {
		if lab.Set(&try, s.key, s.iv.String()) != nil {
			return ""
		}
		sets = append(sets, s.key+"="+s.iv.String())
	}
	return strings.Join(sets, ",")
}

// senderRates are the frame sender's fastest rate and the server's tick
// rate, both in true time (Hz), with the frames per send.
func senderRates(c *lab.Config) (m int64, clientHz, serverHz float64) {
	m = FramesPerSend(fastestInterval(&c.Client), c.Client.FPS)
	clientHz = float64(float64(c.Client.FPS) / float64(m) * (1 + float64(c.ClientDriftPPM*1e-6)))
	serverHz = float64(float64(time.Second) / float64(c.Server.Tick) * (1 + float64(c.ServerDriftPPM*1e-6)))
	return m, clientHz, serverHz
}

// rateKeys are the settings the sender-rate rules read.
var rateKeys = []string{"client.sender", "client.corrector", "client.fps", "client.frame_jitter", "client.send_interval",
	"client.interval_fast", "client.interval_slow", "client.drift_ppm", "server.drift_ppm", "client.wander_ppm",
	"server.wander_ppm", "server.tick"}

func frameSenderRule(d *diag) bool {
	c := &d.o.Base
	return c.Client.Sender == client.SenderFrame && c.Client.FrameJitter == 0 && c.ClientWanderPPM == 0 && c.ServerWanderPPM == 0 &&
		!d.timelineTouches(rateKeys...)
}

// SlowSenderCause names why the frame sender's fastest rate falls short of
// the server's ticks, in true time: a send interval longer than the tick
// (48 ms against a 33 ms tick: 20.8 Hz against 30.3 Hz, at any frame
// rate), else the frame rate's quantisation (at 30 fps a 48 ms interval
// needs 2 frames, 66.7 ms: 15 Hz against 20 Hz), the client's clock
// running slow, or the server's running fast; each cause that is at work,
// the first the largest.
func SlowSenderCause(c *lab.Config) string {
	iv := fastestInterval(&c.Client)
	m := FramesPerSend(iv, c.Client.FPS)
	nominal := float64(c.Client.FPS) / float64(m)
	tickHz := float64(time.Second) / float64(c.Server.Tick)
	var causes []string
	switch {
	case iv > c.Server.Tick:
		causes = append(causes, fmt.Sprintf("the send interval is longer than the server's tick: at its fastest, %g ms, "+
			"it is %.2f Hz against the server's %.2f Hz (server.tick=%v)", ms(iv), float64(time.Second)/float64(iv), tickHz, c.Server.Tick))
	case nominal < tickHz*(1-1e-9):
		causes = append(causes, fmt.Sprintf("the frame rate quantises the sends: at %d fps a %.0f ms interval needs %d frames "+
			"(%.1f ms), %.2f Hz against the server's %.0f Hz", c.Client.FPS, ms(iv), m,
			1000*float64(m)/float64(c.Client.FPS), nominal, tickHz))
	case nominal <= tickHz*(1+1e-9) && c.Client.FrameJitter > 0:
		causes = append(causes, fmt.Sprintf("the frame rate leaves no margin: at %d fps a %.0f ms interval needs %d frames "+
			"(%.1f ms), %.2f Hz, the server's %.0f Hz, and a frame late past the interval (client.frame_jitter=%v) takes its send "+
			"one frame later (at most once per %d frames, %.2f Hz)", c.Client.FPS, ms(iv), m, 1000*float64(m)/float64(c.Client.FPS),
			nominal, tickHz, c.Client.FrameJitter, m+1, float64(c.Client.FPS)/float64(m+1)))
	}
	if c.ClientDriftPPM < 0 {
		causes = append(causes, fmt.Sprintf("the client clock runs %.2f %% slow", -c.ClientDriftPPM/1e4))
	}
	if c.ServerDriftPPM > 0 {
		causes = append(causes, fmt.Sprintf("the server clock runs %.2f %% fast", c.ServerDriftPPM/1e4))
	}
	if len(causes) == 0 {
		return "the frame sender's rate falls short of the server's ticks"
	}
	return strings.Join(causes, ", and ")
}

// slowClockRule: the frame sender cannot send faster than one send per m
// frames of the client's clock; when that is slower in true time than the
// server's ticks, the client falls behind by the difference every second
// and the offset grows without bound, whatever the corrector asks. Frame
// jitter and clock wander make the rates vary about their nominal values,
// not the mechanism: the rule needs the nominal rates and the measured
// offset to agree.
func slowClockRule(d *diag, r *Result) (Finding, bool) {
	c := &d.o.Base
	if c.Client.Sender != client.SenderFrame || d.timelineTouches(rateKeys...) {
		return Finding{}, false
	}
	m, clientHz, serverHz := senderRates(c)
	// At the tick rate, frame jitter can make the sender slow: a late
	// frame takes a send one frame later, at most once per m+1 frames.
	atTickRate := math.Abs(clientHz-serverHz) <= 1e-9*serverHz && c.Client.FrameJitter > 0
	if clientHz >= serverHz*(1-1e-9) && !atTickRate {
		return Finding{}, false
	}
	off := perSeed(r, func(s *lab.Summary) float64 { return float64(s.FinalOffset) })
	slope := perTrace(r, func(t *Trace) float64 { return t.OffsetSlope })
	if off.Lo() <= float64(c.Client.Band) || slope.Lo() <= 0 {
		return Finding{}, false
	}
	// The most growth the rates allow (ticks/s): frame jitter can take a
	// send a frame later, at most once per m+1 frames.
	most := serverHz - clientHz
	if c.Client.FrameJitter > 0 {
		most = serverHz - clientHz*float64(m)/float64(m+1)
	}
	if atTickRate && slope.Mean > most {
		return Finding{}, false // more than frame jitter can take: not this sender
	}
	slow := SlowSenderCause(c)
	predict := fmt.Sprintf("the rates predict %+.3f", serverHz-clientHz)
	var vary []string
	if c.Client.FrameJitter > 0 {
		vary = append(vary, "frame jitter")
	}
	if c.ClientWanderPPM > 0 || c.ServerWanderPPM > 0 {
		vary = append(vary, "clock wander")
	}
	if len(vary) > 0 {
		verb := "varies"
		if len(vary) > 1 {
			verb = "vary"
		}
		predict = fmt.Sprintf("the nominal rates predict %+.3f; %s %s them", serverHz-clientHz, strings.Join(vary, " and "), verb)
	}
	against := " against the server's %.3f Hz, so"
	if atTickRate {
		against = ", no faster than the server's %.3f Hz, and the late frames' sends come later, so"
	}
	text := fmt.Sprintf("%s: the frame sender cannot send faster than once per %d frames (%.2f Hz of its clock, %.3f Hz of "+
		"true time)"+against+" the tick offset grows without bound: by %s ticks/s "+
		"(%s), to %s after %.0f s", slow, m, float64(c.Client.FPS)/float64(m), clientHz, serverHz,
		signedP(slope, 3), predict, signed(off), c.Duration.Seconds())
	// A growth the rates fall far short of has another cause too.
	if slope.Lo() > float64(1.1*most) {
		text += fmt.Sprintf("; it grows %+.3f ticks/s faster than the rates allow, which is not explained by this rule", slope.Mean-most)
	}
	// The accumulator sends once per interval, at most once a frame: when
	// either is slower than the ticks, its change cannot keep pace either.
	clock := 1 + float64(c.ClientDriftPPM*1e-6)
	iv := fastestInterval(&c.Client)
	var limits []string
	if hz := float64(float64(time.Second) / float64(iv) * clock); hz < serverHz*(1-1e-9) {
		limits = append(limits, fmt.Sprintf("once per %g ms (%.3f Hz of true time) unless the send interval is at most "+
			"the tick (%v)", ms(iv), hz, c.Server.Tick))
	}
	if hz := float64(float64(c.Client.FPS) * clock); hz < serverHz*(1-1e-9) {
		limits = append(limits, fmt.Sprintf("once a frame (%.3f Hz of true time at %d fps) unless the frame rate is above "+
			"the server's", hz, c.Client.FPS))
	}
	if len(limits) > 0 {
		text += "; the accumulator cannot keep pace either: it sends at most " + strings.Join(limits, ", and at most ")
	}
	// A send interval longer than the tick is removed by sending at the
	// tick rate; otherwise the accumulator removes the frames' quantisation.
	fix := "client.sender=accumulator"
	if set := tickRateChange(c); set != "" {
		fix = set
	}
	return Finding{Rule: "frame-sender-slow-clock", Fix: fix, Text: text}, true
}

// latchRule: the dead band latches the fast interval when the offset goes
// above the band, but when the fast interval still gives one send per
// server tick, the client can only keep pace: the offset stays where it is
// and never returns into the band.
func latchRule(d *diag, r *Result) (Finding, bool) {
	c := &d.o.Base
	if !frameSenderRule(d) || c.Client.Corrector != client.Deadband {
		return Finding{}, false
	}
	m, clientHz, serverHz := senderRates(c)
	if math.Abs(clientHz-serverHz) > 1e-9*serverHz {
		return Finding{}, false
	}
	fasts := seedValues(r, func(s *lab.Summary) float64 {
		if t := s.TimeFastS + s.TimeBaseS + s.TimeSlowS; t > 0 {
			return 100 * s.TimeFastS / t
		}
		return 0
	})
	fast := stats.Mean(fasts)
	off := perSeed(r, func(s *lab.Summary) float64 { return float64(s.FinalOffset) })
	aboves := traceValues(r, func(t *Trace) float64 { return t.AboveBand })
	above := stats.Mean(aboves)
	if fast.Mean <= 50 || above.Mean < 50 {
		return Finding{}, false
	}
	stays := fmt.Sprintf("above the band (±%d) in %s of the samples after the first quarter of the run", c.Client.Band, percent(aboves, 0))
	if above.Lo() >= 100-1e-9 {
		stays = fmt.Sprintf("above the band (±%d) on every seed from the first quarter of the run on: it never returns into it", c.Client.Band)
	}
	return Finding{Rule: "latch-still-tick-rate", Fix: "client.sender=accumulator",
		Text: fmt.Sprintf("the send interval latched at %.3f s for %s of the time, but at %d fps that is still one send "+
			"per %d frames = %.1f Hz, no faster than the server's %.1f Hz ticks, so the offset cannot come down: it ends at %s, %s",
			c.Client.IntervalFast.Seconds(), percent(fasts, 0), c.Client.FPS, m, clientHz, serverHz, signed(off), stays)}, true
}

// substepRule: replay in substeps of one prediction unit differs from one
// integration of a whole step only when a step lasts longer than a unit
// and turns; prediction spends whole units, so every pending duration is
// a multiple of the unit, and when the single replay gives the same runs
// the substep fix changes nothing in this configuration.
func substepRule(d *diag, r *Result) (Finding, bool) {
	c := &d.o.Base
	if c.Client.Replay != client.Substep || d.timelineTouches("client.replay") {
		return Finding{}, false
	}
	i := slices.IndexFunc(r.Changes, func(c Change) bool { return c.Set == "client.replay=single" })
	if i < 0 {
		return Finding{}, false
	}
	alt := r.Changes[i].arm
	for _, m := range Metrics {
		a, b := r.Reference.Stat(m).PerSeed, alt.Stat(m).PerSeed
		for j := range a {
			if math.Abs(a[j]-b[j]) > 1e-9*max(1, math.Abs(a[j])) {
				return Finding{}, false
			}
		}
	}
	unit := c.Server.Tick
	return Finding{Rule: "substep-changes-nothing", Fix: "client.replay=single",
		Text: fmt.Sprintf("replay substeps change nothing here: every pending duration is a multiple of %g ms (prediction "+
			"spends whole %g ms units), and on this input a whole step integrates to the same pose as its substeps: "+
			"client.replay=single gives the same report card on %d of %d seeds", ms(unit), ms(unit), len(d.o.Seeds), len(d.o.Seeds))}, true
}

// signed formats an interval with a sign: "+3.1 ± 0.2".
func signed(iv stats.Interval) string { return signedP(iv, 1) }

func signedP(iv stats.Interval, prec int) string {
	s := iv.Format(prec)
	if iv.Mean >= 0 {
		s = "+" + s
	}
	return s
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// conditionRules name the conditions whose removal (Attribution) is a
// mechanism of its own: the latency's phase against the server's tick,
// which clock drifts, a frame rate the server's rate does not divide.
var conditionRules = []struct{ prefix, rule, what string }{
	{"latency → whole ticks", "latency-phase", "the latency's phase against the server's tick: inputs land at the same point of " +
		"a server step, and states at the same point of a frame, run after run (moved to whole ticks, the latencies also change " +
		"by up to half a tick)"},
	{"client clock drift", "client-clock-drift", "the client's clock drifts"},
	{"server clock drift", "server-clock-drift", "the server's clock drifts"},
	{"frame rate", "frame-rate", "the frame rate is not a multiple of the server's rate: the frames per tick alternate"},
	{"fixed updates' cost", "fixed-cost", "the fixed updates cost CPU time (client.fixed_cost) that delays the next frame: " +
		"the frames come late, the frame sender's sends with them"},
}

// conditionFindings are the conditions whose removal makes the primary
// metric or the tie-break significantly better: each is a finding, its
// cost measured against the same runs without it, and a problem when the
// other is not significantly worse. A slow sender already
// named (frame-sender-slow-clock) is not named again by its clock or
// frame rate; the fixed updates' cost, which it does not name, is.
func conditionFindings(d *diag, r *Result, have []Finding) []Finding {
	var out []Finding
	slow := slices.ContainsFunc(have, func(f Finding) bool { return f.Rule == "frame-sender-slow-clock" })
	for _, a := range r.Attribution {
		for _, cr := range conditionRules {
			if !strings.HasPrefix(a.Condition, cr.prefix) || (slow && cr.rule != "latency-phase" && cr.rule != "fixed-cost") {
				continue
			}
			better := func(x stats.Diff) bool { return x.Significant && x.Mean < 0 }
			if !better(a.Primary) && !better(a.TieBreak) {
				continue
			}
			f := Finding{Rule: cr.rule, Better: []string{}, Worse: []string{}, Counters: a.Counters, Confirmed: true,
				Cost: d.diff(a.arm, r.Reference, d.primary)}
			// A trade (one better, the other significantly worse) is no
			// problem, as for a change.
			f.Problem = helps(a.Primary, a.TieBreak)
			f.Text = fmt.Sprintf("%s; %s: %s %s, %s %s", cr.what, a.Condition, d.primary.Label,
				d.primary.Quantity(plain(a.Primary, d.primary.Prec)), d.tie.Label, d.tie.Quantity(plain(a.TieBreak, d.tie.Prec)))
			if len(a.Counters) > 0 {
				f.Text += "; per run " + strings.Join(a.Counters, ", ")
			}
			if cr.rule == "fixed-cost" {
				f.Text += gameClockLag(r)
			}
			out = append(out, f)
		}
	}
	return out
}

// gameClockLag says how far the reference's game clock ended behind true
// time ("; the game clock ends 11.5 ± 0.1 s behind true time"), or ""
// when the runs do not measure it or it does not fall behind.
func gameClockLag(r *Result) string {
	for _, run := range r.Reference.Runs {
		if run.Frames == nil {
			return ""
		}
	}
	lag := perSeed(r, func(s *lab.Summary) float64 { return s.Frames.GameClockLagS })
	if lag.Lo() <= 0 {
		return ""
	}
	return fmt.Sprintf("; the game clock ends %s s behind true time", lag.Format(1))
}

// lossShares are each reference run's share (%) of packets a direction
// lost (or dropped from its queue).
func lossShares(r *Result, up bool) []float64 {
	return seedValues(r, func(s *lab.Summary) float64 {
		l := &s.Down
		if up {
			l = &s.Up
		}
		if l.Sent == 0 {
			return 0
		}
		return 100 * float64(l.Lost+l.QueueDropped) / float64(l.Sent)
	})
}

// lossy reports whether the direction dir ("up", "down") has random
// loss: a loss probability, a loss model, or a timeline that sets them (a
// blackout's losses are the blackout's finding, not loss).
func (d *diag) lossy(dir string) bool {
	c := d.o.Base
	p, _ := lab.Lookup(dir + ".loss_model")
	l := c.Up.Loss
	if dir == "down" {
		l = c.Down.Loss
	}
	return l > 0 || p.Get(&c) != "random" || d.timelineTouches(dir+".loss", "link.loss", dir+".loss_model", "link.loss_model")
}

// uplinkLossRule: an input the uplink loses is a server step without
// input (starved): a latest-wins server stops the tank for it, a queue or
// a buffer applies its last input again. The next MoveInput carries it
// again only with redundancy (client.redundancy ≥ 2), and a latest-wins
// server applies one input per step whatever arrives, so the redundant
// copy refills the gap only for a server that applies every input
// (queue, buffer).
func uplinkLossRule(d *diag, r *Result) (Finding, bool) {
	c := &d.o.Base
	shares := lossShares(r, true)
	if !d.lossy("up") || stats.Mean(shares).Lo() <= 0.5 {
		return Finding{}, false
	}
	starved := perSeed(r, func(s *lab.Summary) float64 { return float64(s.Starved) })
	lost := fmt.Sprintf("the uplink lost %s of the client's packets", percent(shares, 1))
	f := Finding{Rule: "uplink-loss"}
	switch {
	case c.Client.Redundancy > 0:
		rec := perSeed(r, func(s *lab.Summary) float64 { return float64(s.Recovered) })
		f.Text = fmt.Sprintf("%s; with client.redundancy=%s the next packet carries the lost inputs again: %s inputs per run "+
			"recovered, %s server steps per run without an input", lost, c.Client.Redundancy, rec.Format(0), starved.Format(0))
		if c.Server.Inputs == server.Latest {
			f.Text += "; but a latest-wins server applies one input per step whatever arrives, so the copies refill no gap " +
				"(server.inputs=queue or buffer applies them)"
		}
	case c.Server.Inputs == server.Latest:
		f.Text = fmt.Sprintf("%s: each lost input is a server step without one (%s per run starved) and the tank stops "+
			"for it; redundant inputs would carry it again, but a latest-wins server applies one input per step whatever "+
			"arrives: they help only with server.inputs=queue or buffer (the pairs are tried)", lost, starved.Format(0))
	default:
		// A queue's or a buffer's underrun applies the last input again.
		f.Text = fmt.Sprintf("%s: each lost input is a server step without its own (%s per run starved); the server applies "+
			"its last input again for that step, so the tank moves on as before and differs only where the input changed; "+
			"with client.redundancy=2 the next packet carries it again", lost, starved.Format(0))
		if c.Up.LossBurst > 1 {
			f.Text += fmt.Sprintf(", but a burst (%g packets on average) loses the copies too", c.Up.LossBurst)
		}
		f.Fix = "client.redundancy=2"
	}
	return f, true
}

// downlinkLossRule: a PlayerState the downlink loses is a correction the
// client never gets: it predicts on until the next, and the error it
// meets then is larger (snaps, corrections). No change of the netcode's
// brings it back; the snap threshold decides how it is shown.
func downlinkLossRule(d *diag, r *Result) (Finding, bool) {
	shares := lossShares(r, false)
	if !d.lossy("down") || stats.Mean(shares).Lo() <= 0.5 {
		return Finding{}, false
	}
	snaps := perSeed(r, func(s *lab.Summary) float64 { return float64(s.Snaps) })
	return Finding{Rule: "downlink-loss", Text: fmt.Sprintf("the downlink lost %s of the server's PlayerStates: the client "+
		"predicts on without a correction until the next one arrives, and corrects the larger error then (%s snaps per run)",
		percent(lossShares(r, false), 1), snaps.Format(1))}, true
}

// TunedFPS is the frame rate the smoothing constant client.alpha is tuned
// at: the default configuration's.
var TunedFPS = lab.DefaultConfig().Client.FPS

// SameSmoothing is the lerp factor per frame at fps that smooths with the
// same time constant as alpha does at TunedFPS: 1 − (1 − alpha)^(TunedFPS/fps).
func SameSmoothing(alpha float64, fps int) float64 {
	return 1 - detmath.Pow(1-alpha, float64(TunedFPS)/float64(fps))
}

// smoothingTimeMs is the time constant (ms) of a lerp by alpha per frame
// at fps: the time the visible pose takes to close 1 − 1/e of a gap.
func smoothingTimeMs(alpha float64, fps int) float64 {
	return -1000 / (float64(fps) * detmath.Log(1-alpha))
}

// smoothingChange is the change that restores the tuned time constant at
// cfg's frame rate ("" when the smoothing is not a per-frame lerp, or the
// rate is the tuned one).
func smoothingChange(cfg *lab.Config) string {
	c := &cfg.Client
	if c.Smoothing != client.Lerp || c.FPS == TunedFPS || c.Alpha >= 1 {
		return ""
	}
	return "client.alpha=" + strconv.FormatFloat(SameSmoothing(c.Alpha, c.FPS), 'f', 3, 64)
}

// smoothingRateRule: the lerp smoothing moves the visible pose a share
// alpha of the way per frame, so its time constant is in frames: at half
// the frame rate the same alpha smooths twice as slowly.
func smoothingRateRule(d *diag, r *Result) (Finding, bool) {
	c := &d.o.Base
	set := smoothingChange(c)
	if set == "" || d.timelineTouches("client.fps", "client.alpha", "client.smoothing") {
		return Finding{}, false
	}
	return Finding{Rule: "smoothing-per-frame", Fix: set,
		Text: fmt.Sprintf("the smoothing is per frame: client.alpha=%g moves the visible pose %g of the way each frame, a time "+
			"constant of %.0f ms at %d fps against %.0f ms at the %d fps it is tuned at; %s keeps the tuned one",
			c.Client.Alpha, c.Client.Alpha, smoothingTimeMs(c.Client.Alpha, c.Client.FPS), c.Client.FPS,
			smoothingTimeMs(c.Client.Alpha, TunedFPS), TunedFPS, set)}, true
}

// drawPrediction is the change that draws the prediction itself, moved
// on between its steps, and smooths only a correction.
const drawPrediction = "client.smoothing=predicted"

// presentationName is the presentation finding's rule.
const presentationName = "presentation"

// underneath is what a run's presentation cannot change: the inputs sent
// and what the server did with them, the link's counts each way, the
// corrections and the send interval's latch. Two runs with the same
// underneath differ only in what is drawn.
type underneath struct {
	sent, arrived, applied, late, overwritten, starved, lost, recovered uint64
	up, down                                                            lab.LinkSummary
	correction                                                          lab.Quantiles
	corrections                                                         [3]uint64 // float bits: NaN equals NaN
	latchFlips                                                          uint64
	offset                                                              int
}

func underneathOf(s *lab.Summary) underneath {
	c := &s.Card
	return underneath{sent: s.InputsSent, arrived: s.Arrived, applied: s.Applied, late: s.LateDropped,
		overwritten: s.Overwritten, starved: s.Starved, lost: s.Lost, recovered: s.Recovered,
		up: s.Up, down: s.Down, correction: s.CorrectionM,
		corrections: [3]uint64{math.Float64bits(c.CorrectionsSmallPerMin), math.Float64bits(c.CorrectionsMediumPerMin),
			math.Float64bits(c.CorrectionsLargePerMin)},
		latchFlips: s.LatchFlips, offset: s.FinalOffset}
}

// sameUnderneath counts the seeds on which a and b ran the same game
// underneath what is drawn.
func sameUnderneath(a, b *Arm) int {
	n := 0
	for i := range a.Runs {
		if i < len(b.Runs) && underneathOf(&a.Runs[i]) == underneathOf(&b.Runs[i]) {
			n++
		}
	}
	return n
}

// presentationRule: a smoothing that chases the prediction (a lerp by a
// share per frame, or a move at the input's speed) follows a pose that
// moves in steps: one per prediction unit (the server's tick) and one per
// correction. The drawn speed then pulses with the steps, which is judder
// the prediction itself does not have. The counterfactual is the same
// runs with the prediction drawn (moved on between its steps) and only a
// correction smoothed: the rule names the mechanism only when that run is
// the same game underneath on every seed (inputs, server, link,
// corrections), so what changes is what is drawn alone, and when it
// judders significantly less: the pulsing is what it removes.
func presentationRule(d *diag, r *Result) (Finding, bool) {
	c := &d.o.Base.Client
	if c.Smoothing == client.Predicted || d.timelineTouches("client.smoothing", "client.alpha", "client.alpha_per") {
		return Finding{}, false
	}
	i := slices.IndexFunc(r.Changes, func(ch Change) bool { return ch.Set == drawPrediction })
	if i < 0 {
		return Finding{}, false
	}
	drawn := r.Changes[i].arm
	n := len(r.Reference.Runs)
	if sameUnderneath(r.Reference, drawn) != n {
		return Finding{}, false // the smoothing reaches the game: not presentation alone
	}
	// The pulsing is judder: the drawn prediction must judder significantly
	// less, or the counterfactual does not show the mechanism.
	m, _ := LookupMetric("judder_mps")
	if dj := d.diff(r.Reference, drawn, m); !dj.Significant || dj.Mean >= 0 {
		return Finding{}, false
	}
	how := fmt.Sprintf("the lerp (client.smoothing=lerp, %g of the way each frame)", c.Alpha)
	if c.Smoothing == client.MoveTowards {
		how = "client.smoothing=movetowards"
	}
	return Finding{Rule: presentationName, Fix: drawPrediction,
		Text: fmt.Sprintf("the presentation: %s chases a prediction that moves only in %g ms steps and corrections, so "+
			"the drawn speed pulses; drawing the prediction (%s), with the same game underneath on %d of %d seeds, "+
			"%s goes from %s to %s",
			how, ms(d.o.Base.Server.Tick), drawPrediction, n, n, m.Label, r.Reference.Stat(m).Mean.Format(m.Prec),
			m.Quantity(drawn.Stat(m).Mean.Format(m.Prec)))}, true
}

// correctionsPerMin is a run's corrections a minute, every size.
func correctionsPerMin(s *lab.Summary) float64 {
	c := &s.Card
	return c.CorrectionsSmallPerMin + c.CorrectionsMediumPerMin + c.CorrectionsLargePerMin
}

// consumeChange is the prediction that spends each input once, in order.
const consumeChange = "client.predict=consume"

// predictLatestRule: the client predicts each step with the latest input
// it has sent (client.predict=attribute), while the server applies to
// each of its steps the input that arrived for it; whenever the two
// differ the next state corrects the prediction. The counterfactual is
// the same runs predicting each step with the next input not yet
// predicted: the rule names the mechanism only when those runs have
// significantly fewer corrections. With a latest-wins server the server
// skips inputs too; the pair of both changes, when tried, says what is
// left with each input applied once on both sides.
func predictLatestRule(d *diag, r *Result) (Finding, bool) {
	c := &d.o.Base
	if c.Client.Predict != client.Attribute || d.timelineTouches("client.predict") {
		return Finding{}, false
	}
	ref := seedValues(r, correctionsPerMin)
	if stats.Mean(ref).Lo() <= correctionFloor() {
		return Finding{}, false
	}
	i := slices.IndexFunc(r.Changes, func(ch Change) bool { return ch.Set == consumeChange })
	if i < 0 {
		return Finding{}, false
	}
	with := runValues(r.Changes[i].arm, correctionsPerMin)
	if dd := stats.PairedMin(ref, with, correctionFloor()); !dd.Significant || dd.Mean >= 0 {
		return Finding{}, false // the prediction's input is not what the server corrects
	}
	text := fmt.Sprintf("the server corrected the prediction %s times a minute: the client predicts each %g ms step with "+
		"the latest input it has sent (client.predict=attribute), not the input the server applies in that step; "+
		"predicting each step with the next input not yet predicted (%s) leaves %s a minute",
		stats.Mean(ref).Format(1), ms(c.Server.Tick), consumeChange, stats.Mean(with).Format(1))
	if c.Server.Inputs == server.Latest {
		for _, p := range r.Pairs {
			if slices.Contains(p.Sets, consumeChange) && slices.Contains(p.Sets, "server.inputs=queue") && p.VsReference.arm != nil {
				text += fmt.Sprintf("; the rest come with the server's overwrites: with server.inputs=queue too, each input "+
					"applied once on both sides, %s", stats.Mean(runValues(p.VsReference.arm, correctionsPerMin)).Format(1))
				break
			}
		}
	}
	return Finding{Rule: predictLatestName, Fix: consumeChange, Text: text}, true
}

// predictLatestName is the prediction-input finding's rule.
const predictLatestName = "predict-latest-input"

// correctionFloor is the smallest number of corrections a minute that is
// a mechanism at work: the floor of the 1–10 cm corrections (Floors).
func correctionFloor() float64 {
	m, _ := LookupMetric("corrections_1_to_10cm_per_min")
	return m.floorOf().Min
}
