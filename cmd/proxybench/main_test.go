package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The benchmark runs end to end on loopback: a relay child, datagrams at
// each rate through it and direct, and a row of figures per rate with
// every datagram accounted for. (It asserts no timing: the figures depend
// on the machine.)
func TestBenchmarkRunsOnLoopback(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "proxybench")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"--rates", "50,200", "--duration", "200ms", "--delay", "5ms", "--probe", "200ms"},
		{"--rates", "50,200", "--duration", "200ms", "--delay", "0", "--bare", "--probe", "0"},
		{"--rates", "50,200", "--duration", "200ms", "--delay", "5ms", "--runs", "2", "--probe", "100ms"},
	} {
		var out bytes.Buffer
		cmd := exec.Command(exe, args...)
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
		for _, rate := range []string{"50", "200"} {
			// rate, sent, via relay, the error, the relay's own lateness
			// and stalls (dashes for --bare), the direct path, CPU, CPU
			// wait, the relay's drops
			fig := `(-?\d+ µs|-)\s+`
			row := regexp.MustCompile(`(?m)^\s+` + rate + `\s+(\d+)\s+(\d+)\s+(` + fig + `){6}(\d+|-)\s+` + fig + `(` + fig + `){3}(\S+ %|n/a)\s+(\S+ ms|n/a)\s+\d+\s*$`)
			m := row.FindStringSubmatch(out.String())
			if m == nil {
				t.Fatalf("%v: no row for %s/s:\n%s", args, rate, out.String())
			}
			if m[1] == "0" {
				t.Fatalf("%v: nothing sent at %s/s", args, rate)
			}
		}
		// Before each run, unless --probe 0, how often the machine woke a
		// thread sleeping 1 ms late: at most one sleep per millisecond.
		probes := regexp.MustCompile(`(?m)^wake-up probe on the relay's CPU: (\d+) sleeps of 1 ms in (\S+), \d+ woke more than 500µs late \(\d+ more than 2 ms\), latest \d+ µs late$`).FindAllStringSubmatch(out.String(), -1)
		want := strings.Count(out.String(), "load average before: ")
		if args[slices.Index(args, "--probe")+1] == "0" {
			want = 0
		}
		if len(probes) != want {
			t.Fatalf("%v: %d probe lines for %d runs:\n%s", args, len(probes), want, out.String())
		}
		for _, p := range probes {
			n, _ := strconv.Atoi(p[1])
			d, _ := time.ParseDuration(p[2])
			if n < 1 || n > int(d/time.Millisecond) {
				t.Fatalf("%v: %d sleeps of 1 ms in %v", args, n, d)
			}
		}
		if !strings.Contains(out.String(), "load average before: ") {
			t.Fatalf("no load average:\n%s", out.String())
		}
		if slices.Contains(args, "--runs") {
			// Each run's table, then per rate the range of each figure.
			ranges := regexp.MustCompile(`(?m)^over the 2 runs \(lowest–highest\):\n.*\n\s+50(\s+(-|[\d.]+(–[\d.]+)?( µs| %| ms)?)){11}\s*\n\s+200\s`)
			if strings.Count(out.String(), "load average before: ") != 2 || !ranges.MatchString(out.String()) {
				t.Fatalf("%v: want two runs and their ranges:\n%s", args, out.String())
			}
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--rates", "0"}, {"--rates", "x"}, {"--size", "8"}, {"--duration", "1ms"}, {"--delay", "-1s"}, {"--release-window", "2ms"}, {"--bare"}, {"--runs", "0"}} {
		if err := run(args, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: %v", args, err)
		}
	}
}
