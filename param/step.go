package param

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// A Step is how an editor moves a key's value one step: up for dir > 0,
// down for dir < 0. It takes the value as printed and returns the next
// value as a user would type it; the key's own parser then checks it. An
// error says why the value cannot be stepped (a value that does not parse,
// or a key that is typed, not stepped).
type Step func(key, cur string, dir int) (string, error)

// sign is +1 for dir > 0 and -1 otherwise.
func sign(dir int) int {
	if dir < 0 {
		return -1
	}
	return 1
}

// Cycle steps through names, wrapping around; a value not among them goes
// to the first name after its place (the first, stepping up).
func Cycle(names ...string) Step {
	return func(_, cur string, dir int) (string, error) {
		i := slices.Index(names, cur)
		n := len(names)
		return names[((i+sign(dir))%n+n)%n], nil
	}
}

// Ladder moves along fixed rungs, stopping at either end; a value between
// rungs goes to the second rung stepping up and to the first stepping down.
func Ladder(rungs ...string) Step {
	return func(_, cur string, dir int) (string, error) {
		i := slices.Index(rungs, cur)
		if i < 0 {
			if dir > 0 {
				return rungs[min(1, len(rungs)-1)], nil
			}
			return rungs[0], nil
		}
		return rungs[min(max(i+sign(dir), 0), len(rungs)-1)], nil
	}
}

// Toggle flips a boolean.
func Toggle() Step {
	return func(key, cur string, _ int) (string, error) {
		b, err := Bool(key, cur)
		return strconv.FormatBool(!b), err
	}
}

// Typed is a key whose values are not a ladder: the error says why
// ("names a capture file") and what to type instead ("its path").
func Typed(why, what string) Step {
	return func(key, _ string, _ int) (string, error) {
		return "", fmt.Errorf("%s %s, not a ladder: press Enter to type %s", key, why, what)
	}
}

// FormatDuration prints a duration as the keys take it: "0" for zero.
func FormatDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// DurationBy steps a duration by a fixed amount, not below lo.
func DurationBy(by, lo time.Duration) Step {
	return durationStep(lo, func(time.Duration, int) time.Duration { return by })
}

// DurationGraded steps a duration by an amount that grows with it: 1 ms
// below 10 ms, 5 ms below 100 ms, 10 ms below 1 s, 100 ms above. A step
// down from a boundary uses the finer step, so up then down comes back.
func DurationGraded() Step { return durationStep(0, gradedStep) }

// DurationFine is fine below 10 ms (1 ms) and coarse (by) above: the step
// of a jitter, where a few milliseconds matter.
func DurationFine(by time.Duration) Step {
	return durationStep(0, func(v time.Duration, d int) time.Duration {
		if v < 10*time.Millisecond || (v == 10*time.Millisecond && d < 0) {
			return time.Millisecond
		}
		return by
	})
}

func gradedStep(v time.Duration, d int) time.Duration {
	for _, s := range []struct{ below, step time.Duration }{
		{10 * time.Millisecond, time.Millisecond}, {100 * time.Millisecond, 5 * time.Millisecond}, {time.Second, 10 * time.Millisecond},
	} {
		if v < s.below || (v == s.below && d < 0) {
			return s.step
		}
	}
	return 100 * time.Millisecond
}

func durationStep(lo time.Duration, by func(v time.Duration, d int) time.Duration) Step {
	return func(key, cur string, dir int) (string, error) {
		v, err := Duration(key, cur)
		if err != nil {
			return "", err
		}
		d := sign(dir)
		return FormatDuration(max(v+time.Duration(d)*by(v, d), lo)), nil
	}
}

// FractionBy steps a fraction by step, rounds it to 1/per, then keeps it
// within [lo, hi].
func FractionBy(step, per, lo, hi float64) Step {
	return func(key, cur string, dir int) (string, error) {
		v, err := Fraction(key, cur)
		if err != nil {
			return "", err
		}
		v = math.Round((v+float64(step*float64(sign(dir))))*per) / per
		return FormatFraction(min(max(v, lo), hi)), nil
	}
}

// FloatBy steps a number by step, keeps it within [lo, hi], then rounds it
// to 1/per (per 0: not rounded). The current value parses in [0, parseHi].
func FloatBy(step, per, lo, hi, parseHi float64) Step {
	return func(key, cur string, dir int) (string, error) {
		v, err := Float(key, cur, 0, parseHi)
		if err != nil {
			return "", err
		}
		v = min(max(v+float64(step*float64(sign(dir))), lo), hi)
		if per > 0 {
			v = math.Round(v*per) / per
		}
		return FormatFloat(v), nil
	}
}

// IntBy steps an integer in [lo, hi] by one, not below lo.
func IntBy(lo, hi int64) Step {
	return func(key, cur string, dir int) (string, error) {
		n, err := Int(key, cur, lo, hi)
		if err != nil {
			return "", err
		}
		return strconv.FormatInt(max(n+int64(sign(dir)), lo), 10), nil
	}
}

// PPMBy steps a clock drift by step ppm; with floor, not below 0.
func PPMBy(step float64, floor bool) Step {
	return func(key, cur string, dir int) (string, error) {
		v, err := PPM(key, cur, 5e5)
		if err != nil {
			return "", err
		}
		v += float64(step * float64(sign(dir)))
		if floor {
			v = max(v, 0)
		}
		return FormatPPM(v), nil
	}
}
