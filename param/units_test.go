package param

import (
	"testing"
	"time"
)

// TestRateUnitsFollowTC (issue 8 item 9): rates read as tc(8) reads them.
// "bit" or a bare number is bits per second, kbit/mbit/gbit/tbit are SI
// multiples of bits, "bps" and its multiples are BYTES per second, an "i"
// (kibit, MiBps, ...) makes the multiple IEC (1024), and case is ignored.
func TestRateUnitsFollowTC(t *testing.T) {
	for in, bitsPerSecond := range map[string]int64{
		"64000bit": 64000,
		"64000":    64000, // a bare number is bits per second
		"500kbit":  500e3,
		"1.5mbit":  1.5e6,
		"10gbit":   10e9,
		"1tbit":    1e12,
		"1kibit":   1024,
		"1mibit":   1 << 20,
		"1gibit":   1 << 30,
		"100bps":   800, // bytes per second
		"2kbps":    16e3,
		"2mbps":    16e6,
		"2Mbps":    16e6, // tc ignores case: still megabytes
		"1gbps":    8e9,
		"1KiBps":   8 * 1024,
		"1mibps":   8 << 20,
		"0":        0,
	} {
		if got, err := Rate("up.rate", in); err != nil || got != bitsPerSecond {
			t.Errorf("Rate(%q) = %d bit/s, %v; want %d bit/s as tc reads it", in, got, err, bitsPerSecond)
		}
	}
	for _, in := range []string{"2tbps", "5%", "1.5mbitps", "mbit", "-1kbit"} {
		if _, err := Rate("up.rate", in); err == nil {
			t.Errorf("Rate(%q) accepted", in)
		}
	}
}

// TestDurationRefusesSumOfDurations (issue 7 item 2): "50ms80ms" is what a
// prompt gives when typing appends to the pre-filled value; Go reads it as
// 130ms. A duration names each unit at most once, largest first, as
// time.Duration.String writes it.
func TestDurationRefusesSumOfDurations(t *testing.T) {
	for _, in := range []string{"50ms80ms", "1s2s", "80ms1s", "1m1h", "2us3ns4us"} {
		if d, err := Duration("up.latency", in); err == nil {
			t.Errorf("Duration(%q) = %v, want an error", in, d)
		}
	}
	for in, want := range map[string]time.Duration{
		"1h30m": 90 * time.Minute, "1m30.5s": 90500 * time.Millisecond, "1s500ms": 1500 * time.Millisecond,
		"1h0m0s": time.Hour, "80ms": 80 * time.Millisecond, "1.5µs": 1500, "0": 0,
	} {
		if d, err := Duration("up.latency", in); err != nil || d != want {
			t.Errorf("Duration(%q) = %v, %v; want %v", in, d, err, want)
		}
	}
}
