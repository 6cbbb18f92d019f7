package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeExample is a command the README shows and the output under it.
type readmeExample struct {
	args []string
	want string
}

// readmeExamples returns the README's "$ go run ./cmd/lab CMD …" blocks for
// the given commands: the arguments and the output shown under them.
func readmeExamples(t *testing.T, cmds ...string) (examples []readmeExample) {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(b), "```")[1:] {
		cmdLine, out, ok := strings.Cut(strings.TrimPrefix(block, "\n"), "\n")
		rest, isLab := strings.CutPrefix(cmdLine, "$ go run ./cmd/lab ")
		if !ok || !isLab {
			continue
		}
		args := shellFields(rest)
		for _, c := range cmds {
			if args[0] == c {
				examples = append(examples, readmeExample{args, out})
			}
		}
	}
	return examples
}

// shellFields splits a command line as sh does for words and '…' quotes.
func shellFields(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, inWord := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			inQuote, inWord = !inQuote, true
		case r == ' ' && !inQuote:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

var wallTime = regexp.MustCompile(`simulated in [0-9.]+[µnm]?s\n`)

// TestREADMEABAndSweepOutputsReproduce (issue 8 items 5 and 22): every
// 'lab ab' and 'lab sweep' the README shows prints exactly the output shown
// (but the wall time), and the signflip-vs-deadband example shows a
// difference between its variants.
func TestREADMEABAndSweepOutputsReproduce(t *testing.T) {
	examples := readmeExamples(t, "ab", "sweep")
	if len(examples) < 3 {
		t.Fatalf("the README shows %d ab/sweep examples with output; want 3", len(examples))
	}
	sawSignflip := false
	for _, ex := range examples {
		code, out, errOut := runLab(t, ex.args...)
		got, want := wallTime.ReplaceAllString(out, "simulated in …\n"), wallTime.ReplaceAllString(ex.want, "simulated in …\n")
		if code != 0 || got != want {
			t.Errorf("lab %s: exit %d %s\ngot:\n%s\nthe README shows:\n%s", strings.Join(ex.args, " "), code, errOut, got, want)
		}
		if strings.Contains(strings.Join(ex.args, " "), "client.corrector=signflip") {
			sawSignflip = true
			if m := regexp.MustCompile(`latch flips +([0-9.]+) +([0-9.]+)`).FindStringSubmatch(out); m == nil || m[1] == m[2] {
				t.Errorf("signflip against deadband shows no difference in latch flips:\n%s", out)
			}
		}
	}
	if !sawSignflip {
		t.Error("the README has no signflip-vs-deadband example with its output")
	}
}
