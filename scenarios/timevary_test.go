package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// anyValue accepts every assignment: these tests are about the schedule.
func anyValue(key, value string) error { return nil }

func parseVarying(t *testing.T, text string) *Scenario {
	t.Helper()
	sc, err := Parse("t.toml", []byte(text), anyValue)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func changeList(chs []Change) string {
	var b strings.Builder
	for _, c := range chs {
		fmt.Fprintf(&b, "%v %s=%s\n", c.At, c.Set[0].Key, c.Set[0].Value)
	}
	return b.String()
}

// A square wave changes exactly at start + k·period (to high) and
// start + (k + duty)·period (to low); a flap is down at start + k·period for
// down, with start = period − down unless given.
func TestSquareOscillatorAndFlapEdgesAreExact(t *testing.T) {
	sc := parseVarying(t, `
[[oscillate]]
key = "up.latency"
period = "15s"
low = "40ms"
high = "114ms"
shape = "square"
start = "12s"
duty = 0.1

[[flap]]
period = "20s"
down = "1.5s"
`)
	got, err := sc.Generated(45 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := `12s up.latency=114ms
13.5s up.latency=40ms
18.5s link.blackout=true
20s link.blackout=false
27s up.latency=114ms
28.5s up.latency=40ms
38.5s link.blackout=true
40s link.blackout=false
42s up.latency=114ms
43.5s up.latency=40ms
`
	if s := changeList(got); s != want {
		t.Fatalf("changes:\n%s\nwant:\n%s", s, want)
	}
}

// Sine starts each period at low and peaks at half the period; saw ramps
// from low and drops back at each period; values change only when their
// written form does.
func TestSineAndSawValues(t *testing.T) {
	sc := parseVarying(t, `
[[oscillate]]
key = "down.latency"
period = "4s"
low = "10ms"
high = "30ms"
shape = "sine"
step = "1s"

[[oscillate]]
key = "down.queue"
period = "2s"
low = 0
high = 100
shape = "saw"
step = "500ms"
`)
	got, err := sc.Generated(4 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := `0s down.latency=10ms
0s down.queue=0
500ms down.queue=25
1s down.latency=20ms
1s down.queue=50
1.5s down.queue=75
2s down.latency=30ms
2s down.queue=0
2.5s down.queue=25
3s down.latency=20ms
3s down.queue=50
3.5s down.queue=75
4s down.latency=10ms
4s down.queue=0
`
	if s := changeList(got); s != want {
		t.Fatalf("changes:\n%s\nwant:\n%s", s, want)
	}
}

// A square wave alternates any two values, such as a distribution's names.
func TestSquareOscillatorTakesAnyValues(t *testing.T) {
	sc := parseVarying(t, "[[oscillate]]\nkey = \"up.jitter_dist\"\nperiod = \"10s\"\nlow = \"normal\"\nhigh = \"pareto\"\nshape = \"square\"\nduty = 0.3\n")
	got, err := sc.Generated(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s, want := changeList(got), "0s up.jitter_dist=pareto\n3s up.jitter_dist=normal\n10s up.jitter_dist=pareto\n"; s != want {
		t.Fatalf("changes:\n%s\nwant:\n%s", s, want)
	}
	if _, err := Parse("t.toml", []byte("[[oscillate]]\nkey = \"up.jitter_dist\"\nperiod = \"10s\"\nlow = \"normal\"\nhigh = \"pareto\"\nshape = \"sine\"\n"), anyValue); err == nil || !strings.Contains(err.Error(), "needs a number") {
		t.Fatalf("a sine of names: error %v", err)
	}
}

func TestTimeVaryingErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"[[oscillate]]\nkey = \"up.latency\"\nperiod = \"1s\"\nlow = \"1ms\"\nhigh = \"2s\"\nshape = \"sine\"", "same unit"},
		{"[[oscillate]]\nkey = \"up.latency\"\nperiod = \"1s\"\nlow = \"1ms\"\nhigh = \"2ms\"\nshape = \"triangle\"", "t.toml:1: [[oscillate]] entry 1: shape triangle: allowed one of sine, square, saw"},
		{"[[oscillate]]\nkey = \"up.latency\"\nperiod = \"1s\"\nlow = \"1ms\"\nhigh = \"2ms\"\nshape = \"sine\"\nstep = \"300ms\"", "divides the period"},
		{"[[oscillate]]\nkey = \"up.latency\"\nperiod = \"1s\"\nlow = \"1ms\"\nhigh = \"2ms\"\nshape = \"sine\"\nduty = 0.2", "for shape = \"square\" only"},
		{"[[oscillate]]\nkey = \"up.latency\"\nperiod = \"1s\"\nlow = \"1ms\"\nhigh = \"2ms\"\nshape = \"square\"\nphase = 2", `unknown key "phase"`},
		{"[[oscillate]]\nperiod = \"1s\"\nlow = \"1ms\"\nhigh = \"2ms\"\nshape = \"square\"", "key: want the parameter"},
		{"[[flap]]\nperiod = \"10s\"\ndown = \"10s\"", "t.toml:1: [[flap]] entry 1: down 10s: allowed a duration in (0, period 10s)"},
		{"[[flap]]\nperiod = \"10s\"\ndown = \"1s\"\ndir = \"sideways\"", "dir sideways: allowed link, up or down"},
		{"[[flap]]\nperiod = \"10s\"", "down: want a duration"},
	} {
		_, err := Parse("t.toml", []byte(c.text), anyValue)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %q", c.text, err, c.want)
		}
	}
	// The value check names the key.
	_, err := Parse("t.toml", []byte("[[oscillate]]\nkey = \"up.latency\"\nperiod = \"1s\"\nlow = \"-1ms\"\nhigh = \"2ms\"\nshape = \"square\""),
		func(k, v string) error {
			if strings.HasPrefix(v, "-") {
				return fmt.Errorf("%s: bad value %q", k, v)
			}
			return nil
		})
	if err == nil || !strings.Contains(err.Error(), `low: up.latency: bad value "-1ms"`) {
		t.Fatalf("error %v", err)
	}
	// Too many changes for the run is an error, not memory.
	sc := parseVarying(t, "[[oscillate]]\nkey = \"up.latency\"\nperiod = \"2ms\"\nlow = \"1ms\"\nhigh = \"2ms\"\nshape = \"square\"")
	if _, err := sc.Generated(time.Hour); err == nil || !strings.Contains(err.Error(), "more than 200000 changes") {
		t.Fatalf("error %v", err)
	}
}

// FuzzTimeVarying: no [[oscillate]] or [[flap]] entry panics or hangs; an
// accepted one expands, over a minute, into at most MaxGenerated changes in
// time order, each a single assignment inside the minute.
func FuzzTimeVarying(f *testing.F) {
	f.Add([]byte("[[oscillate]]\nkey = \"up.latency\"\nperiod = \"15s\"\nlow = \"40ms\"\nhigh = \"114ms\"\nshape = \"square\"\nduty = 0.1\n"))
	f.Add([]byte("[[oscillate]]\nkey = \"down.loss\"\nperiod = \"1s\"\nlow = \"0\"\nhigh = \"5%\"\nshape = \"sine\"\nstep = \"10ms\"\n"))
	f.Add([]byte("[[flap]]\nperiod = \"3s\"\ndown = \"0.5s\"\ndir = \"up\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("fuzz.toml", data, anyValue)
		if err != nil {
			return
		}
		gen, err := sc.Generated(time.Minute)
		if err != nil {
			if !strings.Contains(err.Error(), "more than") {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if len(gen) > MaxGenerated {
			t.Fatalf("%d changes", len(gen))
		}
		for i, ch := range gen {
			if len(ch.Set) != 1 || ch.At < 0 || ch.At > time.Minute || (i > 0 && ch.At < gen[i-1].At) {
				t.Fatalf("bad change %d: %+v", i, ch)
			}
		}
	})
}

// A scenario built on a base keeps the base's oscillators and flaps and
// adds its own.
func TestTimeVaryingInheritsFromBase(t *testing.T) {
	sc := parseVarying(t, "base = \"starlink\"\n[[flap]]\nperiod = \"30s\"\ndown = \"1s\"\n")
	if len(sc.Oscillators) != 1 || sc.Oscillators[0].Key != "link.latency" || sc.Oscillators[0].Period != 15*time.Second || len(sc.Flaps) != 1 {
		t.Fatalf("oscillators %v, flaps %v", sc.Oscillators, sc.Flaps)
	}
}
