package telemetry

import (
	"fmt"
	"math"
	"testing"
)

// The encoder writes what a game would write by hand: the fields in the
// reference's order, whole numbers in digits, others as short as they read
// back exactly.
func TestAppendWritesTheReferenceOrder(t *testing.T) {
	f, err := AppendFrame(nil, &frameWant)
	if err != nil || string(f) != frameJSON {
		t.Errorf("AppendFrame = %s, %v\nwant %s", f, err, frameJSON)
	}
	k, err := AppendTick(nil, &tickWant)
	if err != nil || string(k) != tickJSON {
		t.Errorf("AppendTick = %s, %v\nwant %s", k, err, tickJSON)
	}
}

// The encoder refuses what the decoder would, in the same class, and
// leaves dst as it was.
func TestAppendRefuses(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(*Frame)
		class Class
		field string
	}{
		{"NaN", func(f *Frame) { f.Visible.X = math.NaN() }, ClassNotFinite, "visible_x_m"},
		{"+Inf", func(f *Frame) { f.SendIntervalS = math.Inf(1) }, ClassNotFinite, "send_interval_s"},
		{"throttle beyond full", func(f *Frame) { f.Input.Throttle = 1.5 }, ClassRange, "throttle"},
		{"a frame beyond 2^53", func(f *Frame) { f.Frame = 1 << 60 }, ClassRange, "frame"},
		{"pending inputs below zero", func(f *Frame) { f.PendingInputs = -1 }, ClassRange, "pending_inputs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := frameWant
			c.edit(&f)
			dst := []byte("kept")
			out, err := AppendFrame(dst, &f)
			e, ok := err.(*Error)
			if !ok || e.Class != c.class || e.Field != c.field || string(out) != "kept" {
				t.Fatalf("AppendFrame = %q, %v; want dst kept and class %q on %s", out, err, c.class, c.field)
			}
		})
	}
	if _, err := AppendTick(nil, &Tick{Depth: -5}); err == nil {
		t.Error("AppendTick took a negative depth")
	}
}

func ExampleAppendTick() {
	b, err := AppendTick(nil, &Tick{TS: 7.25, Tick: 448, Applied: 440, Overwritten: 3, Starved: 5, Depth: 2})
	fmt.Println(string(b), err)
	// Output: {"v":1,"kind":"tick","t_s":7.25,"tick":448,"applied":440,"overwritten":3,"starved":5,"depth":2} <nil>
}
