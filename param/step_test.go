package param

import (
	"math"
	"strings"
	"testing"
	"time"
)

// Each kind of step on values where the answer is known by hand.
func TestSteps(t *testing.T) {
	cases := []struct {
		name string
		step Step
		cur  string
		dir  int
		want string
	}{
		{"cycle wraps up", Cycle("a", "b", "c"), "c", 1, "a"},
		{"cycle wraps down", Cycle("a", "b", "c"), "a", -1, "c"},
		{"cycle from an unknown value", Cycle("a", "b", "c"), "x", 1, "a"},
		{"ladder stops at the top", Ladder("0", "8", "16"), "16", 1, "16"},
		{"ladder stops at the bottom", Ladder("0", "8", "16"), "0", -1, "0"},
		{"ladder from between rungs, up", Ladder("0", "8", "16"), "12", 1, "8"},
		{"ladder from between rungs, down", Ladder("0", "8", "16"), "12", -1, "0"},
		{"toggle", Toggle(), "false", 1, "true"},
		{"fixed duration step, floored", DurationBy(time.Millisecond, time.Millisecond), "1ms", -1, "1ms"},
		{"fixed duration step", DurationBy(5*time.Millisecond, 0), "50ms", 1, "55ms"},
		{"fixed duration step to zero prints 0", DurationBy(5*time.Millisecond, 0), "5ms", -1, "0"},
		{"graded: 1 ms below 10 ms", DurationGraded(), "9ms", 1, "10ms"},
		{"graded: down from a boundary takes the finer step", DurationGraded(), "10ms", -1, "9ms"},
		{"graded: 5 ms from 10 ms up", DurationGraded(), "10ms", 1, "15ms"},
		{"graded: 100 ms above 1 s", DurationGraded(), "1s", 1, "1.1s"},
		{"fine below 10 ms", DurationFine(5 * time.Millisecond), "4ms", 1, "5ms"},
		{"coarse above 10 ms", DurationFine(5 * time.Millisecond), "10ms", 1, "15ms"},
		{"fraction rounds to its unit", FractionBy(0.005, 1000, 0, 1), "1.2%", 1, "1.7%"},
		{"fraction kept in range", FractionBy(0.01, 100, 0.01, 0.5), "1%", -1, "1%"},
		{"float clamps then rounds", FloatBy(0.1, 10, 0, 1, 1), "0.95", 1, "1"},
		{"float without rounding", FloatBy(0.5, 0, 0, math.Inf(1), 1e4), "2", -1, "1.5"},
		{"int floored", IntBy(1, 10), "1", -1, "1"},
		{"ppm without a floor", PPMBy(10, false), "0ppm", -1, "-10ppm"},
		{"ppm floored at 0", PPMBy(1, true), "0ppm", -1, "0ppm"},
	}
	for _, c := range cases {
		got, err := c.step("k", c.cur, c.dir)
		if err != nil || got != c.want {
			t.Errorf("%s: step %q by %+d = %q, %v; want %q", c.name, c.cur, c.dir, got, err, c.want)
		}
	}
}

// A value a step cannot read is an error naming the key; a typed key says
// what to type.
func TestStepErrors(t *testing.T) {
	if _, err := DurationGraded()("up.spike_delay", "soon", 1); err == nil || !strings.Contains(err.Error(), "up.spike_delay") {
		t.Errorf("unreadable duration: %v", err)
	}
	_, err := Typed("names a capture file", "its path")("up.trace", "x.json", 1)
	if err == nil || err.Error() != "up.trace names a capture file, not a ladder: press Enter to type its path" {
		t.Errorf("typed: %v", err)
	}
}
