package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"jitterlab/fit"
	"jitterlab/internal/golden"
	"jitterlab/netem"
	"jitterlab/trace"
)

// sdUnits is the standard deviation of one unit of jitter in each
// distribution (netem/dist.go): the half-width of uniform is √3 σ; the
// capped exponential's σ is its mean to 1e−4.
var sdUnits = map[netem.Dist]float64{netem.Uniform: 1 / math.Sqrt(3), netem.Normal: 1, netem.Pareto: 1, netem.ParetoNormal: 1, netem.Exponential: 1}

// TestFitRecoversTheLabsOwnLink is the closed loop: `lab run --packets`
// with known parameters, then the fit of that log, per distribution. Every
// tolerance is a number of standard errors at the run's sample size n
// (effective size n(1−ρ)/(1+ρ) for correlated delays):
//   - latency within 5σ/√n_eff (σ the jitter's standard deviation), plus the
//     log's 1 µs resolution;
//   - jitter within 5/√n_eff relative (12/√n_eff for the heavy-tailed pareto
//     and paretonormal, whose spread converges slowly), and the distribution
//     the one configured;
//   - ρ within 4·√((1−ρ²)/n) + 0.01 (ranks of µs-rounded delays);
//   - loss within 4·√(L(1−L)(2B−1)/n), B the mean burst (bursts inflate the
//     variance of the rate by about 2B−1), and the model with the lower BIC
//     the one configured; mean burst within 4 standard errors of 1/r̂;
//   - no packet taken as skipping the delay (the rule needs 3 more than the
//     0.1 the model puts below its range), so reorder 0;
//   - no verdict says misfit, and --periods finds no change in a steady link.
func TestFitRecoversTheLabsOwnLink(t *testing.T) {
	t.Parallel() // long and independent of the others
	for _, c := range []struct {
		dist             netem.Dist
		latency, jitter  float64 // ms
		rho, loss, burst float64
		seed             string
	}{
		{netem.Uniform, 30, 5, 0, 0.05, 0, "1"},
		{netem.Normal, 50, 10, 0.6, 0.03, 3, "2"},
		{netem.Pareto, 40, 8, 0.5, 0.02, 2, "3"},
		{netem.ParetoNormal, 60, 10, 0.3, 0.01, 0, "4"},
		{netem.Exponential, 20, 5, 0.8, 0.04, 4, "5"},
	} {
		t.Run(c.dist.String(), func(t *testing.T) {
			dir := t.TempDir()
			packets := filepath.Join(dir, "packets.csv")
			args := []string{"run", "--duration", "10m", "--seed", c.seed, "--packets", packets,
				"--set", fmt.Sprintf("link.latency=%gms", c.latency), "--set", fmt.Sprintf("link.jitter=%gms", c.jitter),
				"--set", "link.jitter_dist=" + c.dist.String(), "--set", fmt.Sprintf("link.jitter_corr=%g", c.rho),
				"--set", fmt.Sprintf("up.loss=%g%%", 100*c.loss)}
			if c.burst > 0 {
				args = append(args, "--set", fmt.Sprintf("up.loss_burst=%g", c.burst))
			}
			if code, _, stderr := runLab(t, args...); code != 0 {
				t.Fatalf("lab %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			res := fitPeriods(t, packets)
			for _, d := range res.Dirs {
				if len(d.Periods) > 0 {
					t.Errorf("%s: a steady link cut into %d periods, the first change at %v", d.Name, len(d.Periods), d.Periods[1].From)
				}
				p := d.Params()
				n := float64(d.Delivered)
				nEff := n * (1 - c.rho) / (1 + c.rho)
				sigma := c.jitter * sdUnits[c.dist]
				check := func(what string, got, want, tol float64) {
					t.Helper()
					if math.Abs(got-want) > tol {
						t.Errorf("%s %s: fitted %.4g, configured %.4g, tolerance %.3g", d.Name, what, got, want, tol)
					}
				}
				if p.JitterDist != c.dist {
					t.Errorf("%s: fitted %s, configured %s (KS distances %+v)", d.Name, p.JitterDist, c.dist, d.Candidates)
				}
				check("latency ms", float64(p.Latency)/1e6, c.latency, 5*sigma/math.Sqrt(nEff)+0.002)
				k := 5.0
				if c.dist == netem.Pareto || c.dist == netem.ParetoNormal {
					k = 12
				}
				check("jitter ms", float64(p.Jitter)/1e6, c.jitter, c.jitter*k/math.Sqrt(nEff))
				check("ρ", p.JitterCorr, c.rho, 4*math.Sqrt((1-c.rho*c.rho)/n)+0.01)
				loss, burst := 0.0, 1.0
				if d.Name == "up" {
					loss, burst = c.loss, max(c.burst, 1)
				}
				N := float64(d.Sent)
				check("loss", p.Loss, loss, 4*math.Sqrt(loss*(1-loss)*(2*burst-1)/N))
				want := fit.BernoulliLoss
				if d.Name == "up" && c.burst > 1 {
					want = fit.GilbertElliottLoss // not the 4-state model, which has it as a special case
				}
				if d.Lost > 0 && d.Model != want {
					t.Errorf("%s: %v chosen, want %v (BIC Bernoulli %.1f, GE %.1f, 4-state %.1f)", d.Name, d.Model, want, d.Bernoulli.BIC, d.GE.BIC, d.Four.BIC)
				}
				if d.Model == fit.GilbertElliottLoss {
					r := 1 / burst
					check("mean burst", p.LossBurst, burst, 4*burst*burst*math.Sqrt(r*(1-r)/float64(d.Lost)))
				}
				if d.Skipped > 0 || p.Reorder != 0 {
					t.Errorf("%s: %d packets taken as skipping the delay (reorder %.4f) on a link without reorder", d.Name, d.Skipped, p.Reorder)
				}
				for _, v := range d.Verdicts {
					if v.Misfit {
						t.Errorf("%s: misfit on the lab's own link: %s", d.Name, v.Text)
					}
				}
			}
		})
	}
}

// TestFitChoosesFourStateLoss is the closed loop of netem's 4-state loss
// model: `lab run --packets` for an hour (72,000 packets a direction) with
// `up.loss_model = state 1% 30% 20% 30% 2%`, then `lab fit`. The fit must
// choose the 4-state model by BIC, write it to --out, and recover
//   - each transition probability within 4 of the standard errors it
//     reports (the observed information of the hidden chain's likelihood);
//   - the loss rate within 4·√(L(1−L)(2B−1)/n) and the mean burst within 4
//     standard errors of a mean of as many bursts (the burst law's variance,
//     an isolated loss with probability W, else geometric ending with
//     Q = p31 + p32).
//
// The down direction, with Gilbert–Elliott loss of mean burst 3, must not
// be taken for the 4-state model.
func TestFitChoosesFourStateLoss(t *testing.T) {
	t.Parallel() // long and independent of the others
	dir := t.TempDir()
	packets, out := filepath.Join(dir, "p.csv"), filepath.Join(dir, "fitted.toml")
	const model = "state 1% 30% 20% 30% 2%"
	args := []string{"run", "--duration", "1h", "--seed", "14", "--packets", packets, "--set", "link.latency=30ms",
		"--set", "link.jitter=5ms", "--set", "up.loss_model=" + model, "--set", "down.loss=3%", "--set", "down.loss_burst=3"}
	if code, _, stderr := runLab(t, args...); code != 0 {
		t.Fatalf("lab %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	if code, _, stderr := runLab(t, "fit", "--out", out, packets); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	var want netem.Params
	if err := netem.ParseLossModel(&want, "up.loss_model", model); err != nil {
		t.Fatal(err)
	}
	g := want.GI
	res := fitPeriods(t, packets)
	up, down := res.Dirs[0], res.Dirs[1]
	if up.Model != fit.FourStateLoss {
		t.Fatalf("up: %v chosen, want 4-state (BIC Bernoulli %.1f, GE %.1f, 4-state %.1f)", up.Model, up.Bernoulli.BIC, up.GE.BIC, up.Four.BIC)
	}
	if down.Model != fit.GilbertElliottLoss {
		t.Errorf("down: %v chosen, want Gilbert–Elliott (BIC GE %.1f, 4-state %.1f)", down.Model, down.GE.BIC, down.Four.BIC)
	}
	check := func(what string, got, want, tol float64) {
		t.Helper()
		if !(math.Abs(got-want) <= tol) {
			t.Errorf("up %s: fitted %.4g, configured %.4g, tolerance %.3g", what, got, want, tol)
		}
	}
	f := up.Four
	for i, p := range []struct {
		name      string
		got, want float64
	}{{"p13", f.P13, g.P13}, {"p31", f.P31, g.P31}, {"p32", f.P32, g.P32}, {"p23", f.P23, g.P23}, {"p14", f.P14, g.P14}} {
		check(p.name, p.got, p.want, 4*f.SE[i])
	}
	L, B := g.LossRate(), g.MeanBurst()
	n := float64(up.Sent)
	check("loss rate", up.LossRate, L, 4*math.Sqrt(L*(1-L)*(2*B-1)/n))
	// The burst law: W isolated losses, else geometric with Q.
	pi := g.Stationary()
	w := pi[0] * g.P14 / (pi[0]*(g.P13+g.P14) + pi[1]*g.P23)
	q := g.P31 + g.P32
	m2 := w + (1-w)*(2-q)/(q*q) // E[length²]
	bursts := n * L / B
	check("mean burst", up.MeanBurst, B, 4*math.Sqrt((m2-B*B)/bursts))
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for l := range strings.Lines(string(b)) {
		if strings.HasPrefix(l, "up.loss_model = ") {
			line = strings.TrimSpace(l)
		}
	}
	var got netem.Params
	if v, err := strconv.Unquote(strings.TrimPrefix(line, "up.loss_model = ")); err != nil || netem.ParseLossModel(&got, "up.loss_model", v) != nil {
		t.Fatalf("fitted.toml has no 4-state up.loss_model (%q):\n%s", line, b)
	}
	if d := got.GI.P13 - f.P13; math.Abs(d) > 1e-6 {
		t.Errorf("fitted.toml's p13 %g, the fit's %g", got.GI.P13, f.P13)
	}
}

// TestFitRecoversTheReorderParameter: the lab's reorder (netem's) sends a
// packet at once, skipping the delay, with probability p; what a log shows
// of it is those packets' delays, at the path's floor below the jitter's
// whole range, not how many packets arrive out of order (that depends on
// how many were in flight to be overtaken: none at 20 Hz and 40 ms). The
// fit of a trace-mode replay of the run (which is the run, packet for
// packet) must give back p within 4·√(p(1−p)/n) from 10 minutes at 2.2 %,
// without jitter, with normal jitter, and with uniform jitter wide enough
// to reorder 7 % of the packets itself; the jitter within 5σ/√n as if no
// packet had skipped it, and no misfit.
func TestFitRecoversTheReorderParameter(t *testing.T) {
	t.Parallel() // long and independent of the others
	for _, c := range []struct {
		name            string
		latency, jitter float64 // ms
		dist            netem.Dist
	}{{"no jitter", 40, 0, netem.Normal}, {"normal jitter", 40, 10, netem.Normal}, {"jitter that reorders", 60, 40, netem.Uniform}} {
		t.Run(c.name, func(t *testing.T) {
			packets := filepath.Join(t.TempDir(), "p.csv")
			args := []string{"run", "--duration", "10m", "--seed", "22", "--packets", packets, "--set", fmt.Sprintf("link.latency=%gms", c.latency),
				"--set", fmt.Sprintf("link.jitter=%gms", c.jitter), "--set", "link.jitter_dist=" + c.dist.String(), "--set", "link.reorder=2.2%"}
			if code, _, stderr := runLab(t, args...); code != 0 {
				t.Fatalf("lab %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			// The same capture replayed in trace mode: the same packets
			// skip the delay, and both runs' logs count out of order what
			// the fit counts.
			replayed := filepath.Join(t.TempDir(), "trace.csv")
			if code, _, stderr := runLab(t, "run", "--duration", "10m", "--set", "up.trace="+packets, "--set", "down.trace="+packets, "--packets", replayed); code != 0 {
				t.Fatalf("trace mode: exit %d: %s", code, stderr)
			}
			for _, log := range []string{packets, replayed} {
				res := fitPeriods(t, log)
				reordered := reorderedColumn(t, log)
				for _, d := range res.Dirs {
					if got, want := d.ReorderObserved, float64(reordered[d.Name])/float64(d.Delivered); math.Abs(got-want) > 1e-12 {
						t.Errorf("%s %s: the fit counts %.5f out of order, the lab's reordered column %.5f", filepath.Base(log), d.Name, got, want)
					}
				}
			}
			res := fitPeriods(t, replayed)
			for _, d := range res.Dirs {
				const p = 0.022
				n := float64(d.Delivered)
				if tol := 4 * math.Sqrt(p*(1-p)/n); math.Abs(d.Reorder-p) > tol {
					t.Errorf("%s: reorder %.4f, configured %.4f, tolerance %.4f", d.Name, d.Reorder, p, tol)
				}
				pr := d.Params()
				if j := float64(pr.Jitter) / 1e6; math.Abs(j-c.jitter) > 5*c.jitter*sdUnits[c.dist]/math.Sqrt(n)+0.002 {
					t.Errorf("%s: jitter %.3f ms, configured %g", d.Name, j, c.jitter)
				}
				for _, v := range d.Verdicts {
					if v.Misfit {
						t.Errorf("%s: misfit: %s", d.Name, v.Text)
					}
				}
			}
		})
	}
}

func TestFitCommand(t *testing.T) {
	dir := t.TempDir()
	out, html := filepath.Join(dir, "fitted.toml"), filepath.Join(dir, "fit.html")
	code, stdout, stderr := runLab(t, "fit", "../../fit/testdata/run.csv", "--out", out, "--html", html)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "up: 589 packets") || !strings.Contains(stdout, "down: 591 packets") {
		t.Errorf("the report lacks a direction:\n%s", stdout)
	}
	// The scenario it wrote runs, with the fitted values.
	code, _, stderr = runLab(t, "run", "--scenario", out, "--duration", "5s")
	if code != 0 {
		t.Errorf("lab run --scenario fitted.toml: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), `up.jitter_dist = "normal"`) {
		t.Errorf("fitted.toml: %v\n%s", err, b)
	}
	if b, err := os.ReadFile(html); err != nil || !strings.Contains(string(b), "<svg") || strings.Contains(string(b), "<script") {
		t.Errorf("fit.html: %v; want inline SVG and no script", err)
	}
	// --out - puts the scenario on standard output and the report on
	// standard error.
	code, stdout, stderr = runLab(t, "fit", "--out", "-", "../../fit/testdata/run.csv")
	if code != 0 || !strings.HasPrefix(stdout, "# Fitted by") || !strings.Contains(stderr, "up: 589 packets") {
		t.Errorf("--out -: exit %d, stdout\n%s\nstderr\n%s", code, stdout, stderr)
	}
}

func TestFitBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "game.csv")
	if err := os.WriteFile(bad, []byte("dir,seq,send_ns,recv_ns\nup,1,10,abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"fit"}, 2, "lab fit: want one CAPTURE file, or two pcap captures (the client's and the server's), got 0 (see 'lab fit -h')\n"},
		{[]string{"fit", bad}, 1, "lab fit: " + bad + `:2:4: recv_ns "abc": want an integer number of nanoseconds, empty or lost for a lost packet, or unknown` + "\n"},
		{[]string{"fit", "--format", "pcapx", bad}, 1, `lab fit: --format "pcapx": want auto or one of packets, irtt, csv, pcap, jlrec` + "\n"},
		{[]string{"fit", "--format", "pcap", bad}, 1, "lab fit: " + bad + ": not a pcap or pcapng capture (tcpdump -w, dumpcap -w, Wireshark's Save As)\n"},
		{[]string{"fit", filepath.Join(dir, "missing.json")}, 1, "lab fit: open " + filepath.Join(dir, "missing.json") + ": no such file or directory\n"},
	} {
		code, _, stderr := runLab(t, c.args...)
		if code != c.code || stderr != c.want {
			t.Errorf("lab %s: exit %d, stderr %q; want exit %d, %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
	}
}

// The README's `lab fit` examples print what it shows (-update rewrites
// them, as TestREADMEOutputsReproduce does for the other commands).
func TestREADMEFitOutputsReproduce(t *testing.T) {
	blocks, examples := readmeExamples(t, "fit")
	if len(examples) == 0 {
		t.Fatal("the README shows no `lab fit` example with its output")
	}
	t.Chdir("../..")
	for _, ex := range examples {
		code, out, errOut := runLab(t, ex.args...)
		if code != 0 {
			t.Errorf("lab %s: exit %d %s", strings.Join(ex.args, " "), code, errOut)
			continue
		}
		if golden.Update() {
			blocks.set(ex, out)
		} else if !ex.matches(out) {
			t.Errorf("lab %s:\ngot:\n%s\nthe README shows:\n%s", strings.Join(ex.args, " "), out, ex.want)
		}
	}
	if golden.Update() {
		blocks.write(t)
	}
}

func TestTraceModeRunsRecordsAndVerifies(t *testing.T) {
	// A capture with 37 ms every 20 ms and every tenth packet lost, replayed
	// as up.trace: every up packet of the run takes 37 ms or is lost, the
	// recording stores the file's hash, --verify proves the replay, and a
	// changed file makes --verify fail saying so.
	dir := t.TempDir()
	capture := filepath.Join(dir, "capture.csv")
	var b strings.Builder
	b.WriteString("seq,send_ns,recv_ns\n")
	for i := range 500 {
		recv := fmt.Sprint(i*20e6 + 37e6)
		if i%10 == 9 {
			recv = ""
		}
		fmt.Fprintf(&b, "%d,%d,%s\n", i, i*20e6, recv)
	}
	if err := os.WriteFile(capture, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, packets := filepath.Join(dir, "t.jlrec"), filepath.Join(dir, "p.csv")
	if code, _, stderr := runLab(t, "run", "--duration", "20s", "--set", "up.trace="+capture, "--set", "link.jitter=5ms", "--record", rec, "--packets", packets); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	p, err := os.ReadFile(packets)
	if err != nil {
		t.Fatal(err)
	}
	lost, delivered := 0, 0
	for _, line := range strings.Split(string(p), "\n") {
		f := strings.Split(line, ",")
		if len(f) < 7 || f[0] != "up" {
			continue
		}
		switch {
		case f[4] == "lost":
			lost++
		case f[6] == "37.000":
			delivered++
		default:
			t.Fatalf("an up packet not replayed from the trace: %s", line)
		}
	}
	if lost == 0 || delivered == 0 {
		t.Errorf("up: %d lost, %d delivered at 37 ms", lost, delivered)
	}
	// The recording names the capture: the lab opens it only when told to.
	if code, _, stderr := runLab(t, "replay", rec, "--verify"); code != 1 || !strings.Contains(stderr, "--open-files") {
		t.Fatalf("verify without --open-files: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := runLab(t, "replay", rec, "--verify", "--open-files"); code != 0 || !strings.Contains(stdout, "verified") {
		t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
	if err := os.WriteFile(capture, []byte(b.String()+"500,10000000000,10037000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runLab(t, "replay", rec, "--verify", "--open-files"); code == 0 || !strings.Contains(stderr, "has changed since") {
		t.Errorf("verify with a changed trace file: exit %d: %s", code, stderr)
	}
}

func TestPeriodsFindTheHandover(t *testing.T) {
	// The handover scenario: 100 ms ± 20 ms, 4 % loss; at 20 s a 1 s
	// blackout; from 21 s 60 ms ± 10 ms, 1 % loss. --periods cuts each
	// direction into three: the first link, the blackout (within 2 packet
	// intervals of 20 s, times from the session's start), the second link
	// (within 2 intervals of 21 s); it fits each link on its own and
	// writes the blackout and the second link as the scenario's timeline.
	// Latency and jitter within 2 ms: 4 standard errors of ~400 packets at
	// σ 11.5 ms is 2.3 ms.
	dir := t.TempDir()
	packets, out := filepath.Join(dir, "p.csv"), filepath.Join(dir, "fitted.toml")
	if code, _, stderr := runLab(t, "run", "--scenario", "handover", "--packets", packets); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runLab(t, "fit", "--periods", "--out", out, packets)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	res := fitPeriods(t, packets)
	const interval = 50 * time.Millisecond
	for _, d := range res.Dirs {
		if len(d.Periods) != 3 || !d.Periods[1].Blackout {
			t.Fatalf("%s: %d periods, want 3, the second a blackout:\n%s", d.Name, len(d.Periods), stdout)
		}
		for i, at := range []time.Duration{20 * time.Second, 21 * time.Second} {
			if from := d.Periods[i+1].From; from < at || from > at+2*interval {
				t.Errorf("%s: period %d from %v, want within %v after %v", d.Name, i+2, from, 2*interval, at)
			}
		}
		for i, want := range []struct{ latency, jitter float64 }{{100, 20}, {60, 10}} {
			p := d.Periods[2*i].Fit.Params()
			if l, j := float64(p.Latency)/1e6, float64(p.Jitter)/1e6; math.Abs(l-want.latency) > 2 || math.Abs(j-want.jitter) > 2 {
				t.Errorf("%s period %d: %.2f ms ± %.2f ms, want %g ± %g", d.Name, 2*i+1, l, j, want.latency, want.jitter)
			}
		}
	}
	b, err := os.ReadFile(out)
	if err != nil || strings.Count(string(b), "[[timeline]]") != 4 || !strings.Contains(string(b), `duration = "40s"`) {
		t.Errorf("fitted.toml has no duration of 40 s or no timeline of the four changes: %v\n%s", err, b)
	}
	if code, _, stderr := runLab(t, "run", "--scenario", out, "--duration", "25s"); code != 0 {
		t.Errorf("lab run --scenario fitted.toml: exit %d: %s", code, stderr)
	}
}

// TestPeriodsFindABlackoutAndALatencyStep: a 45 s run at 50 ms ± 10 ms
// uniform, 2 % loss, whose timeline raises the latency to 90 ms at 15 s and
// blacks the link out (100 % loss) from 30 s to 31 s. `lab fit --periods`
// must cut each direction three times and write the blackout as a
// timeline entry of its own, with times from the session's start (the
// lab's own log has the lab's clock; the first packet is 0.47 s in):
//   - the blackout's start and end within 2 packet intervals (100 ms at the
//     client's 20 Hz): the first lost and the first delivered packet again;
//   - the latency step within 10 packet intervals (0.5 s): the step of 40 ms
//     is 4σ of uniform ± 10 ms jitter, so a few packets either side of it
//     can fit either level;
//   - each period's latency within 5σ/√n + the log's 1 µs, σ = 10/√3 ms;
//   - the scenario's duration 45 s, not the span of the sends.
func TestPeriodsFindABlackoutAndALatencyStep(t *testing.T) {
	dir := t.TempDir()
	sc, packets, out := filepath.Join(dir, "step.toml"), filepath.Join(dir, "p.csv"), filepath.Join(dir, "fitted.toml")
	if err := os.WriteFile(sc, []byte(`description = "a latency step, then a 1 s blackout"
duration = "45s"
link.latency = "50ms"
link.jitter = "10ms"
link.loss = "2%"

[[timeline]]
at = "15s"
link.latency = "90ms"

[[timeline]]
at = "30s"
link.loss = "100%"

[[timeline]]
at = "31s"
link.loss = "2%"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runLab(t, "run", "--scenario", sc, "--seed", "3", "--packets", packets); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runLab(t, "fit", "--periods", "--out", out, packets)
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	res := fitPeriods(t, packets)
	const interval = 50 * time.Millisecond
	for _, d := range res.Dirs {
		if len(d.Periods) != 4 {
			t.Fatalf("%s: %d periods, want 4 (50 ms, 90 ms, blackout, 90 ms):\n%s", d.Name, len(d.Periods), stdout)
		}
		for i, want := range []struct {
			at       time.Duration
			tol      time.Duration
			blackout bool
			latency  float64
		}{{0, 0, false, 50}, {15 * time.Second, 10 * interval, false, 90}, {30 * time.Second, 2 * interval, true, 0}, {31 * time.Second, 2 * interval, false, 90}} {
			p := d.Periods[i]
			if i > 0 && (p.From < want.at || p.From > want.at+want.tol) {
				t.Errorf("%s period %d starts at %v, want within %v after %v", d.Name, i+1, p.From, want.tol, want.at)
			}
			if p.Blackout != want.blackout {
				t.Errorf("%s period %d: blackout %v, want %v", d.Name, i+1, p.Blackout, want.blackout)
			}
			if want.blackout || p.Fit == nil {
				continue
			}
			got := float64(p.Fit.Params().Latency) / 1e6
			if tol := 5*10/math.Sqrt(3)/math.Sqrt(float64(p.Fit.Delivered)) + 0.002; math.Abs(got-want.latency) > tol {
				t.Errorf("%s period %d: latency %.3f ms, want %g ± %.3f", d.Name, i+1, got, want.latency, tol)
			}
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `duration = "45s"`) || strings.Count(string(b), "blackout = true") != 2 {
		t.Errorf("fitted.toml lacks the duration of 45 s or a blackout per direction:\n%s", b)
	}
	if code, _, stderr := runLab(t, "run", "--scenario", out); code != 0 {
		t.Errorf("lab run --scenario fitted.toml: exit %d: %s", code, stderr)
	}
}

// reorderedColumn counts, per direction, the delivered packets whose
// reordered column in the packets CSV at path is true.
func reorderedColumn(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for l := range strings.Lines(string(b)) {
		f := strings.Split(strings.TrimSpace(l), ",")
		if len(f) == 9 && f[4] == "delivered" && f[8] == "true" {
			n[f[0]]++
		}
	}
	return n
}

// fitPeriods fits the packets CSV at path as 'lab fit --periods' does.
func fitPeriods(t *testing.T, path string) *fit.Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := trace.Read(path, f, "auto")
	if err != nil {
		t.Fatal(err)
	}
	res, err := fit.Fit(tr, fit.Options{Periods: true})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Trace mode replays any capture lab fit reads: a proxy recording as it
// is (the same replay as its generic CSV, which `lab fit --csv` writes);
// a pcap, whose sequence numbers only --seq can find, is refused in one
// short line that says how to convert it, and its CSV replays the delays
// it captured.
func TestTraceModeReadsEveryCaptureLabFitReads(t *testing.T) {
	dir := t.TempDir()
	relay := filepath.Join("..", "..", "trace", "testdata", "relay.jlrec")
	relayCSV := filepath.Join(dir, "relay.csv")
	if code, _, stderr := runLab(t, "fit", "--csv", relayCSV, relay); code != 0 {
		t.Fatalf("lab fit --csv: %s", stderr)
	}
	logOf := func(capture string) string {
		t.Helper()
		out := filepath.Join(dir, "log.csv")
		if code, _, stderr := runLab(t, "run", "--duration", "20s", "--seed", "4", "--set", "up.trace="+capture, "--set", "down.trace="+capture, "--packets", out); code != 0 {
			t.Fatalf("run with the trace %s: exit %d: %s", capture, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if a, b := logOf(relay), logOf(relayCSV); a != b {
		t.Errorf("the recording and its CSV replay differently")
	}

	pcap, packets, pcapCSV := filepath.Join(dir, "sim.pcapng"), filepath.Join(dir, "p.csv"), filepath.Join(dir, "sim.csv")
	if code, _, stderr := runLab(t, "run", "--duration", "20s", "--seed", "3", "--set", "link.latency=25ms", "--set", "link.jitter=5ms",
		"--set", "up.loss=3%", "--pcap", pcap, "--packets", packets); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := runLab(t, "run", "--duration", "5s", "--set", "up.trace="+pcap)
	want := "lab fit " + pcap + " --seq OFFSET:WIDTH:ORDER --csv FILE.csv"
	if code == 0 || !strings.Contains(stderr, want) || len(stderr) > 600 {
		t.Errorf("a pcap as up.trace: exit %d, %q; want one short line with %q", code, stderr, want)
	}
	if code, _, stderr := runLab(t, "fit", "--seq", "1:4", "--csv", pcapCSV, pcap); code != 0 {
		t.Fatalf("lab fit --csv of the pcap: %s", stderr)
	}
	// The replay's up delays are the capture's: those of the run's own log.
	captured := map[string]bool{}
	for _, line := range strings.Split(readFile(t, packets), "\n") {
		if f := strings.Split(line, ","); len(f) > 6 && f[0] == "up" && f[4] == "delivered" {
			captured[f[6]] = true
		}
	}
	replayed, lost := 0, 0
	for _, line := range strings.Split(logOf(pcapCSV), "\n") {
		f := strings.Split(line, ",")
		switch {
		case len(f) < 7 || f[0] != "up":
		case f[4] == "lost":
			lost++
		case !captured[f[6]]:
			t.Fatalf("an up packet with a delay the pcap did not capture: %s", line)
		default:
			replayed++
		}
	}
	if replayed < 300 || lost == 0 {
		t.Errorf("the pcap's CSV replayed %d up packets, %d lost; want every one, some lost", replayed, lost)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An output that names a capture would write the fitted scenario (or the
// page, or the CSV) over the measurement itself: refused before anything
// is read or written, naming both, and the capture is left as it was.
func TestFitRefusesToWriteOverItsCapture(t *testing.T) {
	dir := t.TempDir()
	capture := filepath.Join(dir, "run.csv")
	orig, err := os.ReadFile(filepath.Join("..", "..", "fit", "testdata", "run.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(capture, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, flag := range []string{"--out", "--html", "--csv"} {
		code, _, stderr := runLab(t, "fit", flag, "./run.csv", "run.csv")
		if want := flag + " ./run.csv is the input run.csv"; code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("lab fit %s ./run.csv run.csv: exit %d, %q; want an error with %q", flag, code, stderr, want)
		}
		if now, _ := os.ReadFile(capture); !bytes.Equal(now, orig) {
			t.Fatalf("lab fit %s wrote over its capture", flag)
		}
	}
}

// The lab's duplicate is fitted and written, not dropped: 10 minutes with
// 3 % duplicates up (and 2 % loss, each copy lost on its own) and none
// down give back up.duplicate within 4 standard errors, and the down
// direction writes no duplicate key (a capture without duplicates writes
// what it wrote before). With --periods (a latency step at 5 minutes) each
// period carries the direction's duplicate, so the timeline does not
// switch it off.
func TestFitRecoversTheDuplicateRate(t *testing.T) {
	t.Parallel() // long and independent of the others
	dir := t.TempDir()
	scenario, packets, out := filepath.Join(dir, "dup.toml"), filepath.Join(dir, "p.csv"), filepath.Join(dir, "fitted.toml")
	const text = `duration = "10m"
link.latency = "30ms"
link.jitter = "5ms"
up.duplicate = "3%"
up.loss = "2%"

[[timeline]]
at = "5m"
link.latency = "80ms"
`
	if err := os.WriteFile(scenario, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runLab(t, "run", "--scenario", scenario, "--seed", "6", "--packets", packets); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runLab(t, "fit", "--periods", "--out", out, packets); code != 0 {
		t.Fatal(stderr)
	}
	fitted := readFile(t, out)
	var ups []float64
	for _, line := range strings.Split(fitted, "\n") {
		if v, ok := strings.CutPrefix(line, "up.duplicate = "); ok {
			f, err := strconv.ParseFloat(strings.Trim(v, `"%`), 64)
			if err != nil {
				t.Fatal(line)
			}
			ups = append(ups, f/100)
		}
		if strings.HasPrefix(line, "down.duplicate") {
			t.Errorf("a direction without duplicates writes %s", line)
		}
	}
	if len(ups) != 2 {
		t.Fatalf("up.duplicate written %d times, want in both periods:\n%s", len(ups), fitted)
	}
	const d, n = 0.03, 12000.0 // about 20 packets a second for 10 minutes
	tol := 4 * math.Sqrt(d*(1-d)/n)
	for _, got := range ups {
		if math.Abs(got-d) > tol {
			t.Errorf("up.duplicate %.4f, want %.2f ± %.4f", got, d, tol)
		}
	}
}

// lab fit --csv of a capture between two clocks writes the delays the fit
// saw: the clocks' offset split as the report says and a drift that stood
// out removed. A game's log whose server clock is 5 s ahead and 40 ppm
// fast (down delays about −5 s) then replays in trace mode (the raw
// delays are refused), and fitted again it gives the same link with
// nothing left to remove.
func TestFitCSVWritesTheDelaysTheFitSaw(t *testing.T) {
	dir := t.TempDir()
	game, fixed := filepath.Join(dir, "game.csv"), filepath.Join(dir, "fixed.csv")
	var b strings.Builder
	b.WriteString("dir,seq,send_ns,recv_ns\n")
	const t0, offset, ppm = int64(1_700_000_000_000_000_000), int64(5e9), 40e-6
	server := func(t int64) int64 { return t + offset + int64(float64(t-t0)*ppm) }
	for i := range 6000 {
		at := t0 + int64(i)*50e6
		delay := int64(30e6 + 4e6*math.Sin(float64(i)*1.3)) // spread within 26–34 ms
		if i%50 != 7 {
			fmt.Fprintf(&b, "up,%d,%d,%d\n", i, at, server(at+delay))
		}
		if i%40 != 3 {
			fmt.Fprintf(&b, "down,%d,%d,%d\n", i, server(at+20e6), at+20e6+delay)
		}
	}
	if err := os.WriteFile(game, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, report, stderr := runLab(t, "fit", "--csv", fixed, "--out", filepath.Join(dir, "a.toml"), game)
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.Contains(report, "offset put a floor out of range") {
		t.Fatalf("the capture's offset was not split:\n%s", report)
	}
	if code, _, stderr := runLab(t, "run", "--duration", "20s", "--set", "up.trace="+fixed, "--set", "down.trace="+fixed); code != 0 {
		t.Errorf("trace mode of the written CSV: %s", stderr)
	}
	code, again, stderr := runLab(t, "fit", "--out", filepath.Join(dir, "b.toml"), fixed)
	if code != 0 {
		t.Fatal(stderr)
	}
	if strings.Contains(again, "offset put a floor") {
		t.Errorf("fitted again, the CSV still has an offset to split:\n%s", again)
	}
	// What drift is left is the estimator's own wobble: below 1 ppm (0.3
	// ms over the 5 minutes), not the 40 ppm the clocks had.
	for _, m := range regexp.MustCompile(`clock drift +([-+0-9.]+) ppm`).FindAllStringSubmatch(again, -1) {
		if v, _ := strconv.ParseFloat(m[1], 64); math.Abs(v) > 1 {
			t.Errorf("fitted again, the CSV has %s ppm of drift left", m[1])
		}
	}
	a, bb := loadFitted(t, filepath.Join(dir, "a.toml")), loadFitted(t, filepath.Join(dir, "b.toml"))
	for _, d := range [][2]netem.Params{{a.Up, bb.Up}, {a.Down, bb.Down}} {
		if diff := d[0].Latency - d[1].Latency; diff < -2*time.Microsecond || diff > 2*time.Microsecond || d[0].Loss != d[1].Loss {
			t.Errorf("the capture fits %v, %.4f; its CSV %v, %.4f", d[0].Latency, d[0].Loss, d[1].Latency, d[1].Loss)
		}
	}
}

// When the fit cannot be made (too few packets of the flows taken), the
// error comes with what the reader took and skipped — the read: lines of
// the report — so the user sees which flows and numbers it used.
func TestFitErrorSaysWhatWasRead(t *testing.T) {
	dir := t.TempDir()
	pcap := filepath.Join(dir, "sim.pcapng")
	if code, _, stderr := runLab(t, "run", "--duration", "1s", "--pcap", pcap); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := runLab(t, "fit", "--seq", "1:4", pcap)
	if code == 0 || !strings.Contains(stderr, "the fit needs at least 20") || !strings.Contains(stderr, "read: sequence number: 4 bytes at payload offset 1") {
		t.Errorf("exit %d, stderr:\n%s\nwant the fit's error with the read: lines", code, stderr)
	}
}
