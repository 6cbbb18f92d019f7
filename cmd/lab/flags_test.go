package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
)

// FuzzDurationFlag: a duration flag accepts only values within the one rule
// (1ms to 1000h, or 0 for a window bound), what it accepts reads back from
// its own String, and what it refuses is one error naming the flag and the
// value.
func FuzzDurationFlag(f *testing.F) {
	for _, s := range []string{"50ms", "0", "1ns", "-5ms", "1000h", "1000h0m0.000000001s", "50ms80ms", "1m30s", "banana", "1e3ms"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, zeroOK bool) {
		var d time.Duration
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		durationVar(fs, &d, "every", 7*time.Millisecond, zeroOK, "50ms", "")
		err := fs.Set("every", s)
		if err != nil {
			if d != 7*time.Millisecond || !strings.HasPrefix(err.Error(), "--every ") || !strings.Contains(err.Error(), "allowed") {
				t.Fatalf("%q: %v, value now %v", s, err, d)
			}
			return
		}
		if !(d == 0 && zeroOK) && (d < minFlagDuration || d > maxFlagDuration) {
			t.Fatalf("%q accepted as %v, outside the rule", s, d)
		}
		back := d
		if err := fs.Set("every", fs.Lookup("every").Value.String()); err != nil || d != back {
			t.Fatalf("%q → %v → %q → %v %v", s, back, fs.Lookup("every").Value.String(), d, err)
		}
	})
}
