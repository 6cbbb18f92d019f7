package lab

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"jitterlab/metrics"
	"jitterlab/scenarios"
	"jitterlab/sim"
)

const msD = time.Millisecond

// The presets' one-way values per direction, from their sources (the
// lightyear ones are round trip at the source and split in two here).
var presetTable = []struct {
	name    string
	latency time.Duration
	jitter  time.Duration
	loss    float64
	source  string // a word the source line must contain
}{
	{"perfect", 0, 0, 0, "Unity"},
	{"home-fiber", 10 * msD, 1 * msD, 0, "HomeOptical"},
	{"home-cable", 25 * msD, 5 * msD, 0, "HomeCable"},
	{"home-dsl", 30 * msD, 10 * msD, 0, "HomeDSL"},
	{"home-broadband", 32 * msD, 12 * msD, 0.02, "HomeBroadband"},
	{"home-satellite", 100 * msD, 10 * msD, 0, "HomeSatellite"},
	{"home-congested", 50 * msD, 50 * msD, 0.01, "HomeCongestedNetwork"},
	{"mobile-2g", 520 * msD, 50 * msD, 0.07, "Mobile2G"},
	{"mobile-2.5g", 480 * msD, 40 * msD, 0.07, "Mobile2_5G"},
	{"mobile-2.75g", 440 * msD, 40 * msD, 0.07, "Mobile2_75G"},
	{"mobile-3g", 360 * msD, 30 * msD, 0.07, "Mobile3G"},
	{"mobile-3.5g", 160 * msD, 30 * msD, 0.06, "Mobile3_5G"},
	{"mobile-3.75g", 130 * msD, 30 * msD, 0.06, "Mobile3_75G"},
	{"mobile-4g", 100 * msD, 20 * msD, 0.04, "Mobile4G"},
	{"mobile-4.5g", 80 * msD, 20 * msD, 0.04, "Mobile4_5G"},
	{"mobile-5g", 30 * msD, 20 * msD, 0.04, "Mobile5G"},
	{"unreal-average", 45 * msD, 15 * msD, 0.01, "Average"},
	{"unreal-bad", 150 * msD, 50 * msD, 0.05, "Bad"},
	{"lightyear-good", 20 * msD, 3 * msD, 1 - math.Sqrt(1-0.002), "good_condition"},
	{"lightyear-average", 50 * msD, 7500 * time.Microsecond, 1 - math.Sqrt(1-0.02), "average_condition"},
	{"lightyear-poor", 100 * msD, 15 * msD, 1 - math.Sqrt(1-0.10), "poor_condition"},
	{"lan", 500 * time.Microsecond, 200 * time.Microsecond, 0, "LAN"},
}

func TestPresetsMatchTheirSources(t *testing.T) {
	for _, p := range presetTable {
		sc, err := LoadScenario(p.name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := DefaultConfig()
		if err := ApplyScenario(&cfg, sc); err != nil {
			t.Fatal(err)
		}
		for _, l := range []struct {
			dir string
			lat time.Duration
			jit time.Duration
			los float64
		}{{"up", cfg.Up.Latency, cfg.Up.Jitter, cfg.Up.Loss}, {"down", cfg.Down.Latency, cfg.Down.Jitter, cfg.Down.Loss}} {
			if l.lat != p.latency || l.jit != p.jitter || math.Abs(l.los-p.loss) > 1e-6 {
				t.Errorf("%s %s: %v/%v/%v, want %v/%v/%v", p.name, l.dir, l.lat, l.jit, l.los, p.latency, p.jitter, p.loss)
			}
		}
		if !strings.Contains(sc.Source, p.source) || !(strings.Contains(sc.Source, "one-way") || strings.Contains(sc.Source, "round trip")) {
			t.Errorf("%s: source %q should name %s and say one-way or round trip", p.name, sc.Source, p.source)
		}
	}
	// The Unity Multiplayer Tools list has 16 presets (None is "perfect").
	unity := 0
	for _, p := range presetTable {
		if sc, _ := LoadScenario(p.name); strings.Contains(sc.Source, "Unity Multiplayer Tools") {
			unity++
		}
	}
	if unity != 16 {
		t.Fatalf("%d Unity presets, want 16", unity)
	}
}

func TestEveryBuiltinAndExampleLoadsAndRuns(t *testing.T) {
	examples, _ := filepath.Glob("../scenarios/examples/*.toml")
	if len(examples) < 3 {
		t.Fatalf("only %d examples", len(examples))
	}
	names := append(scenarios.BuiltinNames(), examples...)
	for _, name := range names {
		t.Run(filepath.Base(name), func(t *testing.T) {
			sc, err := LoadScenario(name)
			if err != nil {
				t.Fatal(err)
			}
			if sc.Description == "" || sc.Source == "" {
				t.Error("a scenario needs a description and a source")
			}
			s, cfg := scenarioSession(t, sc, 50*time.Millisecond)
			if err := s.Run(sim.Time(cfg.Duration)); err != nil {
				t.Fatal(err)
			}
			var changes int
			gen, err := sc.Generated(cfg.Duration) // oscillators and flaps
			if err != nil {
				t.Fatal(err)
			}
			for _, ch := range append(sc.Timeline, gen...) {
				if ch.At <= cfg.Duration {
					changes += len(ch.Set)
				}
			}
			if len(s.Changes()) != changes {
				t.Fatalf("applied %d changes, the timeline has %d", len(s.Changes()), changes)
			}
			if sum := s.Summary(); sum.InputsSent == 0 || sum.Up.Delivered == 0 {
				t.Fatalf("nothing happened: %+v", sum)
			}
		})
	}
}

func TestScenarioTimelineShowsInCSV(t *testing.T) {
	// latency-spike: 25 ms each way, 300 ms from 20 s to 22 s.
	cfg, sc := scenarioConfig(t, "latency-spike")
	s, _ := New(cfg, 50*time.Millisecond)
	s.ScheduleTimeline(sc)
	first, lateHigh := -1.0, 0
	s.OnSample = func(x *metrics.Sample) {
		if x.RTTMs > 400 && first < 0 {
			first = x.TS
		}
		if x.TS > 22.4 && x.RTTMs > 100 {
			lateHigh++
		}
	}
	// The first downlink packet sent after the change at 20 s (the server
	// step at 20 s sends before it applies) is the first whose round trip
	// has both legs slow.
	slowAt := sim.Time(-1)
	s.OnPacket = func(p *PacketRecord) {
		if p.Dir == "down" && p.Status == "delivered" && p.SentAt > sim.Time(20*time.Second) && slowAt < 0 {
			slowAt = p.At
		}
	}
	if err := s.Run(sim.Time(cfg.Duration)); err != nil {
		t.Fatal(err)
	}
	// It is sent at the next step, 20.05 s, and arrives 300 ± 5 ms later;
	// the first sample at or after its arrival shows the spike.
	if slowAt < sim.Time(20345*time.Millisecond) || slowAt > sim.Time(20355*time.Millisecond) {
		t.Fatalf("the first slow downlink packet arrived at %v, want 20.35 s ± 5 ms", slowAt)
	}
	want := math.Ceil(slowAt.Seconds()/0.05-1e-9) * 0.05
	if math.Abs(first-want) > 1e-9 {
		t.Fatalf("RTT first above 400 ms at %.2f s, want %.2f s: the first sample after the first slow packet (%v)", first, want, slowAt)
	}
	if lateHigh > 0 {
		t.Fatalf("%d samples after 22.4 s still show the spike", lateHigh)
	}
}

func TestScenarioFileTypoNamesFileLineAndKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.toml")
	os.WriteFile(path, []byte("description = \"x\"\n[up]\njiter = \"5ms\"\n"), 0o644)
	_, err := LoadScenario(path)
	if err == nil || !strings.Contains(err.Error(), path+":3") || !strings.Contains(err.Error(), `"up.jiter"`) || !strings.Contains(err.Error(), "up.jitter") {
		t.Fatalf("error %v: want file:3, the key up.jiter and the suggestion up.jitter", err)
	}
	os.WriteFile(path, []byte("[[timeline]]\nat = \"5s\"\nlink.loss = \"150%\"\n"), 0o644)
	if _, err := LoadScenario(path); err == nil || !strings.Contains(err.Error(), ":3") || !strings.Contains(err.Error(), "link.loss") {
		t.Fatalf("bad timeline value: %v", err)
	}
}

// scenarioConfig loads a scenario and applies it to the default config.
func scenarioConfig(t *testing.T, name string) (Config, *scenarios.Scenario) {
	t.Helper()
	sc, err := LoadScenario(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	if err := ApplyScenario(&cfg, sc); err != nil {
		t.Fatal(err)
	}
	return cfg, sc
}

// Issue 9 QA 3: an override pins its key for the whole run: the timeline's
// and the generators' changes to it are dropped and listed; a link.X change
// loses only the pinned direction's half.
func TestSetPinsItsKey(t *testing.T) {
	sc, err := scenarios.Parse("pin.toml", []byte(`duration = "20s"
[[timeline]]
at = "5s"
link.latency = "80ms"
client.drift_ppm = "+2%"
[[flap]]
period = "5s"
down = "1s"
dir = "down"
`), CheckAssignment)
	if err != nil {
		t.Fatal(err)
	}
	sc.Pinned = []string{"up.latency", "link.blackout"}
	gen, err := sc.Generated(20 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	keep, dropped := scenarios.Unpinned(sc.Pinned, append(sc.Timeline, gen...))
	if len(keep) != 1 {
		t.Fatalf("kept %+v: want only the 5s entry", keep)
	}
	var sets []string
	for _, a := range keep[0].Set {
		sets = append(sets, a.Key+"="+a.Value)
	}
	if got := strings.Join(sets, " "); got != "down.latency=80ms client.drift_ppm=+2%" {
		t.Errorf("5s entry keeps %q", got)
	}
	if got := strings.Join(dropped, ", "); got != "5s up.latency=80ms, down.blackout: 8 changes 4s … 20s" {
		t.Errorf("dropped %q", got)
	}
}

// scenarioSession is a session of sc on the default configuration,
// sampled every every (0: the default period), with sc's timeline
// scheduled; and its configuration.
func scenarioSession(t testing.TB, sc *scenarios.Scenario, every time.Duration) (*Session, Config) {
	t.Helper()
	cfg := DefaultConfig()
	if err := ApplyScenario(&cfg, sc); err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg, every)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ScheduleTimeline(sc); err != nil {
		t.Fatal(err)
	}
	return s, cfg
}

// ParseScenario is what 'lab run --scenario FILE' would load: a scenario
// that parses and applies to the defaults, or the first error naming the
// file and line.
func TestParseScenario(t *testing.T) {
	sc, err := ParseScenario("fitted.toml", []byte("description = \"x\"\n[up]\nlatency = \"20ms\"\njitter = \"5ms\"\n"))
	if err != nil || sc.File != "fitted.toml" || len(sc.Params) != 2 {
		t.Fatalf("ParseScenario = %+v, %v; want the two settings of fitted.toml", sc, err)
	}
	for _, c := range []struct{ text, want string }{
		{"[up]\njiter = \"5ms\"\n", `fitted.toml:2`},
		{"[up]\nloss = \"150%\"\n", `fitted.toml:2`},
		{"[server]\ntick = \"0s\"\n", `server.tick`},
	} {
		if _, err := ParseScenario("fitted.toml", []byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want an error naming %s", c.text, err, c.want)
		}
	}
}
