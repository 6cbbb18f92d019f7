package scenarios

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"jitterlab/sim"
)

// known is a stand-in registry: the lab's real one is tested in package lab.
var known = []string{"link.latency", "link.jitter", "link.loss", "link.loss_burst", "up.latency", "client.sender", "client.fps", "up.keep_order", "client.alpha", "client.drift_ppm", "server.inputs", "up.jitter_corr"}

func check(key, value string) error {
	if !slices.Contains(known, key) {
		return fmt.Errorf("unknown parameter %q", key)
	}
	if value == "bad" {
		return fmt.Errorf("%s: bad value %q", key, value)
	}
	return nil
}

func parseText(t *testing.T, text string) (*Scenario, error) {
	t.Helper()
	return Parse("test.toml", []byte(text), check)
}

func TestParseFlattensTablesAndDottedKeys(t *testing.T) {
	sc, err := parseText(t, `description = "d"
duration = "90s"
seed = 42
link.latency = "80ms"
up.keep_order = true
[client]
fps = 30
alpha = 0.2
sender = "accumulator"
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []Assignment{{"link.latency", "80ms", 4}, {"up.keep_order", "true", 5}, {"client.fps", "30", 7}, {"client.alpha", "0.2", 8}, {"client.sender", "accumulator", 9}}
	if !slices.Equal(sc.Params, want) {
		t.Fatalf("params %v, want %v", sc.Params, want)
	}
	if sc.Duration != 90*time.Second || sc.Seed != 42 || !sc.HasSeed || sc.Name != "test" || sc.Description != "d" {
		t.Fatalf("header %+v", sc)
	}
}

func TestErrorsNameFileLineKeyAndAllowed(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"typo names the key", "link.latency = \"5ms\"\nlink.jiter = \"5ms\"\n", `test.toml:2: unknown parameter "link.jiter"`},
		{"bad value", "[link]\nloss = \"bad\"\n", `test.toml:2: link.loss: bad value "bad"`},
		{"timeline out of order", "[[timeline]]\nat = \"30s\"\nlink.loss = \"1%\"\n[[timeline]]\nat = \"10s\"\nlink.loss = \"2%\"\n", "test.toml:5: timeline entry 2 at 10s comes before the previous one at 30s"},
		{"timeline typo", "[[timeline]]\nat = \"30s\"\nlink.latncy = \"1ms\"\n", `test.toml:3: unknown parameter "link.latncy"`},
		{"timeline without at", "[[timeline]]\nlink.loss = \"1%\"\n", "test.toml:1: timeline entry 1: want at"},
		{"empty timeline entry", "[[timeline]]\nat = \"3s\"\n", "changes nothing"},
		{"bad duration", "duration = \"soon\"\n", "test.toml:1: duration \"soon\""},
		{"negative seed", "seed = -1\n", "test.toml:1: seed -1"},
		{"unknown script", "script = \"dance\"\n", `test.toml:1: script "dance": allowed one of steady`},
		{"script and segments", "script = \"steady\"\n[[segments]]\nduration = \"1s\"\n", "both script and [[segments]]"},
		{"segment out of range", "[[segments]]\nduration = \"1s\"\nturn = 2\n", "test.toml:1: segment 1: turn 2"},
		{"segment unknown key", "[[segments]]\nduration = \"1s\"\nspeed = 2\n", `unknown key "speed"`},
		{"array value", "link.loss = [1, 2]\n", "is not a parameter value"},
		{"syntax", "link.loss = \n", "test.toml:1:"},
		{"description not a string", "description = 3\n", "description: want a string"},
		{"unknown base", "base = \"mars\"\n", `base "mars": no such built-in`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseText(t, c.text)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("%T is not a *ParseError", err)
			}
		})
	}
}

func TestTimelineAndSegments(t *testing.T) {
	sc, err := parseText(t, `[[segments]]
duration = "2s"
turn = 0.5
throttle = 1
[[segments]]
duration = "500ms"
throttle = -0.5
[[timeline]]
at = "10s"
link.loss = "10%"
link.loss_burst = 8
[[timeline]]
at = "10s"
up.latency = "1ms"
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Segments) != 2 || sc.Segments[1] != (Segment{500 * time.Millisecond, 0, -0.5}) {
		t.Fatalf("segments %+v", sc.Segments)
	}
	if len(sc.Timeline) != 2 || sc.Timeline[0].At != 10*time.Second || len(sc.Timeline[0].Set) != 2 || sc.Timeline[0].Set[1] != (Assignment{"link.loss_burst", "8", 11}) {
		t.Fatalf("timeline %+v", sc.Timeline)
	}
	s, _ := NewSegments(sc.Segments)
	if in := s.Input(sim.Time(2200 * time.Millisecond)); in.Throttle != -0.5 {
		t.Fatalf("segment at 2.2s: %+v", in)
	}
	if in := s.Input(sim.Time(2600 * time.Millisecond)); in.Turn != 0.5 {
		t.Fatalf("segments repeat: %+v", in)
	}
}

func TestBaseIsMergedFirst(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "base.toml"), []byte("duration = \"20s\"\nlink.latency = \"10ms\"\nlink.loss = \"1%\"\n[[timeline]]\nat = \"5s\"\nlink.loss = \"2%\"\n"), 0o644)
	child := filepath.Join(dir, "child.toml")
	os.WriteFile(child, []byte("base = \"base.toml\"\nlink.latency = \"30ms\"\n[[timeline]]\nat = \"1s\"\nlink.latency = \"40ms\"\n"), 0o644)
	sc, err := Load(child, check)
	if err != nil {
		t.Fatal(err)
	}
	// Base first, so the child's link.latency wins when applied in order.
	if len(sc.Params) != 3 || sc.Params[0].Value != "10ms" || sc.Params[2].Value != "30ms" || sc.Duration != 20*time.Second {
		t.Fatalf("merged %+v", sc)
	}
	if len(sc.Timeline) != 2 || sc.Timeline[0].At != time.Second || sc.Timeline[1].At != 5*time.Second {
		t.Fatalf("timelines not merged by time: %+v", sc.Timeline)
	}
	// A cycle is an error, not a hang.
	os.WriteFile(filepath.Join(dir, "a.toml"), []byte("base = \"b.toml\"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.toml"), []byte("base = \"a.toml\"\n"), 0o644)
	if _, err := Load(filepath.Join(dir, "a.toml"), check); err == nil || !strings.Contains(err.Error(), "deep") {
		t.Fatalf("cycle: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load("no-such-scenario", check); err == nil || !strings.Contains(err.Error(), "lab scenarios") {
		t.Fatalf("unknown name: %v", err)
	}
	big := filepath.Join(t.TempDir(), "big.toml")
	os.WriteFile(big, []byte(strings.Repeat("# x\n", maxFileSize/4+1)), 0o644)
	if _, err := Load(big, check); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("oversized file: %v", err)
	}
}

func TestBuiltinOrderListsEveryFile(t *testing.T) {
	entries, err := builtinFS.ReadDir("builtin")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(builtinOrder) {
		t.Fatalf("%d built-in files, %d in the listing order", len(entries), len(builtinOrder))
	}
	for _, e := range entries {
		if !slices.Contains(builtinOrder, strings.TrimSuffix(e.Name(), ".toml")) {
			t.Errorf("%s is not listed", e.Name())
		}
	}
}

// FuzzParse: no input panics or hangs; an accepted scenario has a sorted
// timeline of non-empty changes and only checked keys.
func FuzzParse(f *testing.F) {
	for _, n := range BuiltinNames() {
		b, _ := builtinText(n)
		f.Add(b)
	}
	examples, _ := filepath.Glob("examples/*.toml")
	ci, _ := filepath.Glob("examples/ci/*.toml")
	for _, e := range append(examples, ci...) {
		b, _ := os.ReadFile(e)
		f.Add(b)
	}
	f.Add([]byte("[[timeline]]\nat = \"1s\"\nlink.loss = 0.5\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse("fuzz.toml", data, func(k, v string) error { return nil })
		if err != nil {
			return
		}
		for i, ch := range sc.Timeline {
			if len(ch.Set) == 0 || (i > 0 && ch.At < sc.Timeline[i-1].At) {
				t.Fatalf("bad timeline %+v", sc.Timeline)
			}
		}
		if sc.Duration < 0 {
			t.Fatal("negative duration")
		}
		for _, a := range sc.Asserts {
			if a.Metric == "" || len(a.Bounds) == 0 {
				t.Fatalf("accepted an [[assert]] without a metric or a bound: %+v", a)
			}
			for _, b := range a.Bounds {
				if math.IsNaN(b.Value) || math.IsInf(b.Value, 0) || !slices.Contains(BoundKeys, b.Key) {
					t.Fatalf("accepted a bound %+v", b)
				}
			}
		}
	})
}

// A timeline entry's at that is not a duration in quotes (at = 2, at =
// true, at = 2s unquoted is a TOML error already) is refused naming the
// value as written and what is allowed, at its own line; an entry without
// an at says so.
func TestTimelineAtNotAStringNamesTheValue(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"[[timeline]]\nat = 2\nup.loss = \"5%\"\n", `test.toml:2: timeline entry 1: at = 2: allowed a duration in quotes such as at = "30s"`},
		{"[[timeline]]\nat = true\nup.loss = \"5%\"\n", `test.toml:2: timeline entry 1: at = true: allowed a duration in quotes such as at = "30s"`},
		{"[[timeline]]\nup.loss = \"5%\"\n", `test.toml:1: timeline entry 1: want at = "30s"`},
	} {
		_, err := parseText(t, tc.text)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v; want %q", tc.text, err, tc.want)
		}
	}
}

// Join writes assignments as a command line does.
func TestJoinWritesAssignmentsAsACommandLine(t *testing.T) {
	for _, c := range []struct {
		set  []Assignment
		want string
	}{
		{nil, ""},
		{[]Assignment{{Key: "up.loss", Value: "1%"}}, "up.loss=1%"},
		{[]Assignment{{Key: "link.latency", Value: "80ms", Line: 3}, {Key: "up.trace", Value: "a b.csv"}}, "link.latency=80ms up.trace=a b.csv"},
	} {
		if got := Join(c.set); got != c.want {
			t.Errorf("Join(%v) = %q, want %q", c.set, got, c.want)
		}
	}
}
