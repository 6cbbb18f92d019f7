package lab

import (
	"strings"
	"testing"
	"time"

	"jitterlab/scenarios"
	"jitterlab/sim"
)

// Oscillators and flaps act at exact virtual times: every uplink packet
// sent after a square edge (and up to the next) has the edge's latency
// exactly, every downlink packet sent while the flap is down is lost and no
// other, and the session's change log (the lab's change marks) holds the
// edges at their times. A change at T applies to packets sent after T.
func TestOscillatorAndFlapTimingIsExact(t *testing.T) {
	sc, err := scenarios.Parse("t.toml", []byte(`
duration = "20s"
up.latency = "40ms"
down.latency = "30ms"

[[oscillate]]
key = "up.latency"
period = "2s"
low = "40ms"
high = "114ms"
shape = "square"
start = "1s"
duty = 0.1

[[flap]]
dir = "down"
period = "3s"
down = "500ms"
`), CheckAssignment)
	if err != nil {
		t.Fatal(err)
	}
	s, cfg := scenarioSession(t, sc, 0)
	// in reports whether x lies in (start + k·period, start + k·period + width].
	in := func(x sim.Time, start, period, width time.Duration) bool {
		d := time.Duration(x) - start
		if d <= 0 {
			return false
		}
		k := (d - 1) / period
		return d-k*period <= width
	}
	var up, lostDown, down int
	s.OnPacket = func(r *PacketRecord) {
		switch r.Dir {
		case "up":
			if r.Status != "delivered" {
				t.Fatalf("up packet sent at %v: %s", r.SentAt, r.Status)
			}
			want := 40 * time.Millisecond
			if in(r.SentAt, time.Second, 2*time.Second, 200*time.Millisecond) {
				want = 114 * time.Millisecond
			}
			if got := r.At.Sub(r.SentAt); got != want {
				t.Fatalf("up packet sent at %v took %v, want %v", r.SentAt, got, want)
			}
			up++
		case "down":
			down++
			flapped := in(r.SentAt, 2500*time.Millisecond, 3*time.Second, 500*time.Millisecond)
			if (r.Status == "lost") != flapped {
				t.Fatalf("down packet sent at %v: %s (flap down: %v)", r.SentAt, r.Status, flapped)
			}
			if flapped {
				lostDown++
			}
		}
	}
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	if up < 300 || lostDown < 50 || down-lostDown < 300 {
		t.Fatalf("too few packets to tell: %d up, %d of %d down lost", up, lostDown, down)
	}
	var edges []string
	for _, c := range s.Changes() {
		edges = append(edges, c.At.String()+" "+c.Key+"="+c.Value)
	}
	want := []string{}
	for k := range 10 {
		base := time.Second + time.Duration(k)*2*time.Second
		want = append(want, sim.Time(base).String()+" up.latency=114ms", sim.Time(base+200*time.Millisecond).String()+" up.latency=40ms")
	}
	for k := range 6 {
		base := 2500*time.Millisecond + time.Duration(k)*3*time.Second
		if base <= 20*time.Second {
			want = append(want, sim.Time(base).String()+" down.blackout=true")
		}
		if base+500*time.Millisecond <= 20*time.Second {
			want = append(want, sim.Time(base+500*time.Millisecond).String()+" down.blackout=false")
		}
	}
	got := map[string]bool{}
	for _, e := range edges {
		got[e] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("change log lacks %q; it has %v", w, edges)
		}
	}
	if len(edges) != len(want) {
		t.Errorf("change log has %d entries, want %d", len(edges), len(want))
	}
}

// The link keys of issue 13 read back what they were set to, for both
// directions and link.*, and bad values name the key.
func TestRealismKeysRoundTrip(t *testing.T) {
	for key, value := range map[string]string{
		"shape_rate":  "8mbit",
		"shape_burst": "3000",
		"shape_limit": "50ms",
		"slot":        "5ms 15ms packets 8 bytes 3000",
		"loss_model":  "state 5% 30% 20% 10% 1%",
		"bad_delay":   "30ms",
		"spike":       "0.5%",
		"spike_delay": "400ms",
		"blackout":    "true",
	} {
		for _, dir := range []string{"up", "down", "link"} {
			cfg := DefaultConfig()
			k := dir + "." + key
			if err := Set(&cfg, k, value); err != nil {
				t.Fatalf("%s=%s: %v", k, value, err)
			}
			p, _ := Lookup(k)
			if got := p.Get(&cfg); got != value {
				t.Errorf("%s=%s reads back as %q", k, value, got)
			}
		}
	}
	for key, value := range map[string]string{
		"up.shape_limit": "-3",
		"up.slot":        "9ms 3ms",
		"up.loss_model":  "state 70% 0 0 1 40%",
		"up.spike":       "2",
		"up.shape_rate":  "5bit",
	} {
		cfg := DefaultConfig()
		err := Set(&cfg, key, value)
		if err == nil || !strings.HasPrefix(err.Error(), key+": bad value") {
			t.Errorf("%s=%s: error %v", key, value, err)
		}
	}
}

// A recording's header carries the new link settings: the configuration
// rebuilt from it is the one recorded.
func TestRealismKeysInRecordingHeader(t *testing.T) {
	cfg := DefaultConfig()
	for _, kv := range []string{"up.shape_rate=8mbit", "up.shape_burst=3000", "down.shape_limit=50ms",
		"up.slot=5ms 15ms packets 8", "down.loss_model=state 5% 30% 20% 10% 1%", "up.loss_model=gemodel 1% 10% 70% 0.1%",
		"link.bad_delay=30ms", "up.spike=1%", "up.spike_delay=400ms", "down.blackout=true"} {
		k, v, _ := strings.Cut(kv, "=")
		if err := Set(&cfg, k, v); err != nil {
			t.Fatal(err)
		}
	}
	back, err := ConfigFromHeader(HeaderOf(cfg, "", 50*time.Millisecond), Untrusted)
	if err != nil {
		t.Fatal(err)
	}
	if back.Up != cfg.Up || back.Down != cfg.Down {
		t.Fatalf("links rebuilt from the header:\n%+v\n%+v\nwant\n%+v\n%+v", back.Up, back.Down, cfg.Up, cfg.Down)
	}
}
