package scenarios

import (
	"testing"
	"time"
)

// LongestRun is the longest run, to the minute, whose oscillators make
// at most n changes: a square wave of period 10 s from 10 s changes every
// 5 s from 10 s, 59 changes by 300 s and 71 by 360 s, so for n 60 the run
// is 5 min. Without generators it is the limit.
func TestLongestRun(t *testing.T) {
	sc, err := Parse("t.toml", []byte("[[oscillate]]\nkey = \"link.latency\"\nperiod = \"10s\"\nstart = \"10s\"\nshape = \"square\"\nlow = \"10ms\"\nhigh = \"20ms\"\n"), anyValue)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 60, 500, 5000} {
		got := sc.LongestRun(1000*time.Hour, n)
		if gen, err := sc.Generated(got); err != nil || len(gen) > n {
			t.Errorf("n %d: LongestRun %v makes %d changes (%v)", n, got, len(gen), err)
		}
		if gen, _ := sc.Generated(got + time.Minute); len(gen) <= n {
			t.Errorf("n %d: LongestRun %v, but a minute more makes %d changes, still at most n", n, got, len(gen))
		}
		if got%time.Minute != 0 {
			t.Errorf("n %d: LongestRun %v is not whole minutes", n, got)
		}
	}
	for d, want := range map[time.Duration]int{5 * time.Minute: 59, 6 * time.Minute: 71} {
		if gen, _ := sc.Generated(d); len(gen) != want {
			t.Errorf("%v: %d changes, want %d (every 5 s from 10 s)", d, len(gen), want)
		}
	}
	if got := sc.LongestRun(1000*time.Hour, 60); got != 5*time.Minute {
		t.Errorf("n 60: %v, want 5m", got)
	}
	if got := sc.LongestRun(2*time.Hour, 1e6); got != 2*time.Hour {
		t.Errorf("a limit within the changes: %v, want the limit 2h", got)
	}
	plain, err := Parse("t.toml", []byte("link.latency = \"10ms\"\n"), anyValue)
	if err != nil {
		t.Fatal(err)
	}
	if got := plain.LongestRun(1000*time.Hour, 10); got != 1000*time.Hour {
		t.Errorf("no generators: %v, want the limit", got)
	}
}
