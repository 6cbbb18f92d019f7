package motion

import (
	"math"
	"testing"
	"time"
)

const ms = time.Millisecond

func TestStepRotatesFirst(t *testing.T) {
	// Half a second of full turn at 180 °/s turns 90°: the tank, facing +y,
	// moves along +x in the same step because rotation comes first.
	p := Step(Pose{}, Input{Turn: 1, Throttle: 1}, 500*ms, DefaultTuning)
	if p.Rot != 90 || math.Abs(p.X-1) > 1e-15 || math.Abs(p.Y) > 1e-15 {
		t.Fatalf("got %+v, want rot 90 at (1, 0)", p)
	}
	p = Step(Pose{}, Input{Throttle: 1}, time.Second, DefaultTuning)
	if p != (Pose{Y: 2}) {
		t.Fatalf("1s at full throttle: %+v, want (0, 2)", p)
	}
}

func TestSubsteps(t *testing.T) {
	k := DefaultTuning
	cases := []struct {
		name string
		in   Input
		dur  time.Duration
		want []time.Duration
	}{
		{"replay 0.15s = 3 × 0.05s", Input{Throttle: 1}, 150 * ms, []time.Duration{50 * ms, 50 * ms, 50 * ms}},
		{"replay 0.12s = 0.05 + 0.05 + 0.02", Input{Throttle: 1}, 120 * ms, []time.Duration{50 * ms, 50 * ms, 20 * ms}},
		{"turn 0.5 for 0.10s = 2 substeps, heading feeds forward", Input{Turn: 0.5, Throttle: 1}, 100 * ms, []time.Duration{50 * ms, 50 * ms}},
		{"zero duration does nothing", Input{Throttle: 1}, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := Pose{X: 1, Y: -2, Rot: 30}
			want := start
			for _, st := range c.want {
				want = Step(want, c.in, st, k)
			}
			got := Substeps(start, c.in, c.dur, 50*ms, k)
			if got != want {
				t.Fatalf("Substeps = %+v, explicit steps %v give %+v", got, c.want, want)
			}
		})
	}
}

func TestTurnAndMoveDiffersFromOneLongStep(t *testing.T) {
	// The pre-fix bug (spec 004): one long integration ends elsewhere when
	// the heading changes, because the forward direction depends on it.
	in := Input{Turn: 0.5, Throttle: 1}
	sub := Substeps(Pose{}, in, 100*ms, 50*ms, DefaultTuning)
	one := Step(Pose{}, in, 100*ms, DefaultTuning)
	if sub.Rot != one.Rot {
		t.Fatalf("headings differ: %v vs %v", sub.Rot, one.Rot)
	}
	if d := Distance(sub, one); d < 1e-4 {
		t.Fatalf("substeps and one step end only %v m apart; the heading should feed forward", d)
	}
	// Second substep starts from heading 4.5° then turns to 9°.
	want := Step(Step(Pose{}, in, 50*ms, DefaultTuning), in, 50*ms, DefaultTuning)
	if sub != want || want.Rot != 9 {
		t.Fatalf("got %+v want %+v", sub, want)
	}
}

func TestAngleDiff(t *testing.T) {
	for _, c := range [][3]float64{{10, 350, 20}, {0, 180, 180}, {720, 0, 0}, {-90, 90, 180}, {5, 6, 1}} {
		if got := AngleDiff(c[0], c[1]); math.Abs(got-c[2]) > 1e-12 {
			t.Errorf("AngleDiff(%v,%v) = %v, want %v", c[0], c[1], got, c[2])
		}
	}
}

// A Heading reused over steps, turning and not, of one length and of
// another, gives the poses of a fresh sine, cosine and length in seconds at
// every step, bit for bit (a heading of −0 is not +0's).
func TestHeadingStepsAsStep(t *testing.T) {
	var h Heading
	p, q := Pose{Rot: math.Copysign(0, -1)}, Pose{Rot: math.Copysign(0, -1)}
	turns := []float64{0, 0, 0.5, 0, math.Copysign(0, -1), -1, 0, 0, 1, 0.25, 0}
	for i := range 200 {
		in := Input{Turn: turns[i%len(turns)], Throttle: 1 - float64(i%3)/2}
		dt := time.Duration(10+(i/3)%7) * ms // runs of three steps of one length
		if i%40 == 39 {
			dt = 0
		}
		p = h.Step(p, in, dt, DefaultTuning)
		q = Step(q, in, dt, DefaultTuning)
		if math.Float64bits(p.X) != math.Float64bits(q.X) || math.Float64bits(p.Y) != math.Float64bits(q.Y) || math.Float64bits(p.Rot) != math.Float64bits(q.Rot) {
			t.Fatalf("step %d: %+v through a Heading, %+v fresh", i, p, q)
		}
		if i%50 == 49 { // another chain through the same Heading
			p, q = Pose{X: 1, Rot: 30}, Pose{X: 1, Rot: 30}
		}
	}
	if got, want := h.Substeps(Pose{Rot: 10}, Input{Throttle: 1}, 120*ms, 50*ms, DefaultTuning), Substeps(Pose{Rot: 10}, Input{Throttle: 1}, 120*ms, 50*ms, DefaultTuning); got != want {
		t.Fatalf("Substeps through a Heading %+v, fresh %+v", got, want)
	}
}
