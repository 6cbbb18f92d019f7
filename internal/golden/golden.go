package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/) from this run")

// Update says whether the test binary runs with -update: golden files
// are written, not compared.
func Update() bool { return *update }

// Check compares got with the golden file at path, or writes got there
// (making its directory) under -update. A missing file or a difference
// fails t, naming the file, the flag that rewrites it and the lines that
// differ (see [Diff]); Check reports whether the file held got, so the
// caller can add what produced it.
func Check(t testing.TB, path string, got []byte) bool {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return true
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%v (rerun with -update to create it)", err)
		return false
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (rerun with -update and review the change):\n%s", path, Diff(string(want), string(got)))
		return false
	}
	return true
}

// maxDiffLines bounds the lines Diff compares as a whole (its work is
// their product); beyond, it shows the first difference.
const maxDiffLines = 4000

// Diff is the lines of want and got that differ: "-N line" for want's
// line N that got lacks, "+N line" for got's line N that want lacks, with
// two lines of context ("  N line") around each change; "" when they are
// equal.
func Diff(want, got string) string {
	if want == got {
		return ""
	}
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		line := func(l []string) string {
			if i < len(l) {
				return l[i]
			}
			return "(end of text)"
		}
		return fmt.Sprintf("-%d %s\n+%d %s\n", i+1, line(a), i+1, line(b))
	}
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int32, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-' or '+'
		n    int  // the line's number in want (' ', '-') or got ('+')
		text string
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', i + 1, a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', i + 1, a[i]})
			i++
		default:
			ops = append(ops, op{'+', j + 1, b[j]})
			j++
		}
	}
	const context = 2
	var out strings.Builder
	last := -1 // the last op written
	for k, o := range ops {
		if o.kind == ' ' {
			continue
		}
		from := max(k-context, last+1)
		if last >= 0 && from > last+1 {
			out.WriteString("  …\n")
		}
		for c := from; c < k; c++ {
			fmt.Fprintf(&out, "  %d %s\n", ops[c].n, ops[c].text)
		}
		fmt.Fprintf(&out, "%c%d %s\n", o.kind, o.n, o.text)
		last = k
		for c := k + 1; c < len(ops) && c <= k+context && ops[c].kind == ' '; c++ {
			fmt.Fprintf(&out, "  %d %s\n", ops[c].n, ops[c].text)
			last = c
		}
	}
	return out.String()
}
