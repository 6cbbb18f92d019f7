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

// TestEveryHasOneRule (issue 8, QA item 2): --every of run and of the lab
// takes the model's sample period, 100µs to 1h, and says so in one message;
// every other duration flag keeps the general rule, 1ms to 1000h. A period
// longer than the run is an error, not a CSV of a header alone.
func TestEveryHasOneRule(t *testing.T) {
	code, out, errOut := runLab(t, "run", "--every", "100us", "--duration", "10ms", "--csv", "-")
	rows := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(rows) != 1+100 {
		t.Fatalf("run --every 100us --duration 10ms: exit %d, %d rows (want 100), %s", code, len(rows)-1, errOut)
	}
	times := map[string]bool{}
	for _, r := range rows[1:] {
		times[strings.SplitN(r, ",", 2)[0]] = true
	}
	if len(times) != 100 || !times["0.0001"] || !times["0.010"] {
		t.Errorf("t_s does not tell 100µs samples apart: %d distinct times, %v", len(times), rows[1:4])
	}
	for _, args := range [][]string{
		{"run", "--every", "500us", "--duration", "1s"},
		{"run", "--every", "1h", "--duration", "2h"},
	} {
		if code, _, errOut := runLab(t, args...); code != 0 {
			t.Errorf("%v: exit %d, %s", args, code, errOut)
		}
	}
	const everyRule = `allowed a sample period from 100µs to 1h`
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--every", "10us"}, []string{`--every "10us"`, everyRule}},
		{[]string{"run", "--every", "2h", "--duration", "3h"}, []string{`--every "2h"`, everyRule}},
		{[]string{"--every", "10us"}, []string{`--every "10us"`, everyRule}},
		{[]string{"--every", "2h"}, []string{`--every "2h"`, everyRule}},
		{[]string{"run", "--duration", "500us"}, []string{`--duration "500us"`, "from 1ms to 1000h"}},
		{[]string{"run", "--every", "90s", "--duration", "1s", "--csv", "-"}, []string{"--every 1m30s", "--duration 1s"}},
	} {
		code, out, errOut := runLab(t, c.args...)
		ok := code == 2 && out == "" && strings.Count(strings.TrimSpace(errOut), "\n") == 0
		for _, w := range c.want {
			ok = ok && strings.Contains(errOut, w)
		}
		if !ok {
			t.Errorf("%v: exit %d, stdout %.40q, stderr %q; want exit 2 and one line naming %q", c.args, code, out, errOut, c.want)
		}
	}
	code, out, _ = runLab(t, "run", "-h")
	if code != 0 || !strings.Contains(out, "--every takes 100µs to 1h") {
		t.Errorf("run -h does not state the rule of --every:\n%s", out)
	}
}

// --release-window's value as proxy.Options takes it: 0 (the relay's
// default) without the flag, negative (off) for 0, else the value.
func TestReleaseWindowFlag(t *testing.T) {
	for _, c := range []struct {
		flag string
		want time.Duration
	}{{"", 0}, {"0", -1}, {"1ms", time.Millisecond}, {"50us", 50 * time.Microsecond}} {
		var f releaseWindowFlag
		if c.flag != "" {
			if err := f.Set(c.flag); err != nil {
				t.Fatal(err)
			}
		}
		if f.relay != c.want {
			t.Errorf("--release-window %q: the relay takes %v; want %v", c.flag, f.relay, c.want)
		}
	}
}
