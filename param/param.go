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

// Duration parses a non-negative duration such as "80ms", "1.5s", "1m30s"
// or "0". A bare number other than 0 is rejected: "80" could mean ms or s.
// Each unit appears at most once, largest first (as time.Duration.String
// writes them): "50ms80ms", which a prompt that appends to its pre-filled
// text produces and Go would read as 130ms, is rejected.
func Duration(key, s string) (time.Duration, error) {
	const allowed = "a duration ≥ 0 with a unit, e.g. 80ms, 1.5s, 250us, 1m30s (each unit once, largest first)"
	v := strings.TrimSpace(s)
	if v == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || !unitsDecrease(v) {
		return 0, bad(key, s, allowed)
	}
	return d, nil
}

// durationUnit ranks time.ParseDuration's units, largest first.
var durationUnit = map[string]int{"h": 0, "m": 1, "s": 2, "ms": 3, "us": 4, "µs": 4, "μs": 4, "ns": 5}

// unitsDecrease reports whether every number in a duration time.ParseDuration
// accepted is followed by a unit smaller than the previous number's.
func unitsDecrease(v string) bool {
	isNum := func(r rune) bool { return r >= '0' && r <= '9' || r == '.' }
	v = strings.TrimLeft(v, "+-")
	last := -1
	for v != "" {
		i := strings.IndexFunc(v, func(r rune) bool { return !isNum(r) })
		if i < 0 {
			return false
		}
		v = v[i:]
		j := strings.IndexFunc(v, isNum)
		if j < 0 {
			j = len(v)
		}
		rank, ok := durationUnit[v[:j]]
		if !ok || rank <= last {
			return false
		}
		last, v = rank, v[j:]
	}
	return true
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

// AboveZero as [Float]'s lo excludes 0 and nothing else: the range is
// (0, hi], and errors say so.
const AboveZero = math.SmallestNonzeroFloat64

// Float parses a finite number in [lo, hi] ((0, hi] when lo is [AboveZero]).
func Float(key, s string, lo, hi float64) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || f < lo || f > hi {
		allowed := fmt.Sprintf("a number in [%g, %g]", lo, hi)
		if lo == AboveZero {
			allowed = fmt.Sprintf("a number in (0, %g]", hi)
		}
		return 0, bad(key, s, allowed)
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

// rateUnits are tc(8)'s rate units, matched without regard to case as tc
// does: "bit" and its multiples are bits per second, "bps" and its
// multiples are BYTES per second; k, m, g, t are powers of 1000 and ki, mi,
// gi, ti powers of 1024. Longest suffixes first, so "kbit" is not read as
// "bit" and "kibps" not as "bps".
var rateUnits = []struct {
	suffix string
	mul    float64
}{
	{"tibit", 1 << 40}, {"gibit", 1 << 30}, {"mibit", 1 << 20}, {"kibit", 1 << 10},
	{"tibps", 8 << 40}, {"gibps", 8 << 30}, {"mibps", 8 << 20}, {"kibps", 8 << 10},
	{"tbit", 1e12}, {"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3},
	{"tbps", 8e12}, {"gbps", 8e9}, {"mbps", 8e6}, {"kbps", 8e3},
	{"bit", 1}, {"bps", 8},
}

// MaxRate is the highest rate [Rate] accepts, in bits per second (1tbit).
const MaxRate = 1e12

// RateUnitsHelp says how [Rate] reads a rate, for help texts.
const RateUnitsHelp = "units as tc(8): bit (or a bare number), kbit, mbit, gbit = bits per second; " +
	"bps, kbps, mbps, gbps = BYTES per second (1mbps = 8mbit); kibit, mibps, ... = powers of 1024"

// Rate parses a rate into bits per second with tc(8)'s units: "1.5mbit",
// "500kbit", "64000" (a bare number is bits per second), "2mbps" (two
// megaBYTES per second, 16mbit), "1kibit" (1024 bit/s); "0" is unlimited.
func Rate(key, s string) (int64, error) {
	const allowed = "0 (unlimited) or a rate from 1bit to 1tbit; " + RateUnitsHelp
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "0" {
		return 0, nil
	}
	num, mul := v, 1.0
	for _, u := range rateUnits {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			num, mul = strings.TrimSpace(n), u.mul
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	bps := math.Round(f * mul)
	if err != nil || math.IsNaN(f) || !(bps >= 1 && bps <= MaxRate) {
		return 0, bad(key, s, allowed)
	}
	return int64(bps), nil
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
	return FormatFloat(f)
}

// FormatFloat writes f in the fewest digits that read back as f.
func FormatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

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

// Similar returns the candidates within two edits of word (typos such as
// "duraton" for "duration"), in the candidates' order: the "did you mean"
// of an unknown key.
func Similar(word string, candidates []string) []string {
	var out []string
	for _, c := range candidates {
		if Near(word, c) {
			out = append(out, c)
		}
	}
	return out
}

// Closest returns the candidates nearest to word, if within two edits
// (all at the same, smallest distance, in the candidates' order): the "did
// you mean" of a mistyped name, where Similar's every near key would be
// too many guesses ("mobile4g" is one edit from mobile-4g, two from
// mobile-5g).
func Closest(word string, candidates []string) []string {
	var out []string
	best := 3
	for _, c := range candidates {
		switch d := editDistance(word, c); {
		case d < best:
			best, out = d, []string{c}
		case d == best:
			out = append(out, c)
		}
	}
	return out
}

// DidYouMean is "; did you mean a or b?" for the names Closest finds, or
// "" when none is near.
func DidYouMean(word string, candidates []string) string {
	near := Closest(word, candidates)
	if len(near) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(near, " or ") + "?"
}

// Near reports whether candidate is within two edits of word, the test
// Similar applies to each candidate.
func Near(word, candidate string) bool { return editDistance(word, candidate) <= 2 }

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// DurationIn parses a duration for key within [lo, hi]; the error states
// the range and an example in it.
func DurationIn(key, v string, lo, hi time.Duration) (time.Duration, error) {
	d, err := Duration(key, v)
	if err != nil || d < lo || d > hi {
		return 0, bad(key, v, fmt.Sprintf("a duration in [%s, %s] with a unit, e.g. %s", FormatDuration(lo), FormatDuration(hi), FormatDuration(max(lo, min(50*time.Millisecond, hi)))))
	}
	return d, nil
}
