package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Diff shows each changed line with its number and two lines of context
// around it, an ellipsis between changes far apart, and nothing for
// equal texts.
func TestDiffNumbersTheChangedLines(t *testing.T) {
	want := "a\nb\nc\nd\ne\nf\ng\nh\ni\n"
	got := "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\n"
	d := Diff(want, got)
	for _, line := range []string{"  1 a\n-2 b\n+2 B\n  3 c\n  4 d\n", "  …\n", "  8 h\n  9 i\n+10 j\n"} {
		if !strings.Contains(d, line) {
			t.Errorf("diff lacks %q:\n%s", line, d)
		}
	}
	if strings.Contains(d, " 6 f") {
		t.Errorf("diff shows line 6, three lines from any change:\n%s", d)
	}
	if d := Diff(want, want); d != "" {
		t.Errorf("diff of equal texts: %q", d)
	}
}

// Beyond maxDiffLines, Diff names the first differing line.
func TestDiffOfLongTextsNamesTheFirstDifference(t *testing.T) {
	a := strings.Repeat("x\n", maxDiffLines+10)
	b := a[:200] + "y\n" + a[202:]
	if d := Diff(a, b); d != "-101 x\n+101 y\n" {
		t.Errorf("diff %q", d)
	}
}

// Check passes on the file's bytes, fails on others, and -update writes
// the file (its directory made).
func TestCheckComparesOrWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.txt")
	*update = true
	Check(t, path, []byte("one\ntwo\n"))
	*update = false
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\ntwo\n" {
		t.Fatalf("-update wrote %q, %v", b, err)
	}
	if !Check(t, path, []byte("one\ntwo\n")) {
		t.Error("Check of the file's own bytes reports a difference")
	}
	var ft fakeT
	if Check(&ft, path, []byte("one\n2\n")) {
		t.Error("Check of other bytes reports none")
	}
	if !strings.Contains(ft.msg, path) || !strings.Contains(ft.msg, "-2 two") || !strings.Contains(ft.msg, "+2 2") {
		t.Errorf("a difference fails with %q", ft.msg)
	}
}

// fakeT records a failure.
type fakeT struct {
	testing.TB
	msg string
}

func (f *fakeT) Helper()                        {}
func (f *fakeT) Errorf(format string, a ...any) { f.msg = fmt.Sprintf(format, a...) }
