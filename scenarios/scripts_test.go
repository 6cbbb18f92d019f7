package scenarios

import (
	"testing"
	"time"

	"jitterlab/motion"
	"jitterlab/sim"
)

func at(d time.Duration) sim.Time { return sim.Time(d) }

func TestBuiltinScripts(t *testing.T) {
	cases := []struct {
		name string
		at   time.Duration
		want motion.Input
	}{
		{"steady", 0, motion.Input{Throttle: 1}},
		{"steady", time.Hour, motion.Input{Throttle: 1}},
		{"turn", 3 * time.Second, motion.Input{Turn: 0.5, Throttle: 1}},
		{"zigzag", 500 * time.Millisecond, motion.Input{Turn: 1, Throttle: 1}},
		{"zigzag", 1500 * time.Millisecond, motion.Input{Turn: -1, Throttle: 1}},
		{"zigzag", 2500 * time.Millisecond, motion.Input{Turn: 1, Throttle: 1}},
		{"stopgo", 1999 * time.Millisecond, motion.Input{Throttle: 1}},
		{"stopgo", 2 * time.Second, motion.Input{}},
		{"stopgo", 3 * time.Second, motion.Input{Throttle: 1}},
	}
	for _, c := range cases {
		s, err := NewScript(c.name, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Input(at(c.at)); got != c.want {
			t.Errorf("%s at %v: %+v, want %+v", c.name, c.at, got, c.want)
		}
	}
	if _, err := NewScript("moonwalk", nil); err == nil {
		t.Fatal("unknown script accepted")
	}
}

func TestRandomWalkDependsOnlyOnSeedAndTime(t *testing.T) {
	// Sampled every frame or every 7 ms, the walk gives the same controls
	// at the same time; it stays within its bounds.
	a := NewRandomWalk(sim.NewRand(3, "input.script"))
	b := NewRandomWalk(sim.NewRand(3, "input.script"))
	var moved bool
	for ms := 0; ms <= 60000; ms += 7 {
		ia := a.Input(at(time.Duration(ms) * time.Millisecond))
		if ms%49 == 0 {
			if ib := b.Input(at(time.Duration(ms) * time.Millisecond)); ib != ia {
				t.Fatalf("at %d ms: %+v vs %+v", ms, ia, ib)
			}
		}
		if ia.Turn < -1 || ia.Turn > 1 || ia.Throttle < 0 || ia.Throttle > 1 {
			t.Fatalf("out of bounds at %d ms: %+v", ms, ia)
		}
		moved = moved || ia.Turn != 0
	}
	if !moved {
		t.Fatal("the random walk never turned")
	}
	c := NewRandomWalk(sim.NewRand(4, "input.script"))
	if c.Input(at(30*time.Second)) == a.Input(at(30*time.Second)) {
		t.Fatal("another seed gave the same walk")
	}
}
