package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"jitterlab/internal/golden"
	"jitterlab/internal/testtool"
)

// readmeExample is a command the documentation shows and the output under
// it: block is the index of its fenced block in file (README.md or a page
// under docs/) split on "```".
//
// A block fenced as ```excerpt shows only runs of lines of the output,
// with "…" lines between them: each run must appear whole and in order in
// the output (see excerptOf).
type readmeExample struct {
	args    []string
	want    string
	file    string
	block   int
	excerpt bool
}

// matches says whether out is what the example shows (its wall times masked).
func (ex readmeExample) matches(out string) bool {
	if ex.excerpt {
		_, ok := excerptOf(maskWallTime(out), maskWallTime(ex.want))
		return ok
	}
	return maskWallTime(out) == maskWallTime(ex.want)
}

// shown is what the block should show for out: out itself, or for an
// excerpt the same runs taken from out (each found by its first line's
// runKey).
func (ex readmeExample) shown(out string) string {
	if !ex.excerpt {
		return out
	}
	s, _ := excerptOf(out, ex.want)
	return s
}

// runKey is what finds an excerpt's run in the output: the line's leading
// words (at most three) before the first one with a figure, an =, a + or a
// parenthesis; the first word alone when it has one ("1.", "up.latency").
// "recommended: a=1" and "recommended: (none)" have the same key.
func runKey(line string) string {
	var key []string
	for i, w := range strings.Fields(line) {
		if i == 3 || (i > 0 && strings.ContainsAny(w, "0123456789=+(")) {
			break
		}
		key = append(key, w)
		if strings.ContainsAny(w, "0123456789=+(") {
			break
		}
	}
	return strings.Join(key, " ")
}

// excerptOf rebuilds the excerpt want from out: every run of lines between
// "…" lines is replaced by as many lines of out, starting at the first line
// after the previous run with the same runKey as the run's first line. ok is false when a run's start is not found or its lines differ.
func excerptOf(out, want string) (string, bool) {
	outLines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var b strings.Builder
	ok, at := true, 0
	var run []string
	flush := func() {
		if len(run) == 0 {
			return
		}
		key := runKey(run[0])
		start := -1
		for j := at; j < len(outLines) && start < 0; j++ {
			if runKey(outLines[j]) == key {
				start = j
			}
		}
		got := run
		if start < 0 || start+len(run) > len(outLines) {
			ok = false
		} else {
			got = outLines[start : start+len(run)]
			at = start + len(run)
			if strings.Join(got, "\n") != strings.Join(run, "\n") {
				ok = false
			}
		}
		b.WriteString(strings.Join(got, "\n") + "\n")
		run = nil
	}
	for _, l := range strings.Split(strings.TrimSuffix(want, "\n"), "\n") {
		if l == "…" {
			flush()
			b.WriteString("…\n")
			continue
		}
		run = append(run, l)
	}
	flush()
	return b.String(), ok
}

// docBlocks holds each documentation file split on "```", by absolute path,
// so that -update can rewrite the outputs where they are shown.
type docBlocks map[string][]string

// set replaces the output under ex's command line with out.
func (d docBlocks) set(ex readmeExample, out string) {
	block := d[ex.file][ex.block]
	lead := "\n"
	if ex.excerpt && !strings.HasPrefix(block, "\n") {
		lead = "" // the fence's info string: ```excerpt
	}
	cmdLine, rest, _ := strings.Cut(strings.TrimPrefix(block, "\n"), "\n")
	if ex.excerpt {
		line, _, _ := strings.Cut(rest, "\n")
		cmdLine += "\n" + line
	}
	d[ex.file][ex.block] = lead + cmdLine + "\n" + ex.shown(out)
}

// write saves every file back.
func (d docBlocks) write(t *testing.T) {
	t.Helper()
	for path, blocks := range d {
		if err := os.WriteFile(path, []byte(strings.Join(blocks, "```")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readmeExamples returns the "$ go run ./cmd/lab CMD …" blocks of README.md
// and every page under docs/ for the given commands: the arguments and the
// output shown under them.
func readmeExamples(t *testing.T, cmds ...string) (docBlocks, []readmeExample) {
	t.Helper()
	d := docBlocks{}
	var examples []readmeExample
	for _, path := range docPaths(t) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			t.Fatal(err)
		}
		blocks := strings.Split(string(b), "```")
		d[abs] = blocks
		for i, block := range blocks {
			if i%2 == 0 {
				continue // text between fences
			}
			cmdLine, out, ok := strings.Cut(strings.TrimPrefix(block, "\n"), "\n")
			excerpt := cmdLine == "excerpt"
			if excerpt {
				cmdLine, out, ok = strings.Cut(out, "\n")
			}
			rest, isLab := strings.CutPrefix(cmdLine, "$ go run ./cmd/lab ")
			if !ok || !isLab || strings.HasSuffix(rest, "&") {
				continue
			}
			args := shellFields(rest)
			for _, c := range cmds {
				if args[0] == c {
					examples = append(examples, readmeExample{args, out, abs, i, excerpt})
				}
			}
		}
	}
	return d, examples
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

// wallTime matches the only figures of a command's output that depend on
// the machine: how long it took.
var wallTime = regexp.MustCompile(`simulated in [0-9.]+[µnm]?s\n|[0-9]+× real time \([0-9.]+[µnm]?s wall\)|identical \([0-9.]+[µnm]?s\)`)

func maskWallTime(s string) string { return wallTime.ReplaceAllString(s, "…") }

// TestREADMEOutputsReproduce (issue 8 items 5 and 22): every deterministic
// command the README shows (`lab run`, 'ab', 'sweep',
// 'replay', 'diagnose') prints exactly the output shown, but the wall
// time; the signflip-vs-deadband example shows a difference between its
// variants. With -update the README's outputs are rewritten. The commands
// that name no file run in parallel with the package's other tests (most
// of them wait on the wall clock); those that name a file the repository
// holds run from its root, in TestREADMEFileOutputsReproduce, which
// changes directory and so cannot run in parallel.
func TestREADMEOutputsReproduce(t *testing.T) {
	testtool.NotUnderRace(t, "the docs' outputs, each one lab command's arithmetic (three default diagnoses among them)")
	t.Parallel()
	blocks, examples := readmeExamples(t, "run", "ab", "sweep", "replay", "diagnose")
	if len(examples) < 5 {
		t.Fatalf("the README shows %d examples with output; want at least 5", len(examples))
	}
	sawSignflip := checkExamples(t, blocks, slices.DeleteFunc(examples, namesAFile))
	if !sawSignflip {
		t.Error("the README has no signflip-vs-deadband example with its output")
	}
}

// TestREADMEFileOutputsReproduce: the docs' commands that name a file the
// repository holds (lab replay recordings/examples/jitter-fix.jlrec) print
// the output shown, run from the repository's root.
func TestREADMEFileOutputsReproduce(t *testing.T) {
	blocks, examples := readmeExamples(t, "run", "ab", "sweep", "replay", "diagnose")
	examples = slices.DeleteFunc(examples, func(ex readmeExample) bool { return !namesAFile(ex) })
	if len(examples) == 0 {
		t.Fatal("the docs show no command on a file of the repository (lab replay recordings/examples/…)")
	}
	t.Chdir("../..") // the README's commands run from the repository's root
	checkExamples(t, blocks, examples)
}

// namesAFile says whether one of ex's arguments is a path to a file of the
// repository (relative to its root).
func namesAFile(ex readmeExample) bool {
	for _, a := range ex.args {
		if strings.Contains(a, "/") && !strings.HasPrefix(a, "-") {
			if _, err := os.Stat(filepath.Join("..", "..", a)); err == nil {
				return true
			}
		}
	}
	return false
}

// checkExamples runs each example's command once and compares its output
// with every block that shows it (with -update: rewrites them). It
// reports whether it saw the signflip-vs-deadband example.
func checkExamples(t *testing.T, blocks docBlocks, examples []readmeExample) (sawSignflip bool) {
	t.Helper()
	// A command several pages show (lab diagnose --scenario jitter-fix is
	// on four) runs once: its output is the same for the same arguments,
	// and each page's block is compared with it.
	type output struct {
		code        int
		out, errOut string
	}
	ran := map[string]output{}
	for _, ex := range examples {
		key := strings.Join(ex.args, "\x00")
		o, ok := ran[key]
		if !ok {
			o.code, o.out, o.errOut = runLab(t, ex.args...)
			ran[key] = o
		}
		code, out, errOut := o.code, o.out, o.errOut
		if code != 0 {
			t.Errorf("lab %s: exit %d %s", strings.Join(ex.args, " "), code, errOut)
			continue
		}
		if golden.Update() && !ex.matches(out) { // keep the shown wall time when nothing else changed
			blocks.set(ex, out)
		} else if !golden.Update() && !ex.matches(out) {
			t.Errorf("lab %s (%s):\ngot:\n%s\nthe docs show:\n%s", strings.Join(ex.args, " "), ex.file, maskWallTime(ex.shown(out)), maskWallTime(ex.want))
		}
		if strings.Contains(strings.Join(ex.args, " "), "client.corrector=signflip") {
			sawSignflip = true
			if m := regexp.MustCompile(`latch_flips +([0-9.]+) ± [0-9.?]+ +([0-9.]+) ± `).FindStringSubmatch(out); m == nil || m[1] == m[2] {
				t.Errorf("signflip against deadband shows no difference in latch flips:\n%s", out)
			}
		}
	}
	if golden.Update() {
		blocks.write(t)
	}
	return sawSignflip
}
