package lab

import (
	"math"
	"strings"
	"testing"
	"time"

	"jitterlab/netem"
	"jitterlab/sim"
)

// The presets of issue 13 carry their source's numbers, converted to the
// lab's one-way-per-direction values as their source line says, and every
// one says whether the source's values are one-way or round trip.
func TestSourcedPresetsMatchTheirSources(t *testing.T) {
	for _, p := range []struct {
		name            string
		latency, jitter time.Duration
		dist            netem.Dist
		loss            float64
		unit            string // how the source line names the source's unit
	}{
		// Netcode for Entities: Broadband [WIFI] base 1/1/1 plus the profile's offsets.
		{"unity-regional-p50", 66 * msD, 11 * msD, netem.Uniform, 0.03, "one-way"},
		{"unity-regional-p95", 151 * msD, 11 * msD, netem.Uniform, 0.04, "one-way"},
		{"unity-international-p50", 121 * msD, 11 * msD, netem.Uniform, 0.03, "one-way"},
		{"unity-international-p95", 201 * msD, 16 * msD, netem.Uniform, 0.06, "one-way"},
		{"starlink", 13665 * time.Microsecond, 4090 * time.Microsecond, netem.Exponential, 0, "round trip"},
		{"campus-wifi", 20736 * time.Microsecond, 38726 * time.Microsecond, netem.Pareto, 0, "round trip"},
		{"inflight-wifi", 395 * msD, 0, netem.Uniform, 1 - math.Sqrt(1-0.13), "round trip"},
	} {
		sc, err := LoadScenario(p.name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		if err := ApplyScenario(&cfg, sc); err != nil {
			t.Fatal(err)
		}
		for _, l := range []netem.Params{cfg.Up, cfg.Down} {
			if l.Latency != p.latency || l.Jitter != p.jitter || l.JitterDist != p.dist || math.Abs(l.Loss-p.loss) > 5e-7 {
				t.Errorf("%s: %v %v %v %v, want %v %v %v %v", p.name, l.Latency, l.Jitter, l.JitterDist, l.Loss, p.latency, p.jitter, p.dist, p.loss)
			}
		}
		if !strings.Contains(sc.Source, p.unit) {
			t.Errorf("%s: the source line does not say the source's values are %s: %s", p.name, p.unit, sc.Source)
		}
	}
}

// The presets fitted to percentiles hit them: the share of one-way delays
// below each target is the percentile (starlink: 16.5 ms p50 and 32.5 ms
// p99, half of SpaceX's 33 and 65 ms round trip; campus-wifi: 10 ms p50 and
// 50 ms p90, half of the paper's 20 and 100 ms over the Wi-Fi hop).
func TestPercentilePresetsHitTheirPercentiles(t *testing.T) {
	for _, c := range []struct {
		name    string
		targets map[float64]time.Duration // percentile → one-way delay
	}{
		{"starlink", map[float64]time.Duration{0.5: 16500 * time.Microsecond, 0.99: 32500 * time.Microsecond}},
		{"campus-wifi", map[float64]time.Duration{0.5: 10 * msD, 0.9: 50 * msD}},
	} {
		sc, err := LoadScenario(c.name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		if err := ApplyScenario(&cfg, sc); err != nil {
			t.Fatal(err)
		}
		l, err := netem.New(3, "up", cfg.Up)
		if err != nil {
			t.Fatal(err)
		}
		const n = 200000
		delays := make([]time.Duration, 0, n)
		for i := range n {
			now := sim.Time(int64(i) * int64(msD))
			r := l.Send(now, netem.Packet{ID: uint64(i), Size: 60})
			delays = append(delays, r.At[0].Sub(now))
		}
		for p, target := range c.targets {
			below := 0
			for _, d := range delays {
				if d <= target {
					below++
				}
			}
			got := float64(below) / n
			if tol := 5 * math.Sqrt(p*(1-p)/n); math.Abs(got-p) > tol {
				t.Errorf("%s: %.4g of one-way delays ≤ %v, want %.4g ± %.2g", c.name, got, target, p, tol)
			} else {
				t.Logf("%s: %.4g of one-way delays ≤ %v (want %.4g ± %.2g)", c.name, got, target, p, tol)
			}
		}
	}
}

// lab scenarios -v shows the conversion: one-way values per direction and
// what they make for a round trip.
func TestDescribeLinksShowsOneWayAndRoundTrip(t *testing.T) {
	for name, want := range map[string]string{
		"lightyear-poor":     "one-way up 100ms ± 15ms uniform, loss 5.1317%; down 100ms ± 15ms uniform, loss 5.1317%; round trip 200ms before jitter, a round trip loses 10%",
		"unity-regional-p50": "one-way up 66ms ± 11ms uniform, loss 3%; down 66ms ± 11ms uniform, loss 3%; round trip 132ms before jitter, a round trip loses 5.91%",
		"starlink":           "one-way up 13.665ms + exponential of mean 4.09ms, loss 0%; down 13.665ms + exponential of mean 4.09ms, loss 0%; round trip 27.33ms before jitter, a round trip loses 0%",
	} {
		sc, err := LoadScenario(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		if err := ApplyScenario(&cfg, sc); err != nil {
			t.Fatal(err)
		}
		if got := DescribeLinks(cfg); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}
