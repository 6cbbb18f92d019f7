package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
		{"--rates", "50,200", "--duration", "200ms", "--delay", "5ms"},
		{"--rates", "50,200", "--duration", "200ms", "--delay", "0", "--bare"},
	} {
		var out bytes.Buffer
		cmd := exec.Command(exe, args...)
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
		for _, rate := range []string{"50", "200"} {
			// rate, sent, via relay, 9 figures in µs (the relay's own
			// lateness: dashes for --bare), CPU, CPU wait, the relay's drops
			row := regexp.MustCompile(`(?m)^\s+` + rate + `\s+(\d+)\s+(\d+)\s+((-?\d+ µs|-)\s+){9}(\S+ %|n/a)\s+(\S+ ms|n/a)\s+\d+\s*$`)
			m := row.FindStringSubmatch(out.String())
			if m == nil {
				t.Fatalf("%v: no row for %s/s:\n%s", args, rate, out.String())
			}
			if m[1] == "0" {
				t.Fatalf("%v: nothing sent at %s/s", args, rate)
			}
		}
		if !strings.Contains(out.String(), "load average before: ") {
			t.Fatalf("no load average:\n%s", out.String())
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--rates", "0"}, {"--rates", "x"}, {"--size", "8"}, {"--duration", "1ms"}, {"--delay", "-1s"}, {"--release-window", "2ms"}, {"--bare"}} {
		if err := run(args, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%v: %v", args, err)
		}
	}
}
