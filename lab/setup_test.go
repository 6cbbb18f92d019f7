package lab

import (
	"slices"
	"testing"
	"time"

	"jitterlab/sim"
)

// A session's Setup builds it again: starlink's oscillator, a live change
// at the time of one of its changes and one after give the same changes
// and summary from t 0.
func TestSetupStartsTheSameSession(t *testing.T) {
	sc, err := LoadScenario("starlink")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	if err := ApplyScenario(&cfg, sc); err != nil {
		t.Fatal(err)
	}
	cfg.Duration = 40 * time.Second
	s, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ScheduleTimeline(sc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []Change{{At: sim.Time(15 * time.Second), Key: "link.latency", Value: "90ms"}, {At: sim.Time(20 * time.Second), Key: "up.jitter", Value: "9ms"}} {
		if err := s.Run(c.At); err != nil {
			t.Fatal(err)
		}
		if err := s.Schedule(c.At, c.Key, c.Value); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Run(sim.Time(32 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := len(s.Setup().Live); got != 2 {
		t.Fatalf("Setup holds %d live changes, want the 2 scheduled (not the timeline's)", got)
	}
	twin, err := Rerun(s, func(*Session) {})
	if err != nil {
		t.Fatal(err)
	}
	// 15 s: the oscillator's raise, then the live 90 ms; 15.3 s: its fall.
	want := []Change{
		{At: sim.Time(15 * time.Second), Key: "link.latency", Value: "50.665ms"},
		{At: sim.Time(15 * time.Second), Key: "link.latency", Value: "90ms"},
		{At: sim.Time(15300 * time.Millisecond), Key: "link.latency", Value: "13.665ms"},
		{At: sim.Time(20 * time.Second), Key: "up.jitter", Value: "9ms"},
		{At: sim.Time(30 * time.Second), Key: "link.latency", Value: "50.665ms"},
		{At: sim.Time(30300 * time.Millisecond), Key: "link.latency", Value: "13.665ms"},
	}
	if !slices.Equal(twin.Changes(), want) {
		t.Fatalf("the rerun's changes %v\nwant %v", twin.Changes(), want)
	}
	if err := s.ScheduleTimeline(sc); err == nil {
		t.Error("a second timeline scheduled on the same session")
	}
}

// Edited and Overrides: live changes made at t 0, said as --set on the
// scenario in registry order; a link key is said per direction.
func TestEditedAndOverrides(t *testing.T) {
	sc, err := LoadScenario("latency-spike")
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	if err := ApplyScenario(&cfg, sc); err != nil {
		t.Fatal(err)
	}
	u := Setup{Config: cfg, Scenario: sc, Live: []Change{
		{At: sim.Time(time.Second), Key: "up.jitter", Value: "40ms"},
		{At: sim.Time(2 * time.Second), Key: "link.latency", Value: "80ms"},
		{At: sim.Time(3 * time.Second), Key: "up.jitter", Value: "30ms"},
	}}
	ed, err := u.Edited()
	if err != nil {
		t.Fatal(err)
	}
	if ed.Up.Jitter != 30*time.Millisecond || ed.Up.Latency != 80*time.Millisecond || ed.Down.Latency != 80*time.Millisecond {
		t.Fatalf("Edited %+v %+v: the last value of each key", ed.Up, ed.Down)
	}
	name, sets, exact, err := u.Overrides()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"up.latency=80ms", "up.jitter=30ms", "down.latency=80ms"}; name != "latency-spike" || !slices.Equal(sets, want) || !exact {
		t.Fatalf("Overrides %s %v %v, want latency-spike %v exact", name, sets, exact, want)
	}
	u.Scenario.Pinned = []string{"client.snap"} // pinned, not set: no command line says it
	if _, _, exact, _ := u.Overrides(); exact {
		t.Error("a pin the overrides do not set called exact")
	}
}
