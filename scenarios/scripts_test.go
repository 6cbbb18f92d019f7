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

// Segments reused over many calls (it remembers the last segment found)
// answer as fresh ones: at frame steps, on the segments' edges, back in
// time and before 0.
func TestSegmentsAnswerAsFreshOnes(t *testing.T) {
	segs := []Segment{{2 * time.Second, 0.5, 1}, {500 * time.Millisecond, 0, -0.5}, {1, -1, 0}, {time.Second, 0, 0.25}}
	reused, _ := NewSegments(segs)
	var times []sim.Time
	for k := range int64(400) { // 60 fps over two cycles
		times = append(times, sim.GridTime(k, 60))
	}
	for _, edge := range []time.Duration{0, 2 * time.Second, 2500 * time.Millisecond, 2500*time.Millisecond + 1, 3500*time.Millisecond + 1} {
		times = append(times, at(edge-1), at(edge), at(edge+1), at(edge+7000*time.Millisecond+1))
	}
	times = append(times, at(-1), at(-time.Second), at(-3500*time.Millisecond-1), at(time.Hour), 0, at(-2*time.Second))
	for i, tm := range times {
		fresh, _ := NewSegments(segs)
		if got, want := reused.Input(tm), fresh.Input(tm); got != want {
			t.Fatalf("call %d at %v: %+v, a fresh Segments says %+v", i, tm, got, want)
		}
	}
}
