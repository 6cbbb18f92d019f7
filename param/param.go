package param

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Error is a rejected parameter value: the key, the value as written, and
// what is allowed.
type Error struct {
	Key, Value, Allowed string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: bad value %q: allowed %s", e.Key, e.Value, e.Allowed)
}

func bad(key, value, allowed string) error { return &Error{Key: key, Value: value, Allowed: allowed} }

// Duration parses a non-negative duration such as "80ms", "1.5s" or "0".
// A bare number other than 0 is rejected: "80" could mean ms or s.
func Duration(key, s string) (time.Duration, error) {
	const allowed = "a duration ≥ 0 with a unit, e.g. 80ms, 1.5s, 250us"
	v := strings.TrimSpace(s)
	if v == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, bad(key, s, allowed)
	}
	return d, nil
}

// PositiveDuration is [Duration] that also rejects 0.
func PositiveDuration(key, s string) (time.Duration, error) {
	d, err := Duration(key, s)
	if err == nil && d == 0 {
		err = bad(key, s, "a duration > 0 with a unit, e.g. 50ms")
	}
	return d, err
}

// Fraction parses a probability written "2%" or "0.02" into [0, 1].
func Fraction(key, s string) (float64, error) {
	const allowed = "a fraction in [0, 1] written 0.02 or 2%"
	v := strings.TrimSpace(s)
	scale := 1.0
	if p, ok := strings.CutSuffix(v, "%"); ok {
		v, scale = strings.TrimSpace(p), 100
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) {
		return 0, bad(key, s, allowed)
	}
	f /= scale
	if f < 0 || f > 1 {
		return 0, bad(key, s, allowed)
	}
	return f, nil
}

// Float parses a finite number in [lo, hi].
func Float(key, s string, lo, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || f < lo || f > hi {
		return 0, bad(key, s, fmt.Sprintf("a number in [%g, %g]", lo, hi))
	}
	return f, nil
}

// Int parses an integer in [lo, hi].
func Int(key, s string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, bad(key, s, fmt.Sprintf("an integer in [%d, %d]", lo, hi))
	}
	return n, nil
}

var rateUnits = []struct {
	suffix string
	mul    float64
}{
	// Longest suffixes first so "kbit" is not read as "bit".
	{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1},
	{"gbps", 1e9}, {"mbps", 1e6}, {"kbps", 1e3}, {"bps", 1},
}

// Rate parses a bit rate such as "1.5mbit", "500kbit", "10gbit", "64000bit"
// or "0" (unlimited) into bits per second. Units follow tc: kbit = 1000
// bit/s; "mbps" is read as megabits per second, as gamers write it.
func Rate(key, s string) (int64, error) {
	const allowed = "0 (unlimited) or a rate ≥ 1bit with a unit: bit, kbit, mbit, gbit (kbps = kbit)"
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "0" {
		return 0, nil
	}
	for _, u := range rateUnits {
		if num, ok := strings.CutSuffix(v, u.suffix); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			bps := math.Round(f * u.mul)
			if err != nil || math.IsNaN(f) || bps < 1 || bps > 1e12 {
				return 0, bad(key, s, allowed)
			}
			return int64(bps), nil
		}
	}
	return 0, bad(key, s, allowed)
}

// PPM parses a clock drift such as "+40ppm", "-12.5ppm", "2%" or "0" into
// parts per million, within ±maxPPM.
func PPM(key, s string, maxPPM float64) (float64, error) {
	allowed := fmt.Sprintf("a drift within ±%gppm written +40ppm, -12.5ppm or 2%%", maxPPM)
	v := strings.TrimSpace(s)
	mul := 1.0
	switch {
	case strings.HasSuffix(v, "ppm"):
		v = strings.TrimSuffix(v, "ppm")
	case strings.HasSuffix(v, "%"):
		v, mul = strings.TrimSuffix(v, "%"), 1e4
	case v != "0":
		return 0, bad(key, s, allowed)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	f *= mul
	if err != nil || math.IsNaN(f) || math.Abs(f) > maxPPM {
		return 0, bad(key, s, allowed)
	}
	return f, nil
}

// Bool parses true/false, on/off, yes/no, 1/0.
func Bool(key, s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "on", "yes", "1":
		return true, nil
	case "false", "off", "no", "0":
		return false, nil
	}
	return false, bad(key, s, "true or false (on/off, yes/no, 1/0)")
}

// Choice returns s if it is one of choices.
func Choice(key, s string, choices ...string) (string, error) {
	v := strings.TrimSpace(s)
	for _, c := range choices {
		if v == c {
			return v, nil
		}
	}
	return "", bad(key, s, "one of "+strings.Join(choices, ", "))
}

// FormatFraction writes f the way [Fraction] reads it back, exactly, as a
// percentage: the shortest of 12 significant digits (so 0.07 is "7%", not
// the "7.000000000000001%" of f·100 in binary) or, when that does not read
// back to the same float, a plain fraction with every digit.
func FormatFraction(f float64) string {
	s := strconv.FormatFloat(f*100, 'g', 12, 64) + "%"
	if back, err := Fraction("", s); err == nil && back == f {
		return s
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// FormatRate writes bits per second the way [Rate] reads it back.
func FormatRate(bps int64) string {
	switch {
	case bps == 0:
		return "0"
	case bps%1e9 == 0:
		return strconv.FormatInt(bps/1e9, 10) + "gbit"
	case bps%1e6 == 0:
		return strconv.FormatInt(bps/1e6, 10) + "mbit"
	case bps%1e3 == 0:
		return strconv.FormatInt(bps/1e3, 10) + "kbit"
	}
	return strconv.FormatInt(bps, 10) + "bit"
}

// FormatPPM writes a drift the way [PPM] reads it back.
func FormatPPM(ppm float64) string {
	s := strconv.FormatFloat(ppm, 'g', -1, 64)
	if ppm > 0 {
		s = "+" + s
	}
	return s + "ppm"
}
